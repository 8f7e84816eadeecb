/**
 * The anchor service's tables: pending-seal queries across users, commit batch transitions and
 * counts, anchored checkpoints, the proof route's one-statement read (memory, latest checkpoint
 * and inclusion path), and the stake lot cache.
 */
import { randomBytes } from "node:crypto";
import {
  type Hash,
  inclusionProof,
  MissingNodeError,
  rootFromLeafHashes,
  verifyInclusion,
} from "@verifiable-memory/merkle-log";
import { and, eq } from "drizzle-orm";
import { drizzle } from "drizzle-orm/postgres-js";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  appendMemories,
  countBatchesByStatus,
  deleteMemory,
  getAnchoredCheckpointBySize,
  getCommitBatch,
  getMemory,
  getMemoryAtLatestCheckpoint,
  getOldestPendingCreatedAt,
  insertAnchoredCheckpoint,
  insertSubmittedBatch,
  latestAnchoredCheckpoint,
  listStakeLots,
  listStuckBatches,
  listUsersWithPendingLeaves,
  type MemoryAtCheckpoint,
  markAnchored,
  markBatchConfirmed,
  markBatchFailed,
  merkleNodes,
  replaceStakeLots,
} from "../src/index.js";
import * as schema from "../src/schema/index.js";
import { createTestDatabase, type TestDatabase } from "../src/testing/index.js";
import { makeUser, newMemory } from "./_fixtures.js";

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase({ max: 4 });
});
afterAll(async () => {
  await t.close();
});

describe("pending seal queries", () => {
  it("lists users with unanchored leaves, oldest first, until they are anchored", async () => {
    const a = await makeUser(t.db);
    const b = await makeUser(t.db);
    const old = new Date("2026-01-01T00:00:00.000Z");
    await appendMemories(t.db, a.id, [newMemory("a0"), newMemory("a1")]);
    await appendMemories(t.db, b.id, [{ ...newMemory("b0"), createdAt: old }]);
    const pending = await listUsersWithPendingLeaves(t.db);
    expect(pending).toEqual([
      { userId: b.id, ownerPubkey: b.ownerPubkey, count: 1, oldestCreatedAt: old },
      expect.objectContaining({ userId: a.id, ownerPubkey: a.ownerPubkey, count: 2 }),
    ]);
    expect(await getOldestPendingCreatedAt(t.db)).toEqual(old);
    await markAnchored(t.db, b.id, 1);
    await markAnchored(t.db, a.id, 2);
    expect(await listUsersWithPendingLeaves(t.db)).toEqual([]);
    expect(await getOldestPendingCreatedAt(t.db)).toBeNull();
  });
});

describe("commit batches and checkpoints", () => {
  it("moves batches out of submitted once, counts them and finds stuck ones", async () => {
    const user = await makeUser(t.db);
    const root = randomBytes(32);
    const before = await countBatchesByStatus(t.db);
    const b1 = await insertSubmittedBatch(t.db, {
      userId: user.id,
      treeSize: 3,
      root,
      expectedNonce: 0,
    });
    const b2 = await insertSubmittedBatch(t.db, {
      userId: user.id,
      treeSize: 4,
      root,
      expectedNonce: 0,
    });
    const b3 = await insertSubmittedBatch(t.db, {
      userId: user.id,
      treeSize: 5,
      root,
      expectedNonce: 1,
    });
    expect(b1).toMatchObject({
      status: "submitted",
      treeSize: 3,
      expectedNonce: 0,
      signature: null,
    });
    expect(await markBatchConfirmed(t.db, user.id, b1.id, "sig1")).toBe(true);
    expect(await markBatchFailed(t.db, user.id, b1.id, "too late")).toBe(false);
    expect(await markBatchFailed(t.db, user.id, b2.id, "nonce race lost")).toBe(true);
    expect(await getCommitBatch(t.db, user.id, b1.id)).toMatchObject({
      status: "confirmed",
      signature: "sig1",
    });
    expect(await getCommitBatch(t.db, user.id, b2.id)).toMatchObject({
      status: "failed",
      error: "nonce race lost",
    });
    const after = await countBatchesByStatus(t.db);
    expect(after).toEqual({
      submitted: before.submitted + 1,
      confirmed: before.confirmed + 1,
      failed: before.failed + 1,
    });
    const stuck = await listStuckBatches(t.db, new Date(Date.now() + 1000));
    expect(stuck.map((b) => b.id)).toContain(b3.id);
    expect(await listStuckBatches(t.db, new Date(Date.now() - 60_000))).toEqual([]);
  });

  it("records checkpoints once per size and returns the latest", async () => {
    const user = await makeUser(t.db);
    expect(await latestAnchoredCheckpoint(t.db, user.id)).toBeNull();
    const root4 = randomBytes(32);
    const cp4 = await insertAnchoredCheckpoint(t.db, {
      userId: user.id,
      treeSize: 4,
      root: root4,
      nonce: 1,
      signature: "s4",
      slot: 100,
    });
    const again = await insertAnchoredCheckpoint(t.db, {
      userId: user.id,
      treeSize: 4,
      root: randomBytes(32),
      nonce: 9,
      signature: "other",
    });
    expect(again).toEqual(cp4);
    await insertAnchoredCheckpoint(t.db, {
      userId: user.id,
      treeSize: 9,
      root: randomBytes(32),
      nonce: 2,
      signature: "s9",
    });
    expect((await latestAnchoredCheckpoint(t.db, user.id))?.treeSize).toBe(9);
    const bySize = await getAnchoredCheckpointBySize(t.db, user.id, 4);
    expect(bySize).toMatchObject({
      root: new Uint8Array(root4),
      nonce: 1,
      signature: "s4",
      slot: 100,
    });
  });
});

