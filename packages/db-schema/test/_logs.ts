/**
 * Assertions over users' logs for the append tests: the leaves, the log's consistency (leaf
 * indices 0..n-1, the persisted tree equal to a full recomputation, checkTree clean), snapshots
 * of what a batch could write, and the lost update of a writer without the lock.
 * @module
 */
import { rootFromLeafHashes } from "@verifiable-memory/merkle-log";
import { eq, sql } from "drizzle-orm";
import { expect } from "vitest";
import { checkTree, getTree, memories, type Transaction, trees } from "../src/index.js";
import type { TestDatabase } from "../src/testing/index.js";

/** Every leaf of `userId` in leaf order: index, id and hash. */
export async function leavesOf(t: TestDatabase, userId: string) {
  return t.db
    .select({ leafIndex: memories.leafIndex, id: memories.id, leafHash: memories.leafHash })
    .from(memories)
    .where(eq(memories.userId, userId))
    .orderBy(memories.leafIndex);
}

/** Asserts the user's leaves are exactly 0..n-1 and the persisted tree is their full recomputation. */
export async function expectConsistentLog(t: TestDatabase, userId: string, n: number) {
  const rows = await leavesOf(t, userId);
  expect(rows.map((r) => r.leafIndex)).toEqual(Array.from({ length: n }, (_, i) => i));
  const tree = await getTree(t.db, userId);
  expect(tree?.size).toBe(n);
  expect(tree?.root).toEqual(rootFromLeafHashes(rows.map((r) => r.leafHash)));
  const check = await checkTree(t.db, userId);
  expect(check.reasons).toEqual([]);
  return rows;
}

/** A snapshot of everything a batch could write for these users (memories, nodes, trees). */
export async function snapshot(t: TestDatabase, userIds: readonly string[]) {
  return Promise.all(
    userIds.map(async (userId) => {
      const nodes = await t.sql<{ n: string }[]>`
        select count(*) as n from merkle_nodes where user_id = ${userId}`;
      return {
        leaves: (await leavesOf(t, userId)).map((r) => r.id),
        nodes: Number(nodes[0]?.n),
        tree: await getTree(t.db, userId),
      };
    }),
  );
}

/** Bumps the user's tree version inside `tx`: the lost update a writer without the lock makes. */
export async function bumpVersion(tx: Transaction, userId: string) {
  await tx
    .update(trees)
    .set({ version: sql`${trees.version} + 1` })
    .where(eq(trees.userId, userId));
}
