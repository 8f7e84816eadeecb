/**
 * The node-hash store and tree repair: proofs built through nodeSource (one query per batch)
 * verify against roots from a full recomputation; roots at past sizes; drift detection (root,
 * frontier, row, nodes) and repair by rebuildTree.
 */
import {
  consistencyProof,
  type Hash,
  inclusionProof,
  MissingNodeError,
  rootFromLeafHashes,
  verifyConsistency,
  verifyInclusion,
} from "@verifiable-memory/merkle-log";
import { and, eq, sql } from "drizzle-orm";
import { drizzle } from "drizzle-orm/postgres-js";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  appendMemories,
  checkTree,
  getTree,
  merkleNodes,
  nodeSource,
  rebuildTree,
  rootAtSize,
  TreeCorruptError,
  trees,
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

/** A user with `n` leaves appended in uneven batches; returns the leaf hashes in order. */
async function userWithLeaves(n: number): Promise<{ userId: string; leaves: Hash[] }> {
  const user = await makeUser(t.db);
  const items = Array.from({ length: n }, (_, i) => newMemory(`leaf${i}`));
  for (let start = 0, step = 1; start < n; start += step, step = (step % 4) + 1) {
    await appendMemories(t.db, user.id, items.slice(start, start + step));
  }
  return { userId: user.id, leaves: items.map((i) => i.leafHash) };
}

describe("nodeSource", () => {
  it("serves inclusion and consistency proofs that verify, one query per proof", async () => {
    const { userId, leaves } = await userWithLeaves(37);
    let queries = 0;
    const client = postgres(t.url, { max: 1, debug: () => (queries += 1), onnotice: () => {} });
    const counted = drizzle({ client, schema, casing: "snake_case" });
    try {
      // Connects first: postgres.js reads the server's array types once per connection.
      await client`select 1`;
      const source = nodeSource(counted, userId);
      for (const size of [1, 2, 5, 16, 17, 36, 37]) {
        const root = rootFromLeafHashes(leaves.slice(0, size));
        expect(await rootAtSize(t.db, userId, size)).toEqual(root);
        for (const index of new Set([0, Math.floor(size / 2), size - 1])) {
          queries = 0;
          const proof = await inclusionProof(index, size, source);
          expect(queries).toBe(size === 1 ? 0 : 1);
          verifyInclusion(index, size, leaves[index] as Hash, proof, root);
        }
      }
      const root37 = rootFromLeafHashes(leaves);
      for (const from of [1, 3, 8, 20]) {
        queries = 0;
        const proof = await consistencyProof(from, 37, source);
        expect(queries).toBe(1);
        verifyConsistency(from, 37, proof, rootFromLeafHashes(leaves.slice(0, from)), root37);
      }
    } finally {
      await client.end();
    }
  });

  it("stores about two nodes per leaf and rejects with MissingNodeError for an absent node", async () => {
    const { userId } = await userWithLeaves(8);
    const rows = await t.db.select().from(merkleNodes).where(eq(merkleNodes.userId, userId));
    expect(rows).toHaveLength(8 + 4 + 2 + 1);
    await expect(
      nodeSource(t.db, userId).getNodes([{ level: 0, index: 8 }]),
    ).rejects.toBeInstanceOf(MissingNodeError);
    expect(await rootAtSize(t.db, userId, 0)).toEqual(rootFromLeafHashes([]));
  });

  it("answers in the order asked, duplicates included, with fresh Uint8Arrays; refuses bad ids", async () => {
    const { userId, leaves } = await userWithLeaves(9);
    const source = nodeSource(t.db, userId);
    const ids = [
      { level: 0, index: 8 },
      { level: 0, index: 2 },
      { level: 0, index: 8 },
      { level: 3, index: 0 },
    ];
    const hashes = await source.getNodes(ids);
    expect(hashes.map((h) => h.constructor)).toEqual(ids.map(() => Uint8Array));
    expect(hashes.slice(0, 3)).toEqual([leaves[8], leaves[2], leaves[8]]);
    expect(hashes[3]).toEqual(rootFromLeafHashes(leaves.slice(0, 8)));
    expect(hashes[0]).not.toBe(hashes[2]);
    expect(await source.getNodes([])).toEqual([]);
    await expect(source.getNodes([{ level: 64, index: 0 }])).rejects.toBeInstanceOf(RangeError);
    await expect(source.getNodes([{ level: 0, index: -1 }])).rejects.toBeInstanceOf(RangeError);
    await expect(source.getNodes([{ level: 0, index: 0.5 }])).rejects.toBeInstanceOf(RangeError);
    const missing = await source
      .getNodes([
        { level: 0, index: 1 },
        { level: 1, index: 9 },
        { level: 0, index: 99 },
      ])
      .catch((error: unknown) => error);
    expect(missing).toBeInstanceOf(MissingNodeError);
    expect((missing as MissingNodeError).node).toEqual({ level: 1, index: 9 });
  });

  it("reads the same inside a transaction (no postgres.js client of its own there)", async () => {
    const { userId, leaves } = await userWithLeaves(13);
    const root = rootFromLeafHashes(leaves);
    await t.db.transaction(async (tx) => {
      for (const index of [0, 6, 12]) {
        const proof = await inclusionProof(index, 13, nodeSource(tx, userId));
        verifyInclusion(index, 13, leaves[index] as Hash, proof, root);
      }
      expect(await rootAtSize(tx, userId, 13)).toEqual(root);
      await expect(
        nodeSource(tx, userId).getNodes([{ level: 4, index: 0 }]),
      ).rejects.toBeInstanceOf(MissingNodeError);
    });
  });
});

