/**
 * appendMemories / appendMemoriesForUsers and the memory reads: leaf indices, atomicity under
 * injected failure, 50 concurrent appends, the optimistic-concurrency check, cross-user batches
 * (contiguous per-user indices, whole-batch rollback, two processes sharing users), the one-statement
 * append on remembered trees (continuation, stale users, rollback), deletion keeping the leaf,
 * listings.
 */
import { rootFromLeafHashes } from "@verifiable-memory/merkle-log";
import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  appendMemories,
  appendMemoriesForUsers,
  appendMemoriesToKnownTrees,
  checkTree,
  createDatabase,
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
  type SavedTree,
  type Transaction,
  TreeCorruptError,
  TreeSaveConflictError,
  treeSaveConflicts,
  trees,
  type UserAppend,
} from "../src/index.js";
import { restoreRange, saveTree } from "../src/queries/_tree-store.js";
import { createTestDatabase, type TestDatabase } from "../src/testing/index.js";
import { makeUser, newMemory } from "./_fixtures.js";

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
          // The memory row and the saved tree are visible inside the transaction before the failure.
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

/** Every leaf of `userId` in leaf order: index, id and hash. */
async function leavesOf(userId: string) {
  return t.db
    .select({ leafIndex: memories.leafIndex, id: memories.id, leafHash: memories.leafHash })
    .from(memories)
    .where(eq(memories.userId, userId))
    .orderBy(memories.leafIndex);
}

/** Asserts the user's leaves are exactly 0..n-1 and the persisted tree is their full recomputation. */
async function expectConsistentLog(userId: string, n: number) {
  const rows = await leavesOf(userId);
  expect(rows.map((r) => r.leafIndex)).toEqual(Array.from({ length: n }, (_, i) => i));
  const tree = await getTree(t.db, userId);
  expect(tree?.size).toBe(n);
  expect(tree?.root).toEqual(rootFromLeafHashes(rows.map((r) => r.leafHash)));
  const check = await checkTree(t.db, userId);
  expect(check.reasons).toEqual([]);
  return rows;
}

/** A snapshot of everything a batch could write for these users (memories, nodes, trees). */
async function snapshot(userIds: readonly string[]) {
  return Promise.all(
    userIds.map(async (userId) => {
      const nodes = await t.sql<{ n: string }[]>`
        select count(*) as n from merkle_nodes where user_id = ${userId}`;
      return {
        leaves: (await leavesOf(userId)).map((r) => r.id),
        nodes: Number(nodes[0]?.n),
        tree: await getTree(t.db, userId),
      };
    }),
  );
}

/** Bumps the user's tree version inside `tx`: the lost update a writer without the lock makes. */
async function bumpVersion(tx: Transaction, userId: string) {
  await tx
    .update(trees)
    .set({ version: sql`${trees.version} + 1` })
    .where(eq(trees.userId, userId));
}

