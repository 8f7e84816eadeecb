import { createHash } from "node:crypto";
import { treeSaveConflicts } from "@svc/db-schema";
import { fromHex, rootFromLeafHashes, toHex } from "@svc/merkle-log";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AppendQueue } from "../src/services/append-queue.js";
import {
  call,
  appendItem as memory,
  newUser,
  startTestApp,
  type TestApp,
  type TestUser,
} from "./helpers.js";

let t: TestApp;
let user: TestUser;

beforeAll(async () => {
  t = await startTestApp();
  user = await newUser(t.url);
});
afterAll(async () => {
  await t.close();
});

async function persistedRoot(userId = user.userId): Promise<{ size: number; root: string }> {
  const [row] = await t.sql<{ size: string; root: Buffer }[]>`
    select size, root from trees where user_id = ${userId}`;
  return { size: Number(row?.size), root: Buffer.from(row?.root ?? []).toString("hex") };
}

/**
 * The Merkle Tree Hash of RFC 9162 §2.1.1, recomputed in full from the leaf hashes with
 * node:crypto, independently of @svc/merkle-log: MTH(D[n]) = SHA-256(0x01 ‖ MTH(D[0:k]) ‖
 * MTH(D[k:n])) with k the largest power of two below n; a single leaf is its leaf hash.
 */
function fullRoot(leaves: readonly Buffer[], from = 0, to = leaves.length): Buffer {
  const n = to - from;
  if (n === 0) {
    return createHash("sha256").digest();
  }
  if (n === 1) {
    return leaves[from] as Buffer;
  }
  let k = 1;
  while (k * 2 < n) {
    k *= 2;
  }
  return createHash("sha256")
    .update(NODE_PREFIX)
    .update(fullRoot(leaves, from, from + k))
    .update(fullRoot(leaves, from + k, to))
    .digest();
}
const NODE_PREFIX = Buffer.of(0x01);

describe("write path", () => {
  it("keeps the persisted root equal to the full recomputation after every write, up to 2 000 writes", async () => {
    // The leaf list is kept from the write answers (leafHash at leafIndex); after EVERY write the
    // persisted tree (size and root, read from the database) is compared with an O(n) full
    // recomputation over all leaves so far.
    const leaves: Buffer[] = [];
    const write = async (i: number) => {
      const res = await call<{ leafIndex: number; leafHash: string }>(`${t.url}/memories`, {
        headers: user.headers,
        body: { content: `write ${i}`, metadata: { i } },
      });
      expect(res.status).toBe(201);
      expect(leaves[res.body.leafIndex]).toBeUndefined(); // no index handed out twice
      leaves[res.body.leafIndex] = Buffer.from(res.body.leafHash, "hex");
      return res.body.leafIndex;
    };
    for (let i = 0; i < 2000; i++) {
      expect(await write(i)).toBe(i);
      const persisted = await persistedRoot();
      expect(persisted.size).toBe(i + 1);
      expect(persisted.root, `after write ${i + 1}`).toBe(fullRoot(leaves).toString("hex"));
    }
    expect(leaves.length).toBe(2000);
    // The independent recomputation agrees with @svc/merkle-log's.
    expect(fullRoot(leaves).toString("hex")).toBe(
      toHex(rootFromLeafHashes(leaves.map((l) => fromHex(l.toString("hex"))))),
    );

    // Group commit on top: concurrent writes share transactions; after each group the persisted
    // root is again the full recomputation over every leaf.
    for (let group = 0; group < 8; group++) {
      const base = leaves.length;
      const indices = await Promise.all(
        Array.from({ length: 25 }, (_, j) => write(2000 + group * 25 + j)),
      );
      expect(indices.sort((a, b) => a - b)).toEqual(Array.from({ length: 25 }, (_, j) => base + j));
      const persisted = await persistedRoot();
      expect(persisted.size).toBe(base + 25);
      expect(persisted.root).toBe(fullRoot(leaves).toString("hex"));
    }
    const stored = await t.sql<{ leaf_hash: Buffer }[]>`
      select leaf_hash from memories where user_id = ${user.userId} order by leaf_index`;
    expect(stored.map((r) => r.leaf_hash.toString("hex"))).toEqual(
      leaves.map((l) => l.toString("hex")),
    );
  }, 240_000); // 2 000 sequential HTTP writes and ~4M hashes: tens of seconds on a busy 2-core box
});

