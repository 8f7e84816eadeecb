/**
 * The group-commit append queue against real PostgreSQL: batch failures and their callers, the
 * remembered trees and another writer's appends (compare-and-swap, retried), the batch bound and
 * announced appends (`expect` / `maxHoldMs`).
 * @module
 */
import { randomBytes } from "node:crypto";
import { treeSaveConflicts } from "@verifiable-memory/db-schema";
import { createTestDatabase, type TestDatabase } from "@verifiable-memory/db-schema/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AppendQueue } from "../src/index.js";
import {
  createTestOwner,
  fullRoot,
  appendItem as memory,
  persistedRoot,
} from "../src/testing/index.js";

let t: TestDatabase;
const masterKey = randomBytes(32);

beforeAll(async () => {
  t = await createTestDatabase();
});
afterAll(async () => {
  await t.close();
});

/** A fresh user's id. */
async function newUserId(): Promise<string> {
  return (await createTestOwner(t.db, masterKey)).owner.userId;
}

describe("cross-user group commit", () => {
  it("AppendQueue: a failing batch rejects all of its callers and only them; order per user kept", async () => {
    const [a, b, c] = await Promise.all([newUserId(), newUserId(), newUserId()]);
    const queue = new AppendQueue(t.db);
    // Batch 1 starts at once with a's first append; the next three wait and form batch 2 together,
    // which fails as a whole (b's memory reuses a's id: a unique violation).
    const first = memory();
    const batch1 = queue.append(a, first);
    const batch2 = [
      queue.append(c, memory()),
      queue.append(b, memory(first.id)),
      queue.append(c, memory()),
    ];
    expect(await batch1).toEqual({ leafIndex: 0, treeSize: 1 });
    const settled = await Promise.allSettled(batch2);
    expect(settled.map((s) => s.status)).toEqual(["rejected", "rejected", "rejected"]);
    // Nothing of batch 2 was written, for any user; the next batch is unaffected.
    const [count] = await t.sql<{ n: string }[]>`
      select count(*) as n from memories where user_id in (${b}, ${c})`;
    expect(Number(count?.n)).toBe(0);
    const later = await Promise.all([
      queue.append(c, memory()),
      queue.append(a, memory()),
      queue.append(c, memory()),
      queue.append(c, memory()),
      queue.append(b, memory()),
    ]);
    expect(later.map((l) => l.leafIndex)).toEqual([0, 1, 1, 2, 0]);
  });

  it("AppendQueue.appendAll: never split between batches, all or nothing, contiguous", async () => {
    const [u, v] = await Promise.all([newUserId(), newUserId()]);
    const queue = new AppendQueue(t.db, { maxBatch: 4 });
    await expect(queue.appendAll(u, [])).rejects.toThrow(RangeError);
    // Batch 1 starts at once with u's single; then a unit of 3 for u (fits with v's single: 4),
    // a unit of 6 (over maxBatch: written alone) and a unit that fails (a duplicate id).
    const first = memory();
    const single = queue.append(u, first);
    const three = queue.appendAll(u, [memory(), memory(), memory()]);
    const other = queue.append(v, memory());
    const six = queue.appendAll(
      u,
      Array.from({ length: 6 }, () => memory()),
    );
    const failing = queue.appendAll(v, [memory(), memory(first.id)]);
    expect(await single).toEqual({ leafIndex: 0, treeSize: 1 });
    expect(await three).toEqual([1, 2, 3].map((leafIndex) => ({ leafIndex, treeSize: 4 })));
    expect(await other).toEqual({ leafIndex: 0, treeSize: 1 });
    expect((await six).map((l) => l.leafIndex)).toEqual([4, 5, 6, 7, 8, 9]);
    expect(new Set((await six).map((l) => l.treeSize))).toEqual(new Set([10]));
    await expect(failing).rejects.toThrow();
    expect(await queue.append(u, memory())).toMatchObject({ leafIndex: 10 });
    expect((await persistedRoot(t.db, v)).size).toBe(1);
  });

  it("AppendQueue: later batches continue from the remembered tree; another writer's append is caught and retried", async () => {
    const u = await newUserId();
    const queueA = new AppendQueue(t.db);
    const queueB = new AppendQueue(t.db); // a second process on the same database
    const leaves: Uint8Array[] = [];
    const append = async (queue: AppendQueue) => {
      const m = memory();
      const leaf = await queue.append(u, m);
      leaves[leaf.leafIndex] = m.leafHash;
      return leaf.leafIndex;
    };
    const conflictsBefore = treeSaveConflicts.value;
    expect([await append(queueA), await append(queueA), await append(queueA)]).toEqual([0, 1, 2]);
    expect(queueA.knownTrees).toBe(1);
    expect(treeSaveConflicts.value).toBe(conflictsBefore);
    expect([await append(queueB), await append(queueB)]).toEqual([3, 4]);
    // A's remembered tree is stale now: its statement writes nothing, the append is requeued,
    // read afresh under the lock, and lands after B's.
    expect(await Promise.all([append(queueA), append(queueA)])).toEqual([5, 6]);
    expect(treeSaveConflicts.value).toBe(conflictsBefore + 1);
    expect(await append(queueA)).toBe(7);
    expect(treeSaveConflicts.value).toBe(conflictsBefore + 1);
    expect(await persistedRoot(t.db, u)).toEqual({ size: 8, root: fullRoot(leaves) });
  });

  it("AppendQueue: a failing one-statement batch rejects its callers; the user's next append is read afresh", async () => {
    const u = await newUserId();
    const queue = new AppendQueue(t.db);
    const first = memory();
    expect(await queue.append(u, first)).toEqual({ leafIndex: 0, treeSize: 1 });
    const failed = await Promise.allSettled([
      queue.append(u, memory()),
      queue.append(u, memory(first.id)),
    ]);
    expect(failed.map((r) => r.status)).toEqual(["rejected", "rejected"]);
    expect(queue.knownTrees).toBe(0);
    expect(await queue.append(u, memory())).toEqual({ leafIndex: 1, treeSize: 2 });
    expect(queue.knownTrees).toBe(1);
  });

  it("AppendQueue: maxKnownTrees bounds the remembered trees without changing any log", async () => {
    const users = await Promise.all([newUserId(), newUserId(), newUserId()]);
    const queue = new AppendQueue(t.db, { maxKnownTrees: 2 });
    for (let round = 0; round < 4; round++) {
      for (const u of users) {
        expect(await queue.append(u, memory())).toEqual({
          leafIndex: round,
          treeSize: round + 1,
        });
        expect(queue.knownTrees).toBeLessThanOrEqual(2);
      }
    }
    expect(queue.knownTrees).toBe(2);
    expect(() => new AppendQueue(t.db, { maxKnownTrees: 0 })).toThrow(RangeError);
  });

  it("AppendQueue: batches are bounded by maxBatch and keep arrival order", async () => {
    const [a, b] = await Promise.all([newUserId(), newUserId()]);
    const queue = new AppendQueue(t.db, { maxBatch: 3 });
    // The first append goes alone; the 7 waiting ones go 3, 3, 1 (treeSize tells the batch).
    const owners = [a, a, b, a, b, a, a, b];
    const leaves = await Promise.all(owners.map((u) => queue.append(u, memory())));
    expect(leaves).toEqual([
      { leafIndex: 0, treeSize: 1 }, // batch 1: a
      { leafIndex: 1, treeSize: 3 }, // batch 2: a, b, a
      { leafIndex: 0, treeSize: 1 },
      { leafIndex: 2, treeSize: 3 },
      { leafIndex: 1, treeSize: 2 }, // batch 3: b, a, a
      { leafIndex: 3, treeSize: 5 },
      { leafIndex: 4, treeSize: 5 },
      { leafIndex: 2, treeSize: 3 }, // batch 4: b
    ]);
    expect(() => new AppendQueue(t.db, { maxBatch: 0 })).toThrow(RangeError);
  });
});