describe("appendMemoriesForUsers (cross-user group commit)", () => {
  it("writes several users in one transaction, each user's items consecutive in input order", async () => {
    const [a, b, c] = await Promise.all([makeUser(t.db), makeUser(t.db), makeUser(t.db)]);
    if (!a || !b || !c) {
      throw new Error("users missing");
    }
    await appendMemories(t.db, b.id, [newMemory("b-old")]);
    const batch: UserAppend[] = [
      { userId: c.id, items: [newMemory("c0")] },
      { userId: a.id, items: [newMemory("a0"), newMemory("a1"), newMemory("a2")] },
      { userId: b.id, items: [newMemory("b1"), newMemory("b2")] },
    ];
    const results = await appendMemoriesForUsers(t.db, batch);
    expect(results.map((r) => r.userId)).toEqual([c.id, a.id, b.id]);
    expect(results.map((r) => r.items.map((i) => i.leafIndex))).toEqual([[0], [0, 1, 2], [1, 2]]);
    expect(results.map((r) => r.items.map((i) => i.id))).toEqual(
      batch.map((u) => u.items.map((i) => i.id)),
    );
    for (const [k, user] of [c, a, b].entries()) {
      const rows = await expectConsistentLog(user.id, results[k]?.size ?? -1);
      expect(results[k]?.root).toEqual(rootFromLeafHashes(rows.map((r) => r.leafHash)));
    }
    // One transaction: every tree moved by exactly one save.
    expect((await getTree(t.db, a.id))?.version).toBe(1);
    expect((await getTree(t.db, b.id))?.version).toBe(2);
  });

  it("concurrent batches over overlapping users: every user's leaves are 0..n-1, roots recomputed", async () => {
    const users = await Promise.all(Array.from({ length: 6 }, () => makeUser(t.db)));
    const expected = new Map(users.map((u) => [u.id, [] as string[]]));
    // 40 concurrent batches, each over a random subset of the users in a random order.
    const batches = Array.from({ length: 40 }, (_, k) => {
      const picked = users.filter((_, i) => (k + i) % 3 !== 0).sort(() => Math.random() - 0.5);
      return picked.map((u, i) => ({
        userId: u.id,
        items: Array.from({ length: 1 + ((k + i) % 3) }, (_, j) => newMemory(`${k}-${j}`)),
      }));
    });
    const results = await Promise.all(batches.map((b) => appendMemoriesForUsers(t.db, b)));
    results.forEach((batchResults, k) => {
      batchResults.forEach((r, u) => {
        const items = batches[k]?.[u]?.items ?? [];
        // Consecutive within the batch, in input order.
        const first = r.items[0]?.leafIndex ?? -1;
        expect(r.items.map((i) => i.leafIndex)).toEqual(items.map((_, j) => first + j));
        const told = expected.get(r.userId) as string[];
        for (const item of r.items) {
          expect(told[item.leafIndex]).toBeUndefined(); // no index handed out twice
          told[item.leafIndex] = item.id;
        }
      });
    });
    for (const user of users) {
      const ids = expected.get(user.id) as string[];
      const rows = await expectConsistentLog(user.id, ids.length);
      expect(rows.map((r) => r.id)).toEqual(ids); // each id at the index it was told
    }
  });

  it("a failure injected before the commit rolls back every user's part", async () => {
    const [a, b] = await Promise.all([makeUser(t.db), makeUser(t.db)]);
    if (!a || !b) {
      throw new Error("users missing");
    }
    await appendMemories(t.db, a.id, [newMemory("a-kept")]);
    const before = await snapshot([a.id, b.id]);
    const doomedA = newMemory("a-doomed");
    const doomedB = newMemory("b-doomed");
    let reached = false;
    await expect(
      appendMemoriesForUsers(
        t.db,
        [
          { userId: a.id, items: [doomedA] },
          { userId: b.id, items: [doomedB] },
        ],
        {
          beforeCommit: async ({ tx, trees: sizes }) => {
            const inside = await tx.select().from(memories).where(eq(memories.userId, b.id));
            expect(inside.map((m) => m.id)).toEqual([doomedB.id]);
            expect(sizes).toEqual([
              { userId: a.id, size: 2 },
              { userId: b.id, size: 1 },
            ]);
            reached = true;
            throw new Error("injected failure");
          },
        },
      ),
    ).rejects.toThrow("injected failure");
    expect(reached).toBe(true);
    expect(await snapshot([a.id, b.id])).toEqual(before);
  });

  it("a failing statement of one user's part (duplicate id) rolls back the other users' parts", async () => {
    const [a, b] = await Promise.all([makeUser(t.db), makeUser(t.db)]);
    if (!a || !b) {
      throw new Error("users missing");
    }
    const existing = newMemory("exists");
    await appendMemories(t.db, b.id, [existing]);
    const before = await snapshot([a.id, b.id]);
    const attempt = appendMemoriesForUsers(t.db, [
      { userId: a.id, items: [newMemory("a0"), newMemory("a1")] },
      { userId: b.id, items: [{ ...newMemory("dup"), id: existing.id }] },
    ]);
    await expect(attempt).rejects.toSatisfy((error: unknown) => {
      const cause = (error as { cause?: { code?: string } }).cause;
      return cause?.code === "23505";
    });
    expect(await snapshot([a.id, b.id])).toEqual(before);
    // The failed batch did not poison anything: the next one writes at the same indices.
    const next = await appendMemoriesForUsers(t.db, [
      { userId: a.id, items: [newMemory("a0")] },
      { userId: b.id, items: [newMemory("b1")] },
    ]);
    expect(next.map((r) => r.items[0]?.leafIndex)).toEqual([0, 1]);
  });

  it("a lost update in the pipelined save is a counted conflict that rolls back the batch, then a retry", async () => {
    const [a, b] = await Promise.all([makeUser(t.db), makeUser(t.db)]);
    if (!a || !b) {
      throw new Error("users missing");
    }
    await appendMemoriesForUsers(t.db, [
      { userId: a.id, items: [newMemory("a0")] },
      { userId: b.id, items: [newMemory("b0")] },
    ]);
    const before = await snapshot([a.id, b.id]);
    const conflicts = treeSaveConflicts.value;
    const batch = () => [
      { userId: a.id, items: [newMemory("a1")] },
      { userId: b.id, items: [newMemory("b1"), newMemory("b2")] },
    ];
    // The hook bumps b's version inside the transaction before the write statement (as a writer
    // that skipped the row lock would): the statement inserts a's and b's rows and nodes, saves
    // a's tree, misses b's row; the whole transaction rolls back.
    const conflicting = appendMemoriesForUsers(t.db, batch(), {
      maxAttempts: 1,
      beforeWrite: ({ tx }) => bumpVersion(tx, b.id),
    });
    await expect(conflicting).rejects.toBeInstanceOf(TreeSaveConflictError);
    await expect(conflicting).rejects.toMatchObject({ userId: b.id, expectedVersion: 1 });
    expect(treeSaveConflicts.value).toBe(conflicts + 1);
    expect(await snapshot([a.id, b.id])).toEqual(before); // a's saved tree rolled back too

    // With retries the next attempt reads afresh and succeeds.
    let attempts = 0;
    const retried = await appendMemoriesForUsers(t.db, batch(), {
      beforeWrite: async ({ tx, attempt }) => {
        attempts = attempt;
        if (attempt === 1) {
          await bumpVersion(tx, a.id);
        }
      },
    });
    expect(attempts).toBe(2);
    expect(treeSaveConflicts.value).toBe(conflicts + 2);
    expect(retried.map((r) => r.items.map((i) => i.leafIndex))).toEqual([[1], [1, 2]]);
    await expectConsistentLog(a.id, 2);
    await expectConsistentLog(b.id, 3);
  });

  it("two processes appending for the same users: no deadlock, conflicts counted and retried, no lost leaf", async () => {
    // Two separate pools (as two core-api instances): the tree row locks, taken in user id
    // order, serialize their batches. Lost updates cannot happen under the locks, so some first
    // attempts inject one (a version bump before the save) to prove detection and retry.
    const other = createDatabase({ url: t.url, max: 8 });
    try {
      const users = await Promise.all(Array.from({ length: 5 }, () => makeUser(t.db)));
      const conflicts = treeSaveConflicts.value;
      let injected = 0;
      const run = (db: typeof t.db, k: number) => {
        const order = k % 2 === 0 ? users : [...users].reverse();
        const picked = order.filter((_, i) => (i + k) % 4 !== 0);
        return appendMemoriesForUsers(
          db,
          picked.map((u) => ({ userId: u.id, items: [newMemory(`p${k}`), newMemory(`q${k}`)] })),
          k % 5 === 0
            ? {
                beforeWrite: async ({ tx, attempt, trees: sizes }) => {
                  if (attempt === 1) {
                    injected += 1;
                    await bumpVersion(tx, sizes[0]?.userId ?? "");
                  }
                },
              }
            : {},
        );
      };
      const all = await Promise.all(
        Array.from({ length: 30 }, (_, k) => run(k % 2 === 0 ? t.db : other.db, k)),
      );
      expect(injected).toBe(6);
      expect(treeSaveConflicts.value).toBe(conflicts + injected);
      const told = new Map(users.map((u) => [u.id, new Map<number, string>()]));
      for (const results of all) {
        for (const r of results) {
          for (const item of r.items) {
            const byIndex = told.get(r.userId) as Map<number, string>;
            expect(byIndex.has(item.leafIndex)).toBe(false); // no index handed out twice
            byIndex.set(item.leafIndex, item.id);
          }
        }
      }
      for (const user of users) {
        const byIndex = told.get(user.id) as Map<number, string>;
        const rows = await expectConsistentLog(user.id, byIndex.size);
        expect(rows.map((r) => r.id)).toEqual(rows.map((r) => byIndex.get(r.leafIndex)));
      }
    } finally {
      await other.close();
    }
  });

  it("runs inside an outer transaction (as a savepoint) and rolls back with it", async () => {
    const [a, b] = await Promise.all([makeUser(t.db), makeUser(t.db)]);
    if (!a || !b) {
      throw new Error("users missing");
    }
    const batch = () => [
      { userId: a.id, items: [newMemory("a0")] },
      { userId: b.id, items: [newMemory("b0"), newMemory("b1")] },
    ];
    await expect(
      t.db.transaction(async (tx) => {
        const inside = await appendMemoriesForUsers(tx, batch());
        expect(inside.map((r) => r.size)).toEqual([1, 2]);
        throw new Error("outer rollback");
      }),
    ).rejects.toThrow("outer rollback");
    expect(await snapshot([a.id, b.id])).toEqual([
      { leaves: [], nodes: 0, tree: null },
      { leaves: [], nodes: 0, tree: null },
    ]);
    await t.db.transaction(async (tx) => {
      await appendMemoriesForUsers(tx, batch());
    });
    await expectConsistentLog(a.id, 1);
    await expectConsistentLog(b.id, 2);
  });

  it("rejects malformed batches before touching the database", async () => {
    const user = await makeUser(t.db);
    await expect(appendMemoriesForUsers(t.db, [])).rejects.toBeInstanceOf(RangeError);
    await expect(
      appendMemoriesForUsers(t.db, [
        { userId: user.id, items: [newMemory()] },
        { userId: user.id, items: [newMemory()] },
      ]),
    ).rejects.toThrow(/appears twice/);
    await expect(
      appendMemoriesForUsers(t.db, [{ userId: user.id, items: [] }]),
    ).rejects.toBeInstanceOf(RangeError);
    expect(await getTree(t.db, user.id)).toBeNull();
  });
});

