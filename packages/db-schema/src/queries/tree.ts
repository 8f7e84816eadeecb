/**
 * Tree reads and repair (docs/protocol.md §5 "The Merkle log and leaf encoding", §5.3 "Hashes"):
 * the persisted state, a NodeHashSource over the node store that serves a whole proof in one query,
 * roots at past sizes, and the O(n) rebuild and drift check.
 * @module
 */
import {
  CompactRange,
  type Hash,
  MissingNodeError,
  type NodeHashSource,
  type NodeId,
  rangeNodes,
  type StoredNode,
} from "@verifiable-memory/merkle-log";
import { asc, eq } from "drizzle-orm";
import type { Executor } from "../client.js";
import { TreeCorruptError } from "../errors.js";
import { memories } from "../schema/memories.js";
import { merkleNodes } from "../schema/merkle-nodes.js";
import { trees } from "../schema/trees.js";
import { bytesOf, rawQuery } from "./_prepared.js";
import { insertNodes, joinFrontier, lockTree, saveTree, splitFrontier } from "./_tree-store.js";

/** A user's persisted tree state. */
export interface TreeState {
  /** Number of leaves. */
  readonly size: number;
  /** Root over all leaves (EMPTY_ROOT at size 0). */
  readonly root: Hash;
  /** The CompactRange frontier hashes, largest subtree first. */
  readonly frontier: Hash[];
  /** Save version (incremented by every save). */
  readonly version: number;
  readonly updatedAt: Date;
}

/** The user's persisted tree, or null when the user never appended (or the row is missing). */
export async function getTree(db: Executor, userId: string): Promise<TreeState | null> {
  const rows = await db.select().from(trees).where(eq(trees.userId, userId)).limit(1);
  const row = rows[0];
  if (!row) {
    return null;
  }
  return {
    size: row.size,
    root: row.root,
    frontier: splitFrontier(row.frontier),
    version: row.version,
    updatedAt: row.updatedAt,
  };
}

/**
 * One batch read of the user's stored nodes, in the order of `ids` (duplicates allowed): a
 * prepared statement joining `unnest($2::int2[], $3::int8[]) WITH ORDINALITY` to the primary key
 * of `merkle_nodes` (index lookups only), `user_id = $1` in the SQL.
 */
const NODES_SQL = `select u.ord::int4 as ord, n.hash
  from unnest($2::int2[], $3::int8[]) with ordinality as u(level, idx, ord)
  join merkle_nodes n on n.user_id = $1 and n.level = u.level and n.idx = u.idx`;

/**
 * A NodeHashSource over the user's stored perfect subtrees (for @verifiable-memory/merkle-log inclusionProof and
 * consistencyProof). Each getNodes call is ONE query on the postgres.js client underneath `db`
 * (a prepared statement, see {@link rawQuery}):
 * `unnest($2::int2[], $3::int8[]) WITH ORDINALITY` joined to `merkle_nodes` on
 * `user_id = $1 AND (level, idx)`. Hashes come back as fresh 32-byte Uint8Arrays in the order of
 * `ids`; an empty `ids` makes no query.
 * getNodes rejects with RangeError for an id that is not a node address (level outside [0, 63],
 * negative or non-integer index), and with merkle-log's MissingNodeError for the first id not
 * stored (repair: rebuildTree).
 */
export function nodeSource(db: Executor, userId: string): NodeHashSource {
  return {
    async getNodes(ids: readonly NodeId[]): Promise<readonly Hash[]> {
      if (ids.length === 0) {
        return [];
      }
      ids.forEach((id, i) => {
        if (!Number.isSafeInteger(id.level) || id.level < 0 || id.level > 63) {
          throw new RangeError(`ids[${i}].level must be an integer in [0, 63], got ${id.level}`);
        }
        if (!Number.isSafeInteger(id.index) || id.index < 0) {
          throw new RangeError(`ids[${i}].index must be a non-negative integer, got ${id.index}`);
        }
      });
      const levels = `{${ids.map((id) => id.level).join(",")}}`;
      const indexes = `{${ids.map((id) => id.index).join(",")}}`;
      const rows = await rawQuery<{ ord: number; hash: Uint8Array }>(db, NODES_SQL, [
        userId,
        levels,
        indexes,
      ]);
      const found: (Hash | undefined)[] = new Array(ids.length);
      for (const row of rows) {
        found[row.ord - 1] = bytesOf(row.hash);
      }
      return ids.map((id, i) => {
        const hash = found[i];
        if (!hash) {
          throw new MissingNodeError(id);
        }
        return hash;
      });
    },
  };
}

/**
 * A NodeHashSource serving from `prefetched` (hashes keyed `"level:index"`, read earlier in the
 * same snapshot) when every requested id is there, and from `fallback` otherwise (so a node
 * missing from the store still rejects with MissingNodeError, through the fallback's own read).
 * Not part of the package surface.
 */
export function prefetchedNodeSource(
  prefetched: ReadonlyMap<string, Hash>,
  fallback: NodeHashSource,
): NodeHashSource {
  return {
    async getNodes(ids: readonly NodeId[]): Promise<readonly Hash[]> {
      const hashes: Hash[] = [];
      for (const id of ids) {
        const hash = prefetched.get(`${id.level}:${id.index}`);
        if (!hash) {
          return fallback.getNodes(ids);
        }
        hashes.push(hash);
      }
      return hashes;
    },
  };
}

/**
 * The root of the user's tree at a past size `size` (RFC 9162 §2.1.1 MTH(D[0:size])), from the
 * popcount(size) perfect subtrees covering [0, size): O(log n) node reads in one query.
 * @throws RangeError when `size` is not a non-negative safe integer.
 * @throws MissingNodeError when the node store lacks a covering subtree (e.g. size > tree size).
 */
