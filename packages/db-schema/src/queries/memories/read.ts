/**
 * Reading memories, scoped to the user inside the SQL (docs/protocol.md §3.4 "Authorization"): one
 * by id, several by id, listings newest first, the versions of one memory, and the incremental
 * reads of a cache refresh.
 * @module
 */
import {
  and,
  asc,
  desc,
  eq,
  gt,
  gte,
  inArray,
  isNotNull,
  isNull,
  lt,
  type SQL,
  sql,
} from "drizzle-orm";
import type { Executor } from "../../client.js";
import { type Memory, memories } from "../../schema/memories.js";
import {
  decodeNumberCursor,
  encodeNumberCursor,
  type Page,
  type PageOptions,
  pageLimit,
  toPage,
} from "../_pagination.js";
import { builtOncePer } from "../_prepared.js";
import { likePrefix } from "../_sql.js";

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

/**
 * Every version of the user's memory `id` (docs/protocol.md §4.7 "Updates and history"): the
 * memories reached from it through `supersedes` (older) and `superseded_by` (newer), itself
 * included, in leaf order (oldest first), deleted versions included (their bodies are null); one
 * recursive statement for the ids, one read of the rows. Empty when `id` is not the user's.
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
