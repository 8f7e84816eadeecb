/**
 * Appending memories (docs/protocol.md §4.1 "The memory record"): the transactional append that
 * inserts the memory rows and extends each user's incremental RFC 9162 tree in one statement, one
 * user or a cross-user group commit, with an optimistic version check on the tree row.
 * @module
 */
import type { CompactRange, Hash } from "@verifiable-memory/merkle-log";
import { type SQL, sql } from "drizzle-orm";
import type { Executor, Transaction } from "../../client.js";
import { TreeSaveConflictError, treeSaveConflicts } from "../../errors.js";
import type { WriterKind } from "../../schema/memories.js";
import { runPrepared } from "../_prepared.js";
import {
  hex,
  joinFrontier,
  lockTrees,
  nodeRowsInsert,
  restoreRange,
  type SavedTree,
  saveTrees,
  type TreeSave,
  treesUpdate,
  type UserNode,
} from "../_tree-store.js";

export type { SavedTree } from "../_tree-store.js";

/** One memory to append; the caller computed `leafHash` over the leaf data (docs/protocol.md §5). */
export interface NewMemory {
  /** Opaque id, part of the leaf data, so chosen by the caller. */
  readonly id: string;
  /** The encrypted body (envelope). */
  readonly ciphertext: Uint8Array;
  /** The IV, when the envelope stores it apart; null otherwise. */
  readonly iv: Uint8Array | null;
  /** SHA-256(0x00 ‖ leafData), 32 bytes. */
  readonly leafHash: Uint8Array;
  /** Metadata in clear, a JSON object (hashed into the leaf). */
  readonly metadata: Record<string, unknown>;
  /** Creation time, the one in the leaf data. */
  readonly createdAt: Date;
  /** Leaf-encoding version of `leafHash` (docs/protocol.md §5); default 1. */
  readonly leafVersion?: 1 | 2;
  /** The memory's namespace (version 2); default null. */
  readonly namespace?: string | null;
  /** Who wrote it (version 2); default null (version 1 records no writer). */
  readonly writerKind?: WriterKind | null;
  /** The writing API key's id when `writerKind` is `api_key`. */
  readonly writerKeyId?: string | null;
  /** The memory this one supersedes (version 2); default null. */
  readonly supersedes?: string | null;
}

/**
 * Context given to the test hooks of {@link appendMemories} (`beforeWrite`, which runs before
 * the tree update, and `beforeCommit`).
 */
export interface BeforeTreeUpdateContext {
  readonly tx: Transaction;
  readonly userId: string;
  /** The tree size after the append (saved once the write statement ran). */
  readonly size: number;
  /** The attempt number, from 1 (a version conflict retries from a fresh read). */
  readonly attempt: number;
}

/** Options of {@link appendMemories}. */
export interface AppendOptions {
  /**
   * Test hook run inside the transaction once the tree row is locked and the new tree computed,
   * before the one statement that inserts the memory rows and nodes and saves the tree. A
   * statement it runs on `tx` executes before that write (e.g. a version bump: a lost update).
   * Throwing from it rolls everything back.
   */
  readonly beforeWrite?: (context: BeforeTreeUpdateContext) => void | Promise<void>;
  /**
   * Test hook run inside the transaction after the write statement (memory rows, nodes and tree
   * are written and visible on `tx`) and before COMMIT. Throwing from it rolls everything back
   * (failure injection).
   */
  readonly beforeCommit?: (context: BeforeTreeUpdateContext) => void | Promise<void>;
  /** Attempts when the tree save hits a version conflict; default 3. */
  readonly maxAttempts?: number;
}

/** Result of {@link appendMemories}. */
export interface AppendResult {
  /** Each appended memory with its leaf index, in input order. */
  readonly items: { readonly id: string; readonly leafIndex: number }[];
  /** The tree size after the append. */
  readonly size: number;
  /** The tree root after the append (RFC 9162 MTH over all leaves). */
  readonly root: Hash;
}

/** One user's part of a cross-user append batch ({@link appendMemoriesForUsers}). */
export interface UserAppend {
  readonly userId: string;
  /** The user's memories, in the order they get leaf indices. */
  readonly items: readonly NewMemory[];
}

