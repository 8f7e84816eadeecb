/**
 * Internal persistence of users' incremental trees (docs/protocol.md §5 "The Merkle log and leaf
 * encoding"): locking and restoring `trees` rows (one user, or several in one statement for a
 * cross-user append batch), the optimistic-concurrency save (which can carry the batch's memory and
 * node INSERTs as CTEs of the same statement), and bulk writes to the node store. The multi-user
 * statements have a fixed SQL text (rows travel as one JSON parameter) and run as server-side
 * prepared statements: one message and one round trip each, pipelined when issued together. Used by
 * memories.ts (appends) and tree.ts (rebuild); not part of the package surface.
 * @module
 */
import {
  CompactRange,
  EMPTY_ROOT,
  type Hash,
  type StoredNode,
} from "@verifiable-memory/merkle-log";
import { eq, type SQL, sql } from "drizzle-orm";
import type { Executor } from "../client.js";
import { TreeCorruptError, TreeSaveConflictError, treeSaveConflicts } from "../errors.js";
import { merkleNodes } from "../schema/merkle-nodes.js";
import { trees } from "../schema/trees.js";
import { runPrepared } from "./_prepared.js";

const HASH_SIZE = 32;
// Rows per multi-row INSERT into merkle_nodes (4 parameters each; PostgreSQL allows 65 535).
const NODE_CHUNK = 5000;

/**
 * A user's stored tree as one `trees` row holds it (docs/protocol.md §5 "The Merkle log and leaf
 * encoding"): what the next append starts from.
 */
export interface SavedTree {
  /** Number of leaves. */
  readonly size: number;
  /** RFC 9162 MTH over all leaves (32 bytes). */
  readonly root: Hash;
  /** The compact range's hashes, 32 bytes each, concatenated (left to right). */
  readonly frontier: Uint8Array;
  /** Save version, incremented by every save (optimistic concurrency). */
  readonly version: number;
}

/** The tree state read under the row lock. */
export type LockedTree = SavedTree;

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
 * Saves `range` as the user's tree if the row is still `expected` (the one-user form of
 * {@link saveTrees}: `UPDATE trees … WHERE user_id = $ AND version = $v AND root = $r`). Zero
 * rows updated means another writer saved in between.
 * @returns the new version.
 * @throws TreeSaveConflictError (after incrementing `treeSaveConflicts`) on a mismatch.
 */
