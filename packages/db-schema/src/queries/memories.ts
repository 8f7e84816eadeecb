/**
 * Memory queries (docs/protocol.md §4 "Memory record", §4; docs/protocol.md §4): the transactional append that extends
 * the user's incremental tree, reads and listings scoped to the user, deletion that keeps the leaf,
 * and the anchor service's pending-seal queries (docs/protocol.md §7).
 * @module
 */
import type { CompactRange, Hash } from "@verifiable-memory/merkle-log";
import {
  and,
  asc,
  count,
  desc,
  eq,
  gt,
  gte,
  inArray,
  isNotNull,
  isNull,
  lt,
  max,
  min,
  type SQL,
  sql,
} from "drizzle-orm";
import type { Executor, Transaction } from "../client.js";
import { TreeSaveConflictError, treeSaveConflicts } from "../errors.js";
import { type Memory, memories, type WriterKind } from "../schema/memories.js";
import type { RecallSegmentRow } from "../schema/recall-segments.js";
import { users } from "../schema/users.js";
import {
  decodeNumberCursor,
  encodeNumberCursor,
  type Page,
  type PageOptions,
  pageLimit,
  toPage,
} from "./_pagination.js";
import { builtOncePer, runPrepared } from "./_prepared.js";
import { likePrefix } from "./_sql.js";
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
} from "./_tree-store.js";
import {
  dropRecallSegmentOf,
  resealRecallSegmentOf,
  type SealedSegment,
} from "./recall-segments.js";

export type { SavedTree } from "./_tree-store.js";

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
 * Cross-user group commit: appends every user's memories in ONE transaction (docs/protocol.md §4; issue 5
 * item 2), in four round trips whatever the number of users and memories:
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
 * still has the given version and root (compare-and-swap, docs/protocol.md §5 "Merkle tree": a tree is only
 * ever extended from its own stored frontier); a user whose row moved on (another process appended, or a rebuild) is answered
 * `stale` and nothing of theirs is written, while the other users' appends commit. Same leaf
 * indices, rows and nodes as {@link appendMemoriesForUsers} would write from that state.
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

/** Options of the single-memory reads. */
export interface MemoryReadOptions {
  /** Also return a deleted memory (its ciphertext and iv are null); default false. */
  readonly includeDeleted?: boolean;
}

/**
 * The user's memory `id`, or null when it does not exist, belongs to another user, or is deleted
 * (unless `includeDeleted`). docs/protocol.md §3 Authorization rule 2: another user's memory is never loaded.
 * Run on every single-memory request, so sent as a server-side prepared statement whose query
 * drizzle builds once per executor.
 */
export async function getMemory(
  db: Executor,
  userId: string,
  id: string,
  options: MemoryReadOptions = {},
): Promise<Memory | null> {
  const query = options.includeDeleted ? anyMemoryById(db) : liveMemoryById(db);
  const rows = await query.execute({ userId, id });
  return rows[0] ?? null;
}

/**
 * getMemory's query of each executor, built once (drizzle placeholders `userId`, `id`): every
 * memory with `includeDeleted`, else live ones only.
 */
function memoryByIdQuery(includeDeleted: boolean) {
  return builtOncePer((db) =>
    db
      .select()
      .from(memories)
      .where(
        and(
          eq(memories.userId, sql.placeholder("userId")),
          eq(memories.id, sql.placeholder("id")),
          includeDeleted ? undefined : isNull(memories.deletedAt),
        ),
      )
      .limit(1)
      .prepare(includeDeleted ? "get_memory" : "get_live_memory"),
  );
}
const anyMemoryById = memoryByIdQuery(true);
const liveMemoryById = memoryByIdQuery(false);

/**
 * The user's memories among `ids` (in leaf order); ids of other users or unknown ids are simply
 * absent. Deleted ones are included only with `includeDeleted` (grants count them as omitted).
 * @throws RangeError when more than 1000 ids are given.
 */
export async function getMemoriesByIds(
  db: Executor,
  userId: string,
  ids: readonly string[],
  options: MemoryReadOptions = {},
): Promise<Memory[]> {
  if (ids.length > 1000) {
    throw new RangeError(`ids must hold at most 1000 ids, got ${ids.length}`);
  }
  if (ids.length === 0) {
    return [];
  }
  return db
    .select()
    .from(memories)
    .where(
      and(
        eq(memories.userId, userId),
        inArray(memories.id, [...ids]),
        options.includeDeleted ? undefined : isNull(memories.deletedAt),
      ),
    )
    .orderBy(asc(memories.leafIndex));
}