/** Result of one user's part of {@link appendMemoriesForUsers}. */
export interface UserAppendResult extends AppendResult {
  readonly userId: string;
  /** The user's tree as this append saved it (the state a following append starts from). */
  readonly tree: SavedTree;
}

/** Context given to the test hooks of {@link appendMemoriesForUsers}. */
export interface BatchAppendHookContext {
  readonly tx: Transaction;
  /** Each user's tree size after the append, in input order. */
  readonly trees: readonly { readonly userId: string; readonly size: number }[];
  /** The attempt number, from 1 (a version conflict retries the whole batch). */
  readonly attempt: number;
}

/** Options of {@link appendMemoriesForUsers}. */
export interface BatchAppendOptions {
  /**
   * Test hook run inside the transaction once the tree rows are locked and the new trees
   * computed, before the write statement; a statement it runs on `tx` executes before that write
   * (e.g. a version bump: a lost update). Throwing from it rolls everything back.
   */
  readonly beforeWrite?: (context: BatchAppendHookContext) => void | Promise<void>;
  /**
   * Test hook run inside the transaction after the write statement and before COMMIT (every
   * user's rows, nodes and tree are visible on `tx`). Throwing from it rolls the whole batch back.
   */
  readonly beforeCommit?: (context: BatchAppendHookContext) => void | Promise<void>;
  /** Attempts when a tree save hits a version conflict; default 3. */
  readonly maxAttempts?: number;
}

/**
 * Appends memories to the user's log in ONE transaction: the one-user form of
 * {@link appendMemoriesForUsers} (same statements, same guarantees). Locks the user's tree row
 * (creating the empty tree on first use), gives the items leaf indices size, size + 1, …, then
 * one statement inserts the memory rows and the completed perfect subtrees and saves the tree
 * with an optimistic version check; all commit together or not at all. A version conflict
 * (TreeSaveConflictError, counted in `treeSaveConflicts`) rolls the attempt back and is retried
 * up to `maxAttempts` times; then it is thrown. Reuses an outer transaction when `db` is one (as
 * a savepoint).
 * @returns the leaf index of each item, and the new size and root.
 * @throws TypeError / RangeError on malformed items (empty list, leaf hash not 32 bytes, …).
 * @throws TreeSaveConflictError when every attempt conflicted.
 * @throws TreeCorruptError when the stored frontier is inconsistent (repair: rebuildTree).
 * @throws drizzle's DrizzleQueryError whose `cause` is the PostgreSQL error of a duplicate memory
 *   id (23505) or an unknown user (23503).
 */
export async function appendMemories(
  db: Executor,
  userId: string,
  items: readonly NewMemory[],
  options: AppendOptions = {},
): Promise<AppendResult> {
  const hook =
    (run: ((context: BeforeTreeUpdateContext) => void | Promise<void>) | undefined) =>
    (context: BatchAppendHookContext) =>
      run?.({
        tx: context.tx,
        userId,
        size: context.trees[0]?.size ?? 0,
        attempt: context.attempt,
      });
  const [result] = await appendMemoriesForUsers(db, [{ userId, items }], {
    ...(options.maxAttempts === undefined ? {} : { maxAttempts: options.maxAttempts }),
    ...(options.beforeWrite ? { beforeWrite: hook(options.beforeWrite) } : {}),
    ...(options.beforeCommit ? { beforeCommit: hook(options.beforeCommit) } : {}),
  });
  if (!result) {
    throw new Error("appendMemoriesForUsers returned no result");
  }
  return { items: result.items, size: result.size, root: result.root };
}