describe("appendMemoriesToKnownTrees (one statement on remembered trees)", () => {
  it("continues from each user's saved tree: same leaves, nodes and roots as the locked path", async () => {
    const [a, b] = await Promise.all([makeUser(t.db), makeUser(t.db)]);
    if (!a || !b) {
      throw new Error("users missing");
    }
    const first = await appendMemoriesForUsers(t.db, [
      { userId: a.id, items: [newMemory("a0")] },
      { userId: b.id, items: [newMemory("b0"), newMemory("b1")] },
    ]);
    let heads = new Map(first.map((r) => [r.userId, r.tree]));
    // Five appends in a row, each on the tree the previous one returned (no read in between).
    for (let round = 1; round <= 5; round++) {
      const results = await appendMemoriesToKnownTrees(t.db, [
        { userId: b.id, items: [newMemory(`b${round}`)], tree: heads.get(b.id) as SavedTree },
        {
          userId: a.id,
          items: [newMemory(`a${round}`), newMemory(`a${round}'`)],
          tree: heads.get(a.id) as SavedTree,
        },
      ]);
      heads = new Map(
        results.map((r) => {
          if ("stale" in r) {
            throw new Error(`stale ${r.userId}`);
          }
          return [r.userId, r.tree];
        }),
      );
    }
    await expectConsistentLog(a.id, 11);
    await expectConsistentLog(b.id, 7);
    for (const user of [a, b]) {
      const stored = await getTree(t.db, user.id);
      const head = heads.get(user.id);
      expect(head?.version).toBe(6);
      expect(stored?.version).toBe(head?.version);
      expect(stored?.root).toEqual(head?.root);
    }
  });

  it("a user whose row moved on is stale and untouched; the other users commit", async () => {
    const [a, b] = await Promise.all([makeUser(t.db), makeUser(t.db)]);
    if (!a || !b) {
      throw new Error("users missing");
    }
    const first = await appendMemoriesForUsers(t.db, [
      { userId: a.id, items: [newMemory("a0")] },
      { userId: b.id, items: [newMemory("b0")] },
    ]);
    const conflictsBefore = treeSaveConflicts.value;
    // Another writer appends for a: the tree this caller remembers is no longer a's.
    await appendMemories(t.db, a.id, [newMemory("a-elsewhere")]);
    const before = await snapshot([a.id]);
    const results = await appendMemoriesToKnownTrees(
      t.db,
      first.map((r) => ({ userId: r.userId, items: [newMemory("late")], tree: r.tree })),
    );
    expect(results[0]).toEqual({ userId: a.id, stale: true });
    expect(results[1]).toMatchObject({ userId: b.id, size: 2, items: [{ leafIndex: 1 }] });
    expect(await snapshot([a.id])).toEqual(before);
    expect(treeSaveConflicts.value).toBe(conflictsBefore + 1);
    await expectConsistentLog(a.id, 2);
    await expectConsistentLog(b.id, 2);
  });

  it("a failing statement (duplicate id) writes nothing for any user", async () => {
    const [a, b] = await Promise.all([makeUser(t.db), makeUser(t.db)]);
    if (!a || !b) {
      throw new Error("users missing");
    }
    const taken = newMemory("taken");
    const first = await appendMemoriesForUsers(t.db, [
      { userId: a.id, items: [taken] },
      { userId: b.id, items: [newMemory("b0")] },
    ]);
    const before = await snapshot([a.id, b.id]);
    const appends = [
      { userId: a.id, items: [newMemory("a1")], tree: first[0]?.tree as SavedTree },
      {
        userId: b.id,
        items: [{ ...newMemory("b1"), id: taken.id }],
        tree: first[1]?.tree as SavedTree,
      },
    ];
    await expect(appendMemoriesToKnownTrees(t.db, appends)).rejects.toMatchObject({
      cause: { code: "23505" },
    });
    expect(await snapshot([a.id, b.id])).toEqual(before);
  });

  it("rejects malformed input before touching the database", async () => {
    const user = await makeUser(t.db);
    const [first] = await appendMemoriesForUsers(t.db, [{ userId: user.id, items: [newMemory()] }]);
    const tree = first?.tree as SavedTree;
    await expect(appendMemoriesToKnownTrees(t.db, [])).rejects.toBeInstanceOf(RangeError);
    await expect(
      appendMemoriesToKnownTrees(t.db, [{ userId: user.id, items: [], tree }]),
    ).rejects.toBeInstanceOf(RangeError);
    const corrupt = { ...tree, frontier: new Uint8Array(31) };
    await expect(
      appendMemoriesToKnownTrees(t.db, [{ userId: user.id, items: [newMemory()], tree: corrupt }]),
    ).rejects.toBeInstanceOf(TreeCorruptError);
    await expectConsistentLog(user.id, 1);
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
