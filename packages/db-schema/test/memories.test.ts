/**
 * appendMemories and the memory reads: leaf indices, atomicity under injected failure, 50
 * concurrent appends, the optimistic-concurrency check, deletion keeping the leaf, listings,
 * pending leaves. Cross-user batches: group-commit.test.ts.
 */
import { rootFromLeafHashes } from "@verifiable-memory/merkle-log";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  appendMemories,
  deleteMemory,
  getMemoriesByIds,
  getMemory,
  getPendingLeaves,
  getTree,
  listDeletedSince,
  listMemories,
  listMemoriesSince,
  markAnchored,
  memories,
  TreeSaveConflictError,
  treeSaveConflicts,
  trees,
} from "../src/index.js";
import { restoreRange, saveTree } from "../src/queries/_tree-store.js";
import { createTestDatabase, type TestDatabase } from "../src/testing/index.js";
import { makeUser, newMemory } from "./_fixtures.js";
import { bumpVersion } from "./_logs.js";

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase({ max: 8 });
});
afterAll(async () => {
  await t.close();
});

describe("appendMemories", () => {
  it("assigns consecutive leaf indices and keeps the root equal to a full recomputation", async () => {
    const user = await makeUser(t.db);
    const first = await appendMemories(t.db, user.id, [newMemory("a"), newMemory("b")]);
    expect(first.items.map((i) => i.leafIndex)).toEqual([0, 1]);
    const more = [newMemory("c"), newMemory("d"), newMemory("e")];
    const second = await appendMemories(t.db, user.id, more);
    expect(second.items.map((i) => i.leafIndex)).toEqual([2, 3, 4]);
    expect(second.size).toBe(5);
    const rows = await t.db.select().from(memories).where(eq(memories.userId, user.id));
    const hashes = rows.sort((a, b) => a.leafIndex - b.leafIndex).map((r) => r.leafHash);
    expect(second.root).toEqual(rootFromLeafHashes(hashes));
    const tree = await getTree(t.db, user.id);
    expect(tree?.size).toBe(5);
    expect(tree?.root).toEqual(second.root);
    expect(tree?.version).toBe(2);
  });

  it("stores the metadata as a jsonb object and the bytes as given", async () => {
    const user = await makeUser(t.db);
    const item = newMemory("meta", { topic: "x", n: 1 });
    await appendMemories(t.db, user.id, [item]);
    const typeRows = await t.sql<{ kind: string }[]>`
      select jsonb_typeof(metadata) as kind from memories where id = ${item.id}`;
    expect(typeRows[0]?.kind).toBe("object");
    const row = await getMemory(t.db, user.id, item.id);
    expect(row?.metadata).toEqual({ topic: "x", n: 1 });
    expect(row?.ciphertext).toEqual(new Uint8Array(item.ciphertext));
    expect(row?.leafHash).toEqual(new Uint8Array(item.leafHash));
    expect(row?.createdAt.getTime()).toBe(item.createdAt.getTime());
    expect(row?.anchored).toBe(false);
  });

  it("commits nothing when a failure is injected after the memory insert and tree update, before the commit", async () => {
    const user = await makeUser(t.db);
    await appendMemories(t.db, user.id, [newMemory("kept")]);
    const before = await getTree(t.db, user.id);
    const doomed = newMemory("doomed");
    let reached = false;
    await expect(
      appendMemories(t.db, user.id, [doomed], {
        beforeCommit: async ({ tx, size }) => {
          // The memory row and the saved tree are visible inside the transaction before the
          // failure.
          const inside = await tx.select().from(memories).where(eq(memories.id, doomed.id));
          expect(inside).toHaveLength(1);
          expect(size).toBe(2);
          expect((await getTree(tx, user.id))?.size).toBe(2);
          reached = true;
          throw new Error("injected failure");
        },
      }),
    ).rejects.toThrow("injected failure");
    expect(reached).toBe(true);
    expect(await getMemory(t.db, user.id, doomed.id, { includeDeleted: true })).toBeNull();
    const after = await getTree(t.db, user.id);
    expect(after).toEqual(before);
    const nodes = await t.sql<{ n: string }[]>`
      select count(*) as n from merkle_nodes where user_id = ${user.id}`;
    expect(Number(nodes[0]?.n)).toBe(1);
  });

  it("commits nothing when the tree update misses after the memory insert (the write statement fails as a whole)", async () => {
    const user = await makeUser(t.db);
    await appendMemories(t.db, user.id, [newMemory("kept")]);
    const before = await getTree(t.db, user.id);
    const conflicts = treeSaveConflicts.value;
    const doomed = newMemory("doomed");
    // A lost update injected before the write statement: its memory and node INSERTs run, its
    // version-checked tree UPDATE matches no row, and the transaction rolls back.
    await expect(
      appendMemories(t.db, user.id, [doomed], {
        maxAttempts: 1,
        beforeWrite: ({ tx }) => bumpVersion(tx, user.id),
        beforeCommit: () => {
          throw new Error("the write statement must have failed");
        },
      }),
    ).rejects.toBeInstanceOf(TreeSaveConflictError);
    expect(treeSaveConflicts.value).toBe(conflicts + 1);
    expect(await getMemory(t.db, user.id, doomed.id, { includeDeleted: true })).toBeNull();
    expect(await getTree(t.db, user.id)).toEqual(before);
    const nodes = await t.sql<{ n: string }[]>`
      select count(*) as n from merkle_nodes where user_id = ${user.id}`;
    expect(Number(nodes[0]?.n)).toBe(1);
  });

  it("50 concurrent appends for one user get leaf indices exactly 0..49", async () => {
    const user = await makeUser(t.db);
    const items = Array.from({ length: 50 }, (_, i) => newMemory(`c${i}`));
    const results = await Promise.all(items.map((item) => appendMemories(t.db, user.id, [item])));
    const indices = results.map((r) => r.items[0]?.leafIndex).sort((a, b) => (a ?? 0) - (b ?? 0));
    expect(indices).toEqual(Array.from({ length: 50 }, (_, i) => i));
    const rows = await t.db
      .select({ leafIndex: memories.leafIndex, leafHash: memories.leafHash })
      .from(memories)
      .where(eq(memories.userId, user.id))
      .orderBy(memories.leafIndex);
    expect(rows.map((r) => r.leafIndex)).toEqual(indices);
    const tree = await getTree(t.db, user.id);
    expect(tree?.size).toBe(50);
    expect(tree?.root).toEqual(rootFromLeafHashes(rows.map((r) => r.leafHash)));
  });

  it("a save with a stale version is a TreeSaveConflictError and counts a conflict", async () => {
    const user = await makeUser(t.db);
    await appendMemories(t.db, user.id, [newMemory("x")]);
    const conflictsBefore = treeSaveConflicts.value;
    const [row] = await t.db.select().from(trees).where(eq(trees.userId, user.id));
    if (!row) {
      throw new Error("tree row missing");
    }
    // Two writers read the same version; the first save wins, the second is stale.
    const writerA = restoreRange(user.id, row);
    const writerB = restoreRange(user.id, row);
    writerA.append(newMemory("a").leafHash);
    writerB.append(newMemory("b").leafHash);
    await saveTree(t.db, user.id, row, writerA);
    const stale = saveTree(t.db, user.id, row, writerB);
    await expect(stale).rejects.toBeInstanceOf(TreeSaveConflictError);
    await expect(stale).rejects.toMatchObject({ userId: user.id, expectedVersion: row.version });
    expect(treeSaveConflicts.value).toBe(conflictsBefore + 1);
    expect((await getTree(t.db, user.id))?.root).toEqual(writerA.root());
  });

  it("rejects malformed items before touching the database", async () => {
    const user = await makeUser(t.db);
    await expect(appendMemories(t.db, user.id, [])).rejects.toBeInstanceOf(RangeError);
    const bad = { ...newMemory(), leafHash: new Uint8Array(31) };
    await expect(appendMemories(t.db, user.id, [bad])).rejects.toThrow(/leafHash/);
    expect(await getTree(t.db, user.id)).toBeNull();
  });
});