/**
 * Cross-user group commit: appends every user's memories in ONE transaction (docs/protocol.md §4.1
 * "The memory record"), in four round trips whatever the number of users and memories:
 * 1. BEGIN;
 * 2. the users' `trees` rows are locked in ascending user id order (`SELECT … FOR UPDATE`, after
 *    an `INSERT … ON CONFLICT DO NOTHING` that creates missing trees; both pipelined), so
 *    concurrent batches sharing users — in this process or another — queue without deadlock;
 * 3. each user's items get leaf indices size, size + 1, … in input order, and the CompactRange
 *    restored from each frontier appends their leaf hashes; then ONE statement writes everything:
 *    `WITH m AS (INSERT INTO memories … all rows), n AS (INSERT INTO merkle_nodes … all completed
 *    perfect subtrees) UPDATE trees … WHERE user_id = … AND version = <read> RETURNING …`; a user
 *    whose row no longer has the version read is a TreeSaveConflictError (counted in
 *    `treeSaveConflicts`) that rolls everything back;
 * 4. COMMIT.
 * All users' rows, nodes and trees commit together or not at all: any failure fails the whole
 * batch. A version conflict retries the whole batch from a fresh read, up to `maxAttempts` times.
 * Reuses an outer transaction when `db` is one (as a savepoint).
 * @param appends each user at most once, each with a non-empty item list.
 * @returns one result per entry of `appends`, in the same order: the leaf index of each item
 *   (input order) and the user's new tree size and root.
 * @throws TypeError / RangeError on malformed input (no users, a user twice, bad items, …).
 * @throws TreeSaveConflictError when every attempt conflicted.
 * @throws TreeCorruptError when a stored frontier is inconsistent (repair: rebuildTree).
 * @throws drizzle's DrizzleQueryError whose `cause` is the PostgreSQL error of a duplicate memory
 *   id (23505) or an unknown user (23503).
 */
export async function appendMemoriesForUsers(
  db: Executor,
  appends: readonly UserAppend[],
  options: BatchAppendOptions = {},
): Promise<UserAppendResult[]> {
  assertUserAppends(appends);
  const maxAttempts = options.maxAttempts ?? 3;
  if (!Number.isInteger(maxAttempts) || maxAttempts < 1) {
    throw new RangeError(`maxAttempts must be a positive integer, got ${maxAttempts}`);
  }
  for (let attempt = 1; ; attempt++) {
    try {
      return await db.transaction((tx) => appendOnce(tx, appends, options, attempt));
    } catch (error) {
      if (!(error instanceof TreeSaveConflictError) || attempt >= maxAttempts) {
        throw error;
      }
    }
  }
}

async function appendOnce(
  tx: Transaction,
  appends: readonly UserAppend[],
  options: BatchAppendOptions,
  attempt: number,
): Promise<UserAppendResult[]> {
  const locked = await lockTrees(
    tx,
    appends.map((a) => a.userId),
  );
  const plan = planAppends(
    appends.map((append) => ({ ...append, tree: locked.get(append.userId) as SavedTree })),
  );
  const context = {
    tx,
    trees: plan.users.map((u) => ({ userId: u.userId, size: u.range.size })),
    attempt,
  };
  await options.beforeWrite?.(context);
  const versions = await saveTrees(tx, plan.saves, [
    memoryRowsInsert(plan.rows),
    nodeRowsInsert(plan.nodes),
  ]);
  await options.beforeCommit?.(context);
  return plan.users.map((user) => appendResult(user, versions.get(user.userId) as number));
}

/** One user's memories to append on top of the tree state the caller holds. */
export interface KnownTreeAppend extends UserAppend {
  /** The user's tree as the caller last saw it saved (a previous append's `tree`). */
  readonly tree: SavedTree;
}

/** A user of {@link appendMemoriesToKnownTrees} whose tree was no longer the given state. */
export interface StaleTreeResult {
  readonly userId: string;
  readonly stale: true;
}

/**
 * Cross-user append in ONE statement and one round trip (no lock read, and no BEGIN/COMMIT when
 * `db` is not a transaction: the statement commits on its own), for callers that hold each
 * user's current tree, such as a group-commit queue that keeps the `tree` of its last append:
 * `WITH saved AS (UPDATE trees … WHERE user_id = … AND version = <given> AND root = <given>
 * RETURNING …), m AS (INSERT INTO memories … of the saved users), n AS (INSERT INTO merkle_nodes
 * … of the saved users) SELECT … FROM saved`. Each user is appended only if their `trees` row
 * still has the given version and root (compare-and-swap, docs/protocol.md §5 "The Merkle log and
 * leaf encoding": a tree is only ever extended from its own stored frontier); a user whose row
 * moved on (another process appended, or a rebuild) is answered `stale` and nothing of theirs is
 * written, while the other users' appends commit. Same leaf indices, rows and nodes as
 * {@link appendMemoriesForUsers} would write from that state.
 * @param appends each user at most once, each with a non-empty item list and the tree the items
 *   are appended to.
 * @returns one result per entry of `appends`, in the same order: the appended user's result (leaf
 *   indices, new size, root and tree), or `{ userId, stale: true }` (counted in
 *   `treeSaveConflicts`).
 * @throws TypeError / RangeError on malformed input (as appendMemoriesForUsers).
 * @throws TreeCorruptError when a given frontier does not fit its size.
 * @throws drizzle's DrizzleQueryError whose `cause` is the PostgreSQL error of a duplicate memory
 *   id (23505); the statement then wrote nothing for any user.
 */