describe("announced appends (AppendQueue expect / maxHoldMs)", () => {
  it("a batch holds for an announced append and writes it in the same statement", async () => {
    const u = await newUserId();
    const queue = new AppendQueue(t.db, { maxHoldMs: 60_000 });
    const announced = queue.expect();
    expect(queue.expectedAppends).toBe(1);
    const first = queue.append(u, memory());
    // Without the hold the first append would leave alone (treeSize 1).
    await new Promise((resolve) => setTimeout(resolve, 50));
    const second = announced.append(u, memory());
    expect(queue.expectedAppends).toBe(0);
    expect(await Promise.all([first, second])).toEqual([
      { leafIndex: 0, treeSize: 2 },
      { leafIndex: 1, treeSize: 2 },
    ]);
    expect(() => announced.append(u, memory())).toThrow(/at most once/);
  });

  it("a cancelled announcement releases the hold; a lone writer never waits", async () => {
    const u = await newUserId();
    const queue = new AppendQueue(t.db, { maxHoldMs: 60_000 });
    const announced = queue.expect();
    const first = queue.append(u, memory());
    announced.cancel();
    announced.cancel();
    expect(await first).toEqual({ leafIndex: 0, treeSize: 1 });
    expect(await queue.expect().append(u, memory())).toEqual({ leafIndex: 1, treeSize: 2 });
    expect(queue.expectedAppends).toBe(0);
  });

  it("the hold is bounded by maxHoldMs when an announced append never comes", async () => {
    const u = await newUserId();
    const queue = new AppendQueue(t.db, { maxHoldMs: 20 });
    queue.expect();
    expect(await queue.append(u, memory())).toEqual({ leafIndex: 0, treeSize: 1 });
    expect(queue.expectedAppends).toBe(1);
    expect(() => new AppendQueue(t.db, { maxHoldMs: -1 })).toThrow(RangeError);
    expect(() => new AppendQueue(t.db, { maxHoldMs: Number.NaN })).toThrow(RangeError);
  });

  it("an announcement made while a batch holds is not waited for by that batch", async () => {
    const u = await newUserId();
    const queue = new AppendQueue(t.db, { maxHoldMs: 60_000 });
    const early = queue.expect();
    const first = queue.append(u, memory());
    const late = queue.expect();
    early.cancel();
    expect(await first).toEqual({ leafIndex: 0, treeSize: 1 });
    late.cancel();
  });
});