export async function saveTree(
  tx: Executor,
  userId: string,
  expected: Pick<SavedTree, "version" | "root">,
  range: CompactRange,
): Promise<number> {
  const versions = await saveTrees(tx, [{ userId, expected, range }]);
  return versions.get(userId) as number;
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

// ---- Multi-user statements (cross-user append batches) ----

/** Hex of `bytes` (for the JSON row payloads; SQL decodes it with `decode(…, 'hex')`). */
export function hex(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("hex");
}

const EMPTY_ROOT_HEX = hex(EMPTY_ROOT);

/** A `trees` row as the raw multi-user lock statement returns it. */
interface RawTreeRow {
  readonly user_id: string;
  readonly size: string;
  readonly root: Uint8Array;
  readonly frontier: Uint8Array;
  readonly version: string;
}

/**
 * Locks the `trees` rows of every user in `userIds` for the rest of the transaction, in ascending
 * `user_id` order (every multi-user writer locks in that order, so two batches sharing users never
 * deadlock), creating the empty tree of users that have none. Two statements, issued together so
 * postgres.js pipelines them (one round trip):
 * `INSERT INTO trees … SELECT … ORDER BY user_id ON CONFLICT (user_id) DO NOTHING`, then
 * `SELECT … FROM trees WHERE user_id IN (…) ORDER BY user_id FOR UPDATE`. Must run inside a
 * transaction. Duplicate ids are locked once.
 * @returns each user's locked tree, by user id.
 * @throws the PostgreSQL foreign-key violation (23503, as DrizzleQueryError's cause) when a user
 *   does not exist.
 */
export async function lockTrees(
  tx: Executor,
  userIds: readonly string[],
): Promise<Map<string, LockedTree>> {
  const ids = JSON.stringify([...new Set(userIds)]);
  const [, rows] = await Promise.all([
    runPrepared(
      tx,
      "append_create_trees",
      sql`insert into trees (user_id, size, root, frontier, version)
        select u.user_id, 0, decode(${EMPTY_ROOT_HEX}, 'hex'), decode('', 'hex'), 0
        from json_array_elements_text(${ids}::text::json) as u(user_id)
        order by u.user_id
        on conflict (user_id) do nothing`,
    ),
    runPrepared<RawTreeRow>(
      tx,
      "append_lock_trees",
      sql`select user_id, size, root, frontier, version from trees
        where user_id in (select value from json_array_elements_text(${ids}::text::json))
        order by user_id
        for update`,
    ),
  ]);
  const locked = new Map<string, LockedTree>();
  for (const row of rows) {
    locked.set(row.user_id, {
      size: Number(row.size),
      root: new Uint8Array(row.root),
      frontier: new Uint8Array(row.frontier),
      version: Number(row.version),
    });
  }
  for (const userId of userIds) {
    if (!locked.has(userId)) {
      throw new Error(`tree row of user ${userId} missing right after its creation`);
    }
  }
  return locked;
}

/** One user's tree to save with {@link saveTrees}. */
export interface TreeSave {
  readonly userId: string;
  /**
   * The row the save replaces, as read under the row lock or remembered from an earlier save:
   * its version (only ever grows, so a remembered one never matches a row another writer saved
   * since) and its root (which pins the leaves, so the frontier extended is this user's stored
   * one, whatever tree state a caller passes).
   */
  readonly expected: Pick<SavedTree, "version" | "root">;
  /** The tree to store. */
  readonly range: CompactRange;
}

/**
 * Saves several users' trees in ONE statement, each only if its row still has the version and
 * root its writer read ({@link treesUpdate}). The data-modifying
 * statements in `alongside` (INSERTs without RETURNING, e.g. the batch's memory rows and nodes)
 * run as CTEs of that same statement (`WITH w0 AS (…), w1 AS (…) UPDATE trees …`): one message,
 * one round trip, and they stand or fall with the save. A user missing from the returned rows
 * lost an optimistic-concurrency race: each such user increments `treeSaveConflicts` and the call
 * throws, so the caller's transaction rolls back (the rows `alongside` wrote and the trees the
 * statement did save included).
 * @returns the new version of each user's tree.
 * @throws RangeError when a user appears twice.
 * @throws TreeSaveConflictError (for the first lost user) on any version mismatch.
 * @throws drizzle's DrizzleQueryError (cause: the PostgreSQL error) when a statement fails.
 */
export async function saveTrees(
  tx: Executor,
  saves: readonly TreeSave[],
  alongside: readonly SQL[] = [],
): Promise<Map<string, number>> {
  const ctes =
    alongside.length === 0
      ? sql``
      : sql`with ${sql.join(
          alongside.map((statement, i) => sql`${sql.raw(`w${i}`)} as (${statement})`),
          sql`, `,
        )} `;
  const rows = await runPrepared<{ user_id: string; version: string }>(
    tx,
    "save_trees",
    sql`${ctes}${treesUpdate(saves)}`,
  );
  const saved = new Map(rows.map((r) => [r.user_id, Number(r.version)]));
  const lost = saves.filter((s) => !saved.has(s.userId));
  for (const _ of lost) {
    treeSaveConflicts.inc();
  }
  const first = lost[0];
  if (first) {
    throw new TreeSaveConflictError(first.userId, first.expected.version);
  }
  return saved;
}

/**
 * The checked save of several users' trees as one statement with a fixed text:
 * `UPDATE trees SET size, root, frontier, version = version + 1 FROM json_to_recordset($rows)
 * WHERE user_id = row.user_id AND version = row.expected AND root = row.expected_root
 * RETURNING user_id, version`. A row that moved on (another writer saved in between) is left
 * alone and not returned; under READ COMMITTED a row locked by another transaction is waited for
 * and then re-checked.
 * @throws RangeError when a user appears twice.
 */
export function treesUpdate(saves: readonly TreeSave[]): SQL {
  if (new Set(saves.map((s) => s.userId)).size !== saves.length) {
    throw new RangeError("saves must name each user at most once");
  }
  const payload = JSON.stringify(
    saves.map((s) => ({
      user_id: s.userId,
      size: s.range.size,
      root: hex(s.range.root()),
      frontier: hex(joinFrontier(s.range.hashes)),
      expected: s.expected.version,
      expected_root: hex(s.expected.root),
    })),
  );
  return sql`update trees as t
      set size = v.size, root = decode(v.root, 'hex'), frontier = decode(v.frontier, 'hex'),
        version = t.version + 1, updated_at = now()
      from json_to_recordset(${payload}::text::json)
        as v(user_id text, size bigint, root text, frontier text, expected bigint,
          expected_root text)
      where t.user_id = v.user_id and t.version = v.expected
        and t.root = decode(v.expected_root, 'hex')
      returning t.user_id, t.version`;
}

/** A completed perfect subtree of one user's tree, for {@link nodeRowsInsert}. */
export interface UserNode extends StoredNode {
  readonly userId: string;
}

/**
 * The statement inserting completed perfect subtrees of any number of users' trees into the node
 * store, with a fixed text (`INSERT INTO merkle_nodes … SELECT … FROM json_to_recordset($rows)`),
 * to run alongside the tree save ({@link saveTrees}). `where` (a clause on the rows `r`, e.g.
 * ` where r.user_id in (select user_id from saved)`) keeps only some users' nodes.
 */
export function nodeRowsInsert(nodes: readonly UserNode[], where: SQL = sql``): SQL {
  const payload = JSON.stringify(
    nodes.map((n) => ({ user_id: n.userId, level: n.level, idx: n.index, hash: hex(n.hash) })),
  );
  return sql`insert into merkle_nodes (user_id, level, idx, hash)
    select r.user_id, r.level, r.idx, decode(r.hash, 'hex')
    from json_to_recordset(${payload}::text::json)
      as r(user_id text, level smallint, idx bigint, hash text)${where}`;
}