describe("cross-user group commit", () => {
  it("concurrent writes of many users: each user's leaf indices are 0..n-1, roots recomputed", async () => {
    const users = await Promise.all(Array.from({ length: 6 }, () => newUser(t.url)));
    const perUser = 15;
    const leaves = new Map(users.map((u) => [u.userId, [] as Buffer[]]));
    // All users' writes in flight at once, interleaved: batches mix users.
    await Promise.all(
      Array.from({ length: perUser }, (_, i) => i).flatMap((i) =>
        users.map(async (u) => {
          const res = await call<{ leafIndex: number; leafHash: string }>(`${t.url}/memories`, {
            headers: u.headers,
            body: { content: `user ${u.userId} write ${i}` },
          });
          expect(res.status).toBe(201);
          const list = leaves.get(u.userId) as Buffer[];
          expect(list[res.body.leafIndex]).toBeUndefined();
          list[res.body.leafIndex] = Buffer.from(res.body.leafHash, "hex");
        }),
      ),
    );
    for (const u of users) {
      const list = leaves.get(u.userId) as Buffer[];
      expect(Object.keys(list).map(Number)).toEqual(Array.from({ length: perUser }, (_, i) => i));
      const persisted = await persistedRoot(u.userId);
      expect(persisted.size).toBe(perUser);
      expect(persisted.root).toBe(fullRoot(list).toString("hex"));
      const stored = await t.sql<{ leaf_index: string; leaf_hash: Buffer }[]>`
        select leaf_index, leaf_hash from memories where user_id = ${u.userId} order by leaf_index`;
      expect(stored.map((r) => r.leaf_hash.toString("hex"))).toEqual(
        list.map((l) => l.toString("hex")),
      );
    }
  });

  it("AppendQueue: a failing batch rejects all of its callers and only them; order per user kept", async () => {
    const [a, b, c] = await Promise.all([newUser(t.url), newUser(t.url), newUser(t.url)]);
    if (!a || !b || !c) {
      throw new Error("users missing");
    }
    const queue = new AppendQueue(t.db);
    // Batch 1 starts at once with a's first append; the next three wait and form batch 2 together,
    // which fails as a whole (b's memory reuses a's id: a unique violation).
    const first = memory();
    const batch1 = queue.append(a.userId, first);
    const batch2 = [
      queue.append(c.userId, memory()),
      queue.append(b.userId, memory(first.id)),
      queue.append(c.userId, memory()),
    ];
    expect(await batch1).toEqual({ leafIndex: 0, treeSize: 1 });
    const settled = await Promise.allSettled(batch2);
    expect(settled.map((s) => s.status)).toEqual(["rejected", "rejected", "rejected"]);
    // Nothing of batch 2 was written, for any user; the next batch is unaffected.
    const [count] = await t.sql<{ n: string }[]>`
      select count(*) as n from memories where user_id in (${b.userId}, ${c.userId})`;
    expect(Number(count?.n)).toBe(0);
    const later = await Promise.all([
      queue.append(c.userId, memory()),
      queue.append(a.userId, memory()),
      queue.append(c.userId, memory()),
      queue.append(c.userId, memory()),
      queue.append(b.userId, memory()),
    ]);
    expect(later.map((l) => l.leafIndex)).toEqual([0, 1, 1, 2, 0]);
  });

  it("AppendQueue: later batches continue from the remembered tree; another writer's append is caught and retried", async () => {
    const u = await newUser(t.url);
    const queueA = new AppendQueue(t.db);
    const queueB = new AppendQueue(t.db); // a second core-api process on the same database
    const leaves: Buffer[] = [];
    const append = async (queue: AppendQueue) => {
      const m = memory();
      const leaf = await queue.append(u.userId, m);
      leaves[leaf.leafIndex] = Buffer.from(m.leafHash);
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
    expect(await persistedRoot(u.userId)).toEqual({
      size: 8,
      root: fullRoot(leaves).toString("hex"),
    });
  });

  it("AppendQueue: a failing one-statement batch rejects its callers; the user's next append is read afresh", async () => {
    const u = await newUser(t.url);
    const queue = new AppendQueue(t.db);
    const first = memory();
    expect(await queue.append(u.userId, first)).toEqual({ leafIndex: 0, treeSize: 1 });
    const failed = await Promise.allSettled([
      queue.append(u.userId, memory()),
      queue.append(u.userId, memory(first.id)),
    ]);
    expect(failed.map((r) => r.status)).toEqual(["rejected", "rejected"]);
    expect(queue.knownTrees).toBe(0);
    expect(await queue.append(u.userId, memory())).toEqual({ leafIndex: 1, treeSize: 2 });
    expect(queue.knownTrees).toBe(1);
  });

  it("AppendQueue: maxKnownTrees bounds the remembered trees without changing any log", async () => {
    const users = await Promise.all([newUser(t.url), newUser(t.url), newUser(t.url)]);
    const queue = new AppendQueue(t.db, { maxKnownTrees: 2 });
    for (let round = 0; round < 4; round++) {
      for (const u of users) {
        expect(await queue.append(u.userId, memory())).toEqual({
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
    const [a, b] = await Promise.all([newUser(t.url), newUser(t.url)]);
    if (!a || !b) {
      throw new Error("users missing");
    }
    const queue = new AppendQueue(t.db, { maxBatch: 3 });
    // The first append goes alone; the 7 waiting ones go 3, 3, 1 (treeSize tells the batch).
    const owners = [a, a, b, a, b, a, a, b];
    const leaves = await Promise.all(owners.map((u) => queue.append(u.userId, memory())));
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
    const u = await newUser(t.url);
    const queue = new AppendQueue(t.db, { maxHoldMs: 60_000 });
    const announced = queue.expect();
    expect(queue.expectedAppends).toBe(1);
    const first = queue.append(u.userId, memory());
    // Without the hold the first append would leave alone (treeSize 1).
    await new Promise((resolve) => setTimeout(resolve, 50));
    const second = announced.append(u.userId, memory());
    expect(queue.expectedAppends).toBe(0);
    expect(await Promise.all([first, second])).toEqual([
      { leafIndex: 0, treeSize: 2 },
      { leafIndex: 1, treeSize: 2 },
    ]);
    expect(() => announced.append(u.userId, memory())).toThrow(/at most once/);
  });

  it("a cancelled announcement releases the hold; a lone writer never waits", async () => {
    const u = await newUser(t.url);
    const queue = new AppendQueue(t.db, { maxHoldMs: 60_000 });
    const announced = queue.expect();
    const first = queue.append(u.userId, memory());
    announced.cancel();
    announced.cancel();
    expect(await first).toEqual({ leafIndex: 0, treeSize: 1 });
    expect(await queue.expect().append(u.userId, memory())).toEqual({ leafIndex: 1, treeSize: 2 });
    expect(queue.expectedAppends).toBe(0);
  });

  it("the hold is bounded by maxHoldMs when an announced append never comes", async () => {
    const u = await newUser(t.url);
    const queue = new AppendQueue(t.db, { maxHoldMs: 20 });
    queue.expect();
    expect(await queue.append(u.userId, memory())).toEqual({ leafIndex: 0, treeSize: 1 });
    expect(queue.expectedAppends).toBe(1);
    expect(() => new AppendQueue(t.db, { maxHoldMs: -1 })).toThrow(RangeError);
    expect(() => new AppendQueue(t.db, { maxHoldMs: Number.NaN })).toThrow(RangeError);
  });

  it("an announcement made while a batch holds is not waited for by that batch", async () => {
    const u = await newUser(t.url);
    const queue = new AppendQueue(t.db, { maxHoldMs: 60_000 });
    const early = queue.expect();
    const first = queue.append(u.userId, memory());
    const late = queue.expect();
    early.cancel();
    expect(await first).toEqual({ leafIndex: 0, treeSize: 1 });
    late.cancel();
  });
});