/** Filters of {@link listMemories} (docs/protocol.md §4 lists). */
export interface MemoryListOptions extends PageOptions {
  /** Only memories in exactly this namespace. */
  readonly namespace?: string | undefined;
  /** Only memories whose namespace starts with this. */
  readonly namespacePrefix?: string | undefined;
  /** The credential's confinement: only namespaces starting with this (null: none). */
  readonly confinedTo?: string | null | undefined;
  /** Also superseded versions; default false (current versions only). */
  readonly includeSuperseded?: boolean | undefined;
}

/**
 * SQL condition "namespace starts with `prefix`", as a LIKE with `%`, `_` and `\` escaped (the
 * `memories_user_namespace_idx` text_pattern_ops index serves it).
 */
export function namespaceUnder(prefix: string): SQL {
  return sql`${memories.namespace} like ${likePrefix(prefix)}`;
}

/**
 * The user's live (undeleted) memories, newest first (descending leaf index, which is append
 * order), cursor-paginated; current versions only unless `includeSuperseded`, filtered by
 * namespace (exact, prefix, confinement) in the SQL.
 * @throws RangeError on a bad `limit`; InvalidCursorError on a foreign cursor.
 */
export async function listMemories(
  db: Executor,
  userId: string,
  options: MemoryListOptions = {},
): Promise<Page<Memory>> {
  const limit = pageLimit(options.limit);
  const before = options.cursor ? decodeNumberCursor("memories", options.cursor) : null;
  const rows = await db
    .select()
    .from(memories)
    .where(
      and(
        eq(memories.userId, userId),
        isNull(memories.deletedAt),
        before === null ? undefined : lt(memories.leafIndex, before),
        options.includeSuperseded ? undefined : isNull(memories.supersededBy),
        options.namespace === undefined ? undefined : eq(memories.namespace, options.namespace),
        options.namespacePrefix === undefined ? undefined : namespaceUnder(options.namespacePrefix),
        options.confinedTo == null ? undefined : namespaceUnder(options.confinedTo),
      ),
    )
    .orderBy(desc(memories.leafIndex))
    .limit(limit + 1);
  return toPage(rows, limit, (last) => encodeNumberCursor("memories", last.leafIndex));
}

/** Outcome of {@link supersedeMemory}. */
export type SupersedeResult =
  | { readonly status: "superseded"; readonly leafIndex: number; readonly size: number }
  | { readonly status: "not_found" }
  | { readonly status: "conflict"; readonly reason: "deleted" | "superseded" };

/**
 * `PUT /memories/:id` (docs/protocol.md §4 "Updates"): in ONE transaction, locks the user's memory
 * `oldId` (`SELECT … FOR UPDATE`), and when it is live, current and within `confinedTo`, appends
 * `item` (whose `supersedes` must be `oldId`) to the log as {@link appendMemories} does and marks
 * the old row `superseded_by` the new id. Two concurrent updates of one memory queue on the row
 * lock: the second sees it superseded (conflict); the partial unique index on
 * (user_id, supersedes) backs this up.
 * @returns `superseded` with the new leaf index and tree size; `not_found` for an unknown id,
 *   another user's or one outside `confinedTo`; `conflict` for a deleted or already superseded one.
 * @throws RangeError when `item.supersedes` is not `oldId`; as {@link appendMemories}.
 */
export async function supersedeMemory(
  db: Executor,
  userId: string,
  oldId: string,
  item: NewMemory,
  confinedTo: string | null = null,
): Promise<SupersedeResult> {
  if (item.supersedes !== oldId) {
    throw new RangeError("item.supersedes must be the superseded memory's id");
  }
  return db.transaction(async (tx) => {
    const [old] = await tx
      .select({
        deletedAt: memories.deletedAt,
        supersededBy: memories.supersededBy,
        namespace: memories.namespace,
      })
      .from(memories)
      .where(and(eq(memories.userId, userId), eq(memories.id, oldId)))
      .for("update");
    if (
      !old ||
      (confinedTo !== null && (old.namespace === null || !old.namespace.startsWith(confinedTo)))
    ) {
      return { status: "not_found" } as const;
    }
    if (old.deletedAt !== null) {
      return { status: "conflict", reason: "deleted" } as const;
    }
    if (old.supersededBy !== null) {
      return { status: "conflict", reason: "superseded" } as const;
    }
    const appended = await appendMemories(tx, userId, [item]);
    await tx
      .update(memories)
      .set({ supersededBy: item.id })
      .where(and(eq(memories.userId, userId), eq(memories.id, oldId)));
    return {
      status: "superseded",
      leafIndex: (appended.items[0] as { leafIndex: number }).leafIndex,
      size: appended.size,
    } as const;
  });
}