describe("checkTree and rebuildTree", () => {
  it("reports no drift for an intact tree and for a user without leaves", async () => {
    const { userId, leaves } = await userWithLeaves(11);
    const check = await checkTree(t.db, userId);
    expect(check).toMatchObject({ drifted: false, reasons: [], size: 11, persistedSize: 11 });
    expect(check.recomputedRoot).toEqual(rootFromLeafHashes(leaves));
    expect(check.persistedRoot).toEqual(check.recomputedRoot);
    const empty = await makeUser(t.db);
    expect((await checkTree(t.db, empty.id)).drifted).toBe(false);
  });

  it("detects a wrong root and missing nodes, and rebuildTree repairs both", async () => {
    const { userId, leaves } = await userWithLeaves(13);
    const versionBefore = (await getTree(t.db, userId))?.version ?? -1;
    await t.db
      .update(trees)
      .set({ root: new Uint8Array(32) })
      .where(eq(trees.userId, userId));
    await t.db
      .delete(merkleNodes)
      .where(and(eq(merkleNodes.userId, userId), eq(merkleNodes.level, 1)));
    const drift = await checkTree(t.db, userId);
    expect(drift.drifted).toBe(true);
    expect(drift.persistedRoot).toEqual(new Uint8Array(32));
    expect(drift.reasons).toEqual(["root differs from the recomputation", "6 nodes missing"]);
    await expect(inclusionProof(0, 13, nodeSource(t.db, userId))).rejects.toBeInstanceOf(
      MissingNodeError,
    );
    const rebuilt = await rebuildTree(t.db, userId);
    expect(rebuilt.root).toEqual(rootFromLeafHashes(leaves));
    expect(rebuilt.size).toBe(13);
    expect(await checkTree(t.db, userId)).toMatchObject({ drifted: false });
    expect((await getTree(t.db, userId))?.version).toBe(versionBefore + 1);
    const proof = await inclusionProof(0, 13, nodeSource(t.db, userId));
    verifyInclusion(0, 13, leaves[0] as Hash, proof, rebuilt.root);
  });

  it("detects a missing tree row and a corrupt frontier; appends resume after a rebuild", async () => {
    const { userId, leaves } = await userWithLeaves(6);
    await t.db.delete(trees).where(eq(trees.userId, userId));
    expect((await checkTree(t.db, userId)).reasons).toEqual(["tree row missing"]);
    await rebuildTree(t.db, userId);
    await t.db
      .update(trees)
      .set({ frontier: new Uint8Array(32) })
      .where(eq(trees.userId, userId));
    expect((await checkTree(t.db, userId)).reasons).toEqual([
      "frontier differs from the recomputation",
    ]);
    const next = newMemory("after");
    await expect(appendMemories(t.db, userId, [next])).rejects.toBeInstanceOf(TreeCorruptError);
    await rebuildTree(t.db, userId);
    const appended = await appendMemories(t.db, userId, [next]);
    expect(appended.items[0]?.leafIndex).toBe(6);
    expect(appended.root).toEqual(rootFromLeafHashes([...leaves, next.leafHash]));
  });

  it("refuses to rebuild over a gap in the leaf indices", async () => {
    const { userId } = await userWithLeaves(4);
    await t.db.execute(
      sql`update memories set leaf_index = 9 where user_id = ${userId} and leaf_index = 3`,
    );
    await expect(rebuildTree(t.db, userId)).rejects.toBeInstanceOf(TreeCorruptError);
    await expect(checkTree(t.db, userId)).rejects.toBeInstanceOf(TreeCorruptError);
  });
});