describe("memory reads", () => {
  it("lists newest first with cursors, and since a leaf index for cache refresh", async () => {
    const user = await makeUser(t.db);
    const items = Array.from({ length: 5 }, (_, i) => newMemory(`l${i}`));
    await appendMemories(t.db, user.id, items);
    const page1 = await listMemories(t.db, user.id, { limit: 2 });
    expect(page1.items.map((m) => m.leafIndex)).toEqual([4, 3]);
    const page2 = await listMemories(t.db, user.id, { limit: 2, cursor: page1.nextCursor });
    expect(page2.items.map((m) => m.leafIndex)).toEqual([2, 1]);
    const page3 = await listMemories(t.db, user.id, { limit: 2, cursor: page2.nextCursor });
    expect(page3.items.map((m) => m.leafIndex)).toEqual([0]);
    expect(page3.nextCursor).toBeNull();
    const since = await listMemoriesSince(t.db, user.id, 2);
    expect(since.map((m) => m.leafIndex)).toEqual([3, 4]);
    expect((await listMemoriesSince(t.db, user.id, -1, 2)).map((m) => m.leafIndex)).toEqual([0, 1]);
  });

  it("deletion nulls the body, keeps leaf and tree, and hides the memory", async () => {
    const user = await makeUser(t.db);
    const items = [newMemory("d0"), newMemory("d1")];
    const appended = await appendMemories(t.db, user.id, items);
    const since = new Date(Date.now() - 1000);
    expect(await deleteMemory(t.db, user.id, items[0]?.id ?? "")).toBe(true);
    expect(await deleteMemory(t.db, user.id, items[0]?.id ?? "")).toBe(false);
    expect(await getMemory(t.db, user.id, items[0]?.id ?? "")).toBeNull();
    const kept = await getMemory(t.db, user.id, items[0]?.id ?? "", { includeDeleted: true });
    expect(kept?.ciphertext).toBeNull();
    expect(kept?.iv).toBeNull();
    expect(kept?.leafHash).toEqual(new Uint8Array(items[0]?.leafHash ?? []));
    expect((await getTree(t.db, user.id))?.root).toEqual(appended.root);
    expect((await listMemories(t.db, user.id)).items.map((m) => m.id)).toEqual([items[1]?.id]);
    const deleted = await listDeletedSince(t.db, user.id, since);
    expect(deleted.map((d) => [d.id, d.leafIndex])).toEqual([[items[0]?.id, 0]]);
    const ids = items.map((i) => i.id);
    expect((await getMemoriesByIds(t.db, user.id, ids)).map((m) => m.id)).toEqual([items[1]?.id]);
    const all = await getMemoriesByIds(t.db, user.id, ids, { includeDeleted: true });
    expect(all.map((m) => m.id)).toEqual(ids);
  });

  it("reports pending leaves and marks them anchored up to a size", async () => {
    const user = await makeUser(t.db);
    const items = [newMemory("p0"), newMemory("p1"), newMemory("p2")];
    items[0] = {
      ...(items[0] as (typeof items)[number]),
      createdAt: new Date("2026-01-01T00:00:00.000Z"),
    };
    await appendMemories(t.db, user.id, items);
    expect(await getPendingLeaves(t.db, user.id)).toEqual({
      count: 3,
      oldestCreatedAt: new Date("2026-01-01T00:00:00.000Z"),
    });
    expect(await markAnchored(t.db, user.id, 2)).toBe(2);
    expect(await markAnchored(t.db, user.id, 2)).toBe(0);
    const pending = await getPendingLeaves(t.db, user.id);
    expect(pending.count).toBe(1);
    expect((await getMemory(t.db, user.id, items[0]?.id ?? ""))?.anchored).toBe(true);
    expect((await getMemory(t.db, user.id, items[2]?.id ?? ""))?.anchored).toBe(false);
  });
});