/**
 * Every version of the user's memory `id` (docs/protocol.md §4 "Updates"): the memories reached
 * from it through `supersedes` (older) and `superseded_by` (newer), itself included, in leaf
 * order (oldest first), deleted versions included (their bodies are null); one recursive
 * statement for the ids, one read of the rows. Empty when `id` is not the user's.
 */
export async function listMemoryVersions(
  db: Executor,
  userId: string,
  id: string,
): Promise<Memory[]> {
  const rows = await db.execute<{ id: string }>(sql`with recursive
      older(id, supersedes) as (
        select id, supersedes from memories where user_id = ${userId} and id = ${id}
        union
        select m.id, m.supersedes from memories m join older o on m.id = o.supersedes
        where m.user_id = ${userId}
      ),
      newer(id, superseded_by) as (
        select id, superseded_by from memories where user_id = ${userId} and id = ${id}
        union
        select m.id, m.superseded_by from memories m join newer n on m.id = n.superseded_by
        where m.user_id = ${userId}
      )
    select id from older union select id from newer`);
  const ids = [...rows].map((row) => row.id);
  if (ids.length === 0) {
    return [];
  }
  return db
    .select()
    .from(memories)
    .where(and(eq(memories.userId, userId), inArray(memories.id, ids)))
    .orderBy(asc(memories.leafIndex));
}

/**
 * Incremental cache refresh: the user's live memories with leaf index > `afterLeafIndex`, in
 * ascending leaf order, at most `limit` (default 1000). Pass -1 to start from the beginning and
 * then the last returned leaf index.
 * @throws RangeError when `afterLeafIndex` < -1 or `limit` is not in [1, 10 000].
 */
export async function listMemoriesSince(
  db: Executor,
  userId: string,
  afterLeafIndex: number,
  limit = 1000,
): Promise<Memory[]> {
  if (!Number.isSafeInteger(afterLeafIndex) || afterLeafIndex < -1) {
    throw new RangeError(`afterLeafIndex must be an integer >= -1, got ${afterLeafIndex}`);
  }
  if (!Number.isInteger(limit) || limit < 1 || limit > 10_000) {
    throw new RangeError(`limit must be an integer in [1, 10000], got ${limit}`);
  }
  return db
    .select()
    .from(memories)
    .where(
      and(
        eq(memories.userId, userId),
        gt(memories.leafIndex, afterLeafIndex),
        isNull(memories.deletedAt),
      ),
    )
    .orderBy(asc(memories.leafIndex))
    .limit(limit);
}

/**
 * Incremental cache refresh: the user's memories deleted at or after `since`, oldest deletion
 * first, as `{ id, leafIndex, deletedAt }`.
 */
export async function listDeletedSince(
  db: Executor,
  userId: string,
  since: Date,
): Promise<{ id: string; leafIndex: number; deletedAt: Date }[]> {
  const rows = await db
    .select({ id: memories.id, leafIndex: memories.leafIndex, deletedAt: memories.deletedAt })
    .from(memories)
    .where(
      and(
        eq(memories.userId, userId),
        isNotNull(memories.deletedAt),
        gte(memories.deletedAt, since),
      ),
    )
    .orderBy(asc(memories.deletedAt), asc(memories.leafIndex));
  return rows.map((r) => ({ id: r.id, leafIndex: r.leafIndex, deletedAt: r.deletedAt as Date }));
}

/**
 * Deletes the user's memory `id`: nulls its ciphertext and iv and sets `deletedAt`; the leaf hash,
 * leaf index and tree nodes stay, so roots and proofs stay valid (docs/protocol.md §5, §1). In the
 * same transaction, the recall segment holding the memory (docs/data-model.md "Recall segments")
 * is re-sealed without it by `reseal`, or dropped when no `reseal` is given, so no segment ever
 * keeps a deleted memory's content.
 * @param confinedTo the credential's namespace confinement (null: none): a memory outside it is
 *   not deleted.
 * @param reseal builds the covering segment again without the memory (given the segment row and
 *   the deleted memory's id).
 * @returns true when a live memory of `userId` was deleted; false when unknown, another user's,
 *   outside `confinedTo`, or already deleted.
 */
