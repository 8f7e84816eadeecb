/**
 * Internal persistence of a user's incremental tree (spec §2 "Merkle tree"): locking and
 * restoring the `trees` row, the optimistic-concurrency save, and bulk writes to the node store.
 * Used by memories.ts (appends) and tree.ts (rebuild); not part of the package surface.
 * @module
 */
import { CompactRange, EMPTY_ROOT, type Hash, type StoredNode } from "@svc/merkle-log";
import { and, eq, sql } from "drizzle-orm";
import type { Executor } from "../client.js";
import { TreeCorruptError, TreeSaveConflictError, treeSaveConflicts } from "../errors.js";
import { merkleNodes } from "../schema/merkle-nodes.js";
import { trees } from "../schema/trees.js";

const HASH_SIZE = 32;
// Rows per multi-row INSERT into merkle_nodes (4 parameters each; PostgreSQL allows 65 535).
const NODE_CHUNK = 5000;

/** The tree state read under the row lock. */
export interface LockedTree {
  readonly size: number;
  readonly root: Hash;
  readonly frontier: Uint8Array;
  readonly version: number;
}

/**
 * Locks the user's `trees` row (SELECT … FOR UPDATE) for the rest of the transaction, creating
 * the empty tree first when the user has none (INSERT … ON CONFLICT DO NOTHING, so concurrent
 * first appends create it once). Must run inside a transaction.
 * @throws the PostgreSQL foreign-key violation (23503) when the user does not exist.
 */
export async function lockTree(tx: Executor, userId: string): Promise<LockedTree> {
  const select = () =>
    tx
      .select({
        size: trees.size,
        root: trees.root,
        frontier: trees.frontier,
        version: trees.version,
      })
      .from(trees)
      .where(eq(trees.userId, userId))
      .for("update");
  let rows = await select();
  if (rows.length === 0) {
    await tx
      .insert(trees)
      .values({ userId, size: 0, root: EMPTY_ROOT, frontier: new Uint8Array(0), version: 0 })
      .onConflictDoNothing({ target: trees.userId });
    rows = await select();
  }
  const row = rows[0];
  if (!row) {
    throw new Error(`tree row of user ${userId} missing right after its creation`);
  }
  return row;
}

/** Splits a stored frontier into its 32-byte hashes. */
export function splitFrontier(frontier: Uint8Array): Hash[] {
  const hashes: Hash[] = [];
  for (let offset = 0; offset < frontier.length; offset += HASH_SIZE) {
    hashes.push(frontier.slice(offset, offset + HASH_SIZE));
  }
  return hashes;
}

/** Concatenates CompactRange hashes into the stored frontier form. */
export function joinFrontier(hashes: readonly Hash[]): Uint8Array {
  const out = new Uint8Array(hashes.length * HASH_SIZE);
  hashes.forEach((h, i) => {
    out.set(h, i * HASH_SIZE);
  });
  return out;
}

/**
 * Restores the CompactRange of a stored tree.
 * @throws TreeCorruptError when the frontier does not fit the size (repair: rebuildTree).
 */
export function restoreRange(userId: string, tree: LockedTree): CompactRange {
  if (tree.frontier.length % HASH_SIZE !== 0) {
    throw new TreeCorruptError(userId, `frontier length ${tree.frontier.length} is not 32k`);
  }
  try {
    return CompactRange.fromState(tree.size, splitFrontier(tree.frontier));
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new TreeCorruptError(userId, reason);
  }
}

/**
 * Saves `range` as the user's tree if the row still has `expectedVersion`:
 * `UPDATE trees SET size, root, frontier, version = version + 1 WHERE user_id = $ AND
 * version = $expected`. Zero rows updated means another writer saved in between.
 * @returns the new version.
 * @throws TreeSaveConflictError (after incrementing `treeSaveConflicts`) on a version mismatch.
 */
export async function saveTree(
  tx: Executor,
  userId: string,
  expectedVersion: number,
  range: CompactRange,
): Promise<number> {
  const rows = await tx
    .update(trees)
    .set({
      size: range.size,
      root: range.root(),
      frontier: joinFrontier(range.hashes),
      version: sql`${trees.version} + 1`,
      updatedAt: sql`now()`,
    })
    .where(and(eq(trees.userId, userId), eq(trees.version, expectedVersion)))
    .returning({ version: trees.version });
  const row = rows[0];
  if (!row) {
    treeSaveConflicts.inc();
    throw new TreeSaveConflictError(userId, expectedVersion);
  }
  return row.version;
}

/** Inserts completed perfect subtrees of the user's tree into the node store, in chunks. */
export async function insertNodes(
  tx: Executor,
  userId: string,
  nodes: readonly StoredNode[],
): Promise<void> {
  for (let start = 0; start < nodes.length; start += NODE_CHUNK) {
    const chunk = nodes.slice(start, start + NODE_CHUNK);
    await tx
      .insert(merkleNodes)
      .values(chunk.map((n) => ({ userId, level: n.level, idx: n.index, hash: n.hash })));
  }
}