/** The read's node source; fails the test when the memory was not found. */
function nodesOf(read: MemoryAtCheckpoint | null): MemoryAtCheckpoint["nodes"] {
  if (!read) {
    throw new Error("memory not found");
  }
  return read.nodes;
}

describe("getMemoryAtLatestCheckpoint", () => {
  it("reads the row, the latest checkpoint and the whole inclusion path in one statement", async () => {
    const user = await makeUser(t.db);
    const items = Array.from({ length: 37 }, (_, i) => newMemory(`leaf${i}`, { i }));
    for (let start = 0, step = 1; start < items.length; start += step, step = (step % 5) + 1) {
      await appendMemories(t.db, user.id, items.slice(start, start + step));
    }
    const leaves = items.map((m) => m.leafHash);
    let queries = 0;
    const client = postgres(t.url, { max: 1, debug: () => (queries += 1), onnotice: () => {} });
    const counted = drizzle({ client, schema, casing: "snake_case" });
    try {
      await client`select 1`;
      for (const size of [1, 2, 3, 4, 5, 7, 8, 9, 16, 17, 21, 31, 32, 36, 37]) {
        const root = rootFromLeafHashes(leaves.slice(0, size));
        await insertAnchoredCheckpoint(t.db, {
          userId: user.id,
          treeSize: size,
          root,
          nonce: size,
          signature: `s${size}`,
          slot: size === 5 ? 5 : null,
        });
        const checkpoint = await getAnchoredCheckpointBySize(t.db, user.id, size);
        for (const [index, item] of items.entries()) {
          queries = 0;
          const read = await getMemoryAtLatestCheckpoint(counted, user.id, item.id);
          expect(read?.memory).toEqual(await getMemory(t.db, user.id, item.id));
          expect(read?.checkpoint).toEqual(checkpoint);
          if (index < size) {
            const proof = await inclusionProof(index, size, nodesOf(read));
            verifyInclusion(index, size, leaves[index] as Hash, proof, root);
          }
          // The path's nodes came with the row: no second statement.
          expect(queries, `leaf ${index} at size ${size}`).toBe(1);
        }
      }
    } finally {
      await client.end();
    }
  });

  it("answers null for unknown, deleted and other users' memories; a null checkpoint before anchoring", async () => {
    const a = await makeUser(t.db);
    const b = await makeUser(t.db);
    const [kept, gone] = [newMemory("kept"), newMemory("gone")];
    await appendMemories(t.db, a.id, [kept, gone]);
    const read = await getMemoryAtLatestCheckpoint(t.db, a.id, kept.id);
    expect(read?.memory).toEqual(await getMemory(t.db, a.id, kept.id));
    expect(read?.checkpoint).toBeNull();
    await deleteMemory(t.db, a.id, gone.id);
    expect(await getMemoryAtLatestCheckpoint(t.db, a.id, gone.id)).toBeNull();
    expect(await getMemoryAtLatestCheckpoint(t.db, b.id, kept.id)).toBeNull();
    expect(await getMemoryAtLatestCheckpoint(t.db, a.id, "no-such-id")).toBeNull();
    // Another user's checkpoint is never this user's.
    await insertAnchoredCheckpoint(t.db, {
      userId: b.id,
      treeSize: 1,
      root: randomBytes(32),
      nonce: 1,
      signature: "b1",
    });
    expect((await getMemoryAtLatestCheckpoint(t.db, a.id, kept.id))?.checkpoint).toBeNull();
  });

  it("rejects with MissingNodeError when the node store lacks a path node", async () => {
    const user = await makeUser(t.db);
    const items = Array.from({ length: 6 }, (_, i) => newMemory(`leaf${i}`));
    await appendMemories(t.db, user.id, items);
    const root = rootFromLeafHashes(items.map((m) => m.leafHash));
    await insertAnchoredCheckpoint(t.db, {
      userId: user.id,
      treeSize: 6,
      root,
      nonce: 1,
      signature: "s",
    });
    await t.db
      .delete(merkleNodes)
      .where(and(eq(merkleNodes.userId, user.id), eq(merkleNodes.level, 1)));
    const read = await getMemoryAtLatestCheckpoint(t.db, user.id, items[0]?.id ?? "");
    await expect(inclusionProof(0, 6, nodesOf(read))).rejects.toBeInstanceOf(MissingNodeError);
  });
});

describe("stake lots", () => {
  it("replaces the cached lots in vault order and refuses a non-positive amount", async () => {
    const user = await makeUser(t.db);
    const big = 18_000_000_000_000_000n;
    const early = new Date("2026-02-01T00:00:00.000Z");
    const late = new Date("2026-03-01T00:00:00.000Z");
    await replaceStakeLots(
      t.db,
      user.id,
      [
        { amountLamports: big, unlockAt: late },
        { amountLamports: 5n, unlockAt: early },
      ],
      new Date(),
    );
    let lots = await listStakeLots(t.db, user.id);
    expect(lots.map((l) => [l.position, l.amountLamports, l.unlockAt])).toEqual([
      [0, big, late],
      [1, 5n, early],
    ]);
    await replaceStakeLots(t.db, user.id, [{ amountLamports: 7n, unlockAt: early }], new Date());
    lots = await listStakeLots(t.db, user.id);
    expect(lots.map((l) => [l.position, l.amountLamports])).toEqual([[0, 7n]]);
    await expect(
      replaceStakeLots(t.db, user.id, [{ amountLamports: 0n, unlockAt: early }], new Date()),
    ).rejects.toBeInstanceOf(RangeError);
    expect((await listStakeLots(t.db, user.id)).map((l) => l.amountLamports)).toEqual([7n]);
  });
});