export async function deleteMemory(
  db: Executor,
  userId: string,
  id: string,
  now: Date = new Date(),
  confinedTo: string | null = null,
  reseal?: (segment: RecallSegmentRow, memoryId: string) => SealedSegment,
): Promise<boolean> {
  return db.transaction(async (tx) => {
    const [deleted] = await tx
      .update(memories)
      .set({ ciphertext: null, iv: null, deletedAt: now })
      .where(
        and(
          eq(memories.userId, userId),
          eq(memories.id, id),
          isNull(memories.deletedAt),
          confinedTo === null ? undefined : namespaceUnder(confinedTo),
        ),
      )
      .returning({ leafIndex: memories.leafIndex });
    if (!deleted) {
      return false;
    }
    if (reseal) {
      await resealRecallSegmentOf(tx, userId, deleted.leafIndex, (segment) => reseal(segment, id));
    } else {
      await dropRecallSegmentOf(tx, userId, deleted.leafIndex);
    }
    return true;
  });
}

/**
 * Number of leaves in the user's log, deleted memories included (their leaves stay): max(leaf
 * index) + 1 through the (user_id, leaf_index) unique index, O(log n). Equals the row count while
 * the leaf indices are contiguous, which checkTree verifies. The anchor service compares it with
 * the persisted tree size to detect a stale tree.
 */
export async function getLeafCount(db: Executor, userId: string): Promise<number> {
  const rows = await db
    .select({ last: max(memories.leafIndex) })
    .from(memories)
    .where(eq(memories.userId, userId));
  const last = rows[0]?.last;
  return last === null || last === undefined ? 0 : Number(last) + 1;
}

/** Pending (unanchored) leaves of one user. */
export interface PendingLeaves {
  /** Number of leaves with `anchored = false` (deleted ones included: their leaves stay). */
  readonly count: number;
  /** Creation time of the oldest of them; null when none. */
  readonly oldestCreatedAt: Date | null;
}

/** The user's unanchored leaves: count and oldest creation time (seal policy, docs/protocol.md §7). */
export async function getPendingLeaves(db: Executor, userId: string): Promise<PendingLeaves> {
  const rows = await db
    .select({ count: count(), oldestCreatedAt: min(memories.createdAt) })
    .from(memories)
    .where(and(eq(memories.userId, userId), eq(memories.anchored, false)));
  const row = rows[0];
  return { count: row?.count ?? 0, oldestCreatedAt: row?.oldestCreatedAt ?? null };
}

/** A user with unanchored leaves, as the anchor sweep needs it. */
export interface PendingUser extends PendingLeaves {
  readonly userId: string;
  /** The wallet key, base58 (seed of the commitment PDA). */
  readonly ownerPubkey: string;
}

/**
 * Service-wide (anchor service only): every user with unanchored leaves, with the count and the
 * oldest creation time, oldest first.
 */
export async function listUsersWithPendingLeaves(db: Executor): Promise<PendingUser[]> {
  const rows = await db
    .select({
      userId: memories.userId,
      ownerPubkey: users.ownerPubkey,
      count: count(),
      oldestCreatedAt: min(memories.createdAt),
    })
    .from(memories)
    .innerJoin(users, eq(users.id, memories.userId))
    .where(eq(memories.anchored, false))
    .groupBy(memories.userId, users.ownerPubkey)
    .orderBy(asc(min(memories.createdAt)));
  return rows.map((r) => ({ ...r, oldestCreatedAt: r.oldestCreatedAt ?? null }));
}

/**
 * Service-wide (metrics): creation time of the oldest unanchored leaf of any user, or null.
 */
export async function getOldestPendingCreatedAt(db: Executor): Promise<Date | null> {
  const rows = await db
    .select({ oldest: min(memories.createdAt) })
    .from(memories)
    .where(eq(memories.anchored, false));
  return rows[0]?.oldest ?? null;
}

/**
 * Marks the user's leaves with index < `upToLeafIndexExclusive` as anchored (after a commit of a
 * root of that size confirmed).
 * @returns the number of memories newly marked.
 * @throws RangeError when the bound is not a non-negative integer.
 */
export async function markAnchored(
  db: Executor,
  userId: string,
  upToLeafIndexExclusive: number,
): Promise<number> {
  if (!Number.isSafeInteger(upToLeafIndexExclusive) || upToLeafIndexExclusive < 0) {
    throw new RangeError(
      `upToLeafIndexExclusive must be a non-negative integer, got ${upToLeafIndexExclusive}`,
    );
  }
  const rows = await db
    .update(memories)
    .set({ anchored: true })
    .where(
      and(
        eq(memories.userId, userId),
        eq(memories.anchored, false),
        lt(memories.leafIndex, upToLeafIndexExclusive),
      ),
    )
    .returning({ id: memories.id });
  return rows.length;
}