export async function appendMemoriesToKnownTrees(
  db: Executor,
  appends: readonly KnownTreeAppend[],
): Promise<(UserAppendResult | StaleTreeResult)[]> {
  assertUserAppends(appends);
  const plan = planAppends(appends);
  const onlySaved = sql` where r.user_id in (select user_id from saved)`;
  const rows = await runPrepared<{ user_id: string; version: string }>(
    db,
    "append_known_trees",
    sql`with saved as (${treesUpdate(plan.saves)}),
      m as (${memoryRowsInsert(plan.rows, onlySaved)}),
      n as (${nodeRowsInsert(plan.nodes, onlySaved)})
      select user_id, version from saved`,
  );
  const versions = new Map(rows.map((r) => [r.user_id, Number(r.version)]));
  return plan.users.map((user) => {
    const version = versions.get(user.userId);
    if (version === undefined) {
      treeSaveConflicts.inc();
      return { userId: user.userId, stale: true as const };
    }
    return appendResult(user, version);
  });
}

/** One user's part of a planned append: leaf indices from `first`, the extended range. */
interface PlannedUser {
  readonly userId: string;
  readonly ids: readonly string[];
  readonly first: number;
  readonly range: CompactRange;
  /** The range's root, computed once. */
  readonly root: Hash;
}

/** Rows, nodes and tree saves of a cross-user append from each user's starting tree. */
interface AppendPlan {
  readonly users: PlannedUser[];
  readonly rows: MemoryRow[];
  readonly nodes: UserNode[];
  readonly saves: TreeSave[];
}

/**
 * Gives each user's items leaf indices size, size + 1, … and appends their leaf hashes to the
 * compact range restored from the user's tree (RFC 9162 §2.1.1), collecting the memory rows,
 * the completed perfect subtrees and the tree saves (expected version: the starting one).
 * @throws TreeCorruptError when a frontier does not fit its size.
 */
function planAppends(appends: readonly (UserAppend & { readonly tree: SavedTree })[]): AppendPlan {
  const plan: AppendPlan = { users: [], rows: [], nodes: [], saves: [] };
  for (const { userId, items, tree } of appends) {
    const range = restoreRange(userId, tree);
    const first = range.size;
    items.forEach((item, i) => {
      plan.rows.push({
        id: item.id,
        userId,
        leafIndex: first + i,
        ciphertext: item.ciphertext,
        iv: item.iv,
        leafHash: item.leafHash,
        metadata: item.metadata,
        createdAt: item.createdAt,
        leafVersion: item.leafVersion ?? 1,
        namespace: item.namespace ?? null,
        writerKind: item.writerKind ?? null,
        writerKeyId: item.writerKeyId ?? null,
        supersedes: item.supersedes ?? null,
      });
      for (const node of range.append(item.leafHash)) {
        plan.nodes.push({ userId, level: node.level, index: node.index, hash: node.hash });
      }
    });
    plan.saves.push({ userId, expected: tree, range });
    plan.users.push({
      userId,
      ids: items.map((item) => item.id),
      first,
      range,
      root: range.root(),
    });
  }
  return plan;
}

/** A planned user's tree once saved with `version`. */
function savedTree(user: PlannedUser, version: number): SavedTree {
  return {
    size: user.range.size,
    root: user.root,
    frontier: joinFrontier(user.range.hashes),
    version,
  };
}

/** A planned user's result once the save returned the tree's new `version`. */
function appendResult(user: PlannedUser, version: number): UserAppendResult {
  return {
    userId: user.userId,
    items: user.ids.map((id, i) => ({ id, leafIndex: user.first + i })),
    size: user.range.size,
    root: user.root,
    tree: savedTree(user, version),
  };
}

