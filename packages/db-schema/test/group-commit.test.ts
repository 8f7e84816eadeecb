/**
 * appendMemoriesForUsers and appendMemoriesToKnownTrees, the cross-user group commit: contiguous
 * per-user indices, whole-batch rollback, lost updates counted and retried, two processes sharing
 * users, savepoints; the one-statement append on remembered trees (continuation, stale users,
 * rollback).
 */
import { rootFromLeafHashes } from "@verifiable-memory/merkle-log";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  appendMemories,
  appendMemoriesForUsers,
  appendMemoriesToKnownTrees,
  createDatabase,
  getTree,
  memories,
  type SavedTree,
  TreeCorruptError,
  TreeSaveConflictError,
  treeSaveConflicts,
  type UserAppend,
} from "../src/index.js";
import { createTestDatabase, type TestDatabase } from "../src/testing/index.js";
import { makeUser, newMemory } from "./_fixtures.js";
import { bumpVersion, expectConsistentLog, snapshot } from "./_logs.js";

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase({ max: 8 });
});
afterAll(async () => {
  await t.close();
});

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
      const rows = await expectConsistentLog(t, user.id, results[k]?.size ?? -1);
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
      const rows = await expectConsistentLog(t, user.id, ids.length);
      expect(rows.map((r) => r.id)).toEqual(ids); // each id at the index it was told
    }
  });

  it("a failure injected before the commit rolls back every user's part", async () => {
    const [a, b] = await Promise.all([makeUser(t.db), makeUser(t.db)]);
    if (!a || !b) {
      throw new Error("users missing");
    }
    await appendMemories(t.db, a.id, [newMemory("a-kept")]);
    const before = await snapshot(t, [a.id, b.id]);
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
    expect(await snapshot(t, [a.id, b.id])).toEqual(before);
  });

  it("a failing statement of one user's part (duplicate id) rolls back the other users' parts", async () => {
    const [a, b] = await Promise.all([makeUser(t.db), makeUser(t.db)]);
    if (!a || !b) {
      throw new Error("users missing");
    }
    const existing = newMemory("exists");
    await appendMemories(t.db, b.id, [existing]);
    const before = await snapshot(t, [a.id, b.id]);
    const attempt = appendMemoriesForUsers(t.db, [
      { userId: a.id, items: [newMemory("a0"), newMemory("a1")] },
      { userId: b.id, items: [{ ...newMemory("dup"), id: existing.id }] },
    ]);
    await expect(attempt).rejects.toSatisfy((error: unknown) => {
      const cause = (error as { cause?: { code?: string } }).cause;
      return cause?.code === "23505";
    });
    expect(await snapshot(t, [a.id, b.id])).toEqual(before);
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
    const before = await snapshot(t, [a.id, b.id]);
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
    expect(await snapshot(t, [a.id, b.id])).toEqual(before); // a's saved tree rolled back too

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
    await expectConsistentLog(t, a.id, 2);
    await expectConsistentLog(t, b.id, 3);
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
        const rows = await expectConsistentLog(t, user.id, byIndex.size);
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
    expect(await snapshot(t, [a.id, b.id])).toEqual([
      { leaves: [], nodes: 0, tree: null },
      { leaves: [], nodes: 0, tree: null },
    ]);
    await t.db.transaction(async (tx) => {
      await appendMemoriesForUsers(tx, batch());
    });
    await expectConsistentLog(t, a.id, 1);
    await expectConsistentLog(t, b.id, 2);
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
    await expectConsistentLog(t, a.id, 11);
    await expectConsistentLog(t, b.id, 7);
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
    const before = await snapshot(t, [a.id]);
    const results = await appendMemoriesToKnownTrees(
      t.db,
      first.map((r) => ({ userId: r.userId, items: [newMemory("late")], tree: r.tree })),
    );
    expect(results[0]).toEqual({ userId: a.id, stale: true });
    expect(results[1]).toMatchObject({ userId: b.id, size: 2, items: [{ leafIndex: 1 }] });
    expect(await snapshot(t, [a.id])).toEqual(before);
    expect(treeSaveConflicts.value).toBe(conflictsBefore + 1);
    await expectConsistentLog(t, a.id, 2);
    await expectConsistentLog(t, b.id, 2);
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
    const before = await snapshot(t, [a.id, b.id]);
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
    expect(await snapshot(t, [a.id, b.id])).toEqual(before);
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
    await expectConsistentLog(t, user.id, 1);
  });
});