export async function rootAtSize(db: Executor, userId: string, size: number): Promise<Hash> {
  if (!Number.isSafeInteger(size) || size < 0) {
    throw new RangeError(`size must be a non-negative integer, got ${size}`);
  }
  const hashes = await nodeSource(db, userId).getNodes(rangeNodes(0, size));
  return CompactRange.fromState(size, hashes).root();
}

/** Result of {@link rebuildTree}. */
export interface RebuildResult {
  readonly size: number;
  readonly root: Hash;
  /** Number of node-store rows written. */
  readonly nodes: number;
}

/**
 * Recomputes the user's tree from its leaves (the one O(n) path, docs/protocol.md §5): under the tree row
 * lock, reads every leaf hash ordered by leaf index, replays them into a fresh CompactRange,
 * replaces the user's `merkle_nodes` and saves the `trees` row (version + 1). One transaction.
 * @throws TreeCorruptError when the leaf indices are not exactly 0..n-1 (the log itself is
 *   damaged; nothing is changed).
 */
export async function rebuildTree(db: Executor, userId: string): Promise<RebuildResult> {
  return db.transaction(async (tx) => {
    const tree = await lockTree(tx, userId);
    const { range, nodes } = await replayLeaves(tx, userId);
    await tx.delete(merkleNodes).where(eq(merkleNodes.userId, userId));
    await insertNodes(tx, userId, nodes);
    await saveTree(tx, userId, tree, range);
    return { size: range.size, root: range.root(), nodes: nodes.length };
  });
}

/** Result of {@link checkTree}. */
export interface TreeCheck {
  /** True when anything persisted differs from the recomputation. */
  readonly drifted: boolean;
  /** Human-readable findings; empty when not drifted. */
  readonly reasons: string[];
  /** Number of leaves (memory rows) of the user. */
  readonly size: number;
  /** Size in the `trees` row; null when the row is missing. */
  readonly persistedSize: number | null;
  /** Root in the `trees` row; null when the row is missing. */
  readonly persistedRoot: Hash | null;
  /** Root recomputed from the leaves. */
  readonly recomputedRoot: Hash;
}

/**
 * Compares the persisted tree (row, frontier and every node of the node store) with a full
 * recomputation from the leaves, in one repeatable-read snapshot. A user without leaves and
 * without a tree row is not drifted. Repair a drifted tree with rebuildTree.
 * @throws TreeCorruptError when the leaf indices are not exactly 0..n-1.
 */
export async function checkTree(db: Executor, userId: string): Promise<TreeCheck> {
  return db.transaction(
    async (tx) => {
      const { range, nodes } = await replayLeaves(tx, userId);
      const rows = await tx.select().from(trees).where(eq(trees.userId, userId)).limit(1);
      const row = rows[0];
      const recomputedRoot = range.root();
      const reasons: string[] = [];
      if (!row) {
        if (range.size > 0) {
          reasons.push("tree row missing");
        }
      } else {
        if (row.size !== range.size) {
          reasons.push(`size ${row.size} persisted, ${range.size} leaves`);
        }
        if (!equalBytes(row.root, recomputedRoot)) {
          reasons.push("root differs from the recomputation");
        }
        if (!equalBytes(row.frontier, joinFrontier(range.hashes))) {
          reasons.push("frontier differs from the recomputation");
        }
      }
      reasons.push(...(await compareNodes(tx, userId, nodes)));
      return {
        drifted: reasons.length > 0,
        reasons,
        size: range.size,
        persistedSize: row?.size ?? null,
        persistedRoot: row?.root ?? null,
        recomputedRoot,
      };
    },
    { isolationLevel: "repeatable read", accessMode: "read only" },
  );
}

/** Replays the user's leaves in order into a fresh range, collecting every completed node. */
async function replayLeaves(
  tx: Executor,
  userId: string,
): Promise<{ range: CompactRange; nodes: StoredNode[] }> {
  const leaves = await tx
    .select({ leafIndex: memories.leafIndex, leafHash: memories.leafHash })
    .from(memories)
    .where(eq(memories.userId, userId))
    .orderBy(asc(memories.leafIndex));
  const range = CompactRange.empty();
  const nodes: StoredNode[] = [];
  for (const leaf of leaves) {
    if (leaf.leafIndex !== range.size) {
      throw new TreeCorruptError(
        userId,
        `leaf index ${leaf.leafIndex} where ${range.size} was due`,
      );
    }
    nodes.push(...range.append(leaf.leafHash));
  }
  return { range, nodes };
}

/** Differences between the expected nodes and the user's stored ones. */
async function compareNodes(
  tx: Executor,
  userId: string,
  expected: readonly StoredNode[],
): Promise<string[]> {
  const stored = await tx
    .select({ level: merkleNodes.level, idx: merkleNodes.idx, hash: merkleNodes.hash })
    .from(merkleNodes)
    .where(eq(merkleNodes.userId, userId));
  const byId = new Map(stored.map((n) => [`${n.level}:${n.idx}`, n.hash]));
  let missing = 0;
  let wrong = 0;
  for (const node of expected) {
    const key = `${node.level}:${node.index}`;
    const hash = byId.get(key);
    if (!hash) {
      missing += 1;
    } else if (!equalBytes(hash, node.hash)) {
      wrong += 1;
    }
    byId.delete(key);
  }
  const reasons: string[] = [];
  if (missing > 0) {
    reasons.push(`${missing} nodes missing`);
  }
  if (wrong > 0) {
    reasons.push(`${wrong} nodes with a wrong hash`);
  }
  if (byId.size > 0) {
    reasons.push(`${byId.size} nodes beyond the tree`);
  }
  return reasons;
}

function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((byte, i) => byte === b[i]);
}