/** A memory row as {@link memoryRowsInsert} writes it. */
interface MemoryRow {
  readonly id: string;
  readonly userId: string;
  readonly leafIndex: number;
  readonly ciphertext: Uint8Array;
  readonly iv: Uint8Array | null;
  readonly leafHash: Uint8Array;
  readonly metadata: Record<string, unknown>;
  readonly createdAt: Date;
  readonly leafVersion: 1 | 2;
  readonly namespace: string | null;
  readonly writerKind: WriterKind | null;
  readonly writerKeyId: string | null;
  readonly supersedes: string | null;
}

/**
 * The statement inserting memory rows of any number of users, with a fixed text
 * (`INSERT INTO memories (…) SELECT … FROM json_to_recordset($rows)`), run alongside the tree
 * save: bytes travel as hex, `created_at` as ISO 8601 text cast to timestamptz (never a Date in
 * raw SQL), metadata as a JSON object cast to jsonb. `where` (a clause on the rows `r`) keeps only
 * some of them.
 */
function memoryRowsInsert(rows: readonly MemoryRow[], where: SQL = sql``): SQL {
  const payload = JSON.stringify(
    rows.map((r) => ({
      id: r.id,
      user_id: r.userId,
      leaf_index: r.leafIndex,
      ciphertext: hex(r.ciphertext),
      iv: r.iv === null ? null : hex(r.iv),
      leaf_hash: hex(r.leafHash),
      metadata: r.metadata,
      created_at: r.createdAt.toISOString(),
      leaf_version: r.leafVersion,
      namespace: r.namespace,
      writer_kind: r.writerKind,
      writer_key_id: r.writerKeyId,
      supersedes: r.supersedes,
    })),
  );
  return sql`insert into memories
      (id, user_id, leaf_index, ciphertext, iv, leaf_hash, metadata, created_at, leaf_version,
        namespace, writer_kind, writer_key_id, supersedes)
    select r.id, r.user_id, r.leaf_index, decode(r.ciphertext, 'hex'), decode(r.iv, 'hex'),
      decode(r.leaf_hash, 'hex'), r.metadata, r.created_at, r.leaf_version, r.namespace,
      r.writer_kind, r.writer_key_id, r.supersedes
    from json_to_recordset(${payload}::text::json)
      as r(id text, user_id text, leaf_index bigint, ciphertext text, iv text, leaf_hash text,
        metadata jsonb, created_at timestamptz, leaf_version int2, namespace text,
        writer_kind text, writer_key_id text, supersedes text)${where}`;
}

function assertUserAppends(appends: readonly UserAppend[]): void {
  if (!Array.isArray(appends) || appends.length === 0) {
    throw new RangeError("appends must be a non-empty array");
  }
  const seen = new Set<string>();
  appends.forEach((append, i) => {
    if (typeof append.userId !== "string" || append.userId.length === 0) {
      throw new TypeError(`appends[${i}].userId must be a non-empty string`);
    }
    if (seen.has(append.userId)) {
      throw new RangeError(`appends[${i}].userId appears twice; merge its items in order`);
    }
    seen.add(append.userId);
    assertNewMemories(append.items);
  });
}

function assertNewMemories(items: readonly NewMemory[]): void {
  if (!Array.isArray(items) || items.length === 0) {
    throw new RangeError("items must be a non-empty array");
  }
  items.forEach((item, i) => {
    if (typeof item.id !== "string" || item.id.length === 0) {
      throw new TypeError(`items[${i}].id must be a non-empty string`);
    }
    if (!(item.ciphertext instanceof Uint8Array)) {
      throw new TypeError(`items[${i}].ciphertext must be a Uint8Array`);
    }
    if (item.iv !== null && !(item.iv instanceof Uint8Array)) {
      throw new TypeError(`items[${i}].iv must be a Uint8Array or null`);
    }
    if (!(item.leafHash instanceof Uint8Array) || item.leafHash.length !== 32) {
      throw new TypeError(`items[${i}].leafHash must be a 32-byte Uint8Array`);
    }
    if (
      typeof item.metadata !== "object" ||
      item.metadata === null ||
      Array.isArray(item.metadata)
    ) {
      throw new TypeError(`items[${i}].metadata must be a JSON object`);
    }
    if (!(item.createdAt instanceof Date) || Number.isNaN(item.createdAt.getTime())) {
      throw new TypeError(`items[${i}].createdAt must be a valid Date`);
    }
  });
}
