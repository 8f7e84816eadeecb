/**
 * The namespaces of a user's memories with their counts (docs/protocol.md §4.6 "Namespaces";
 * `GET /namespaces`): one grouped read of the live, current memories, filtered by prefix and
 * confinement in the SQL and keyset-paginated by name.
 * @module
 */
import { and, count, eq, gt, isNull, max, type SQL, sql } from "drizzle-orm";
import type { Executor } from "../client.js";
import { memories } from "../schema/memories.js";
import {
  decodeTextCursor,
  encodeTextCursor,
  type Page,
  type PageOptions,
  pageLimit,
  toPage,
} from "./_pagination.js";
import { likePrefix } from "./_sql.js";

/** One namespace of a user's memories. */
export interface NamespaceCount {
  /** The namespace; null for the memories written without one. */
  readonly namespace: string | null;
  /** Live (undeleted), current (not superseded) memories in it. */
  readonly count: number;
  /** Creation time of the newest of them. */
  readonly lastWrittenAt: Date;
}

/** Filters of {@link listNamespaces}. */
export interface NamespaceListOptions extends PageOptions {
  /** Only namespaces starting with this (the null namespace is then left out). */
  readonly prefix?: string | undefined;
  /**
   * The credential's confinement: only namespaces starting with this; the null namespace is
   * outside every confinement (docs/protocol.md §3.5). Null or absent: none.
   */
  readonly confinedTo?: string | null | undefined;
}

const KIND = "namespaces";

/**
 * The user's namespaces with the number of live, current memories in each, sorted by name (the
 * null namespace first), `limit` per page (default 50). The cursor is the last name of the
 * previous page.
 * @throws RangeError on a bad `limit`; InvalidCursorError on a cursor of another list.
 */
export async function listNamespaces(
  db: Executor,
  userId: string,
  options: NamespaceListOptions = {},
): Promise<Page<NamespaceCount>> {
  const limit = pageLimit(options.limit);
  const after = options.cursor ? decodeTextCursor(KIND, options.cursor) : undefined;
  const under = (prefix: string): SQL => sql`${memories.namespace} like ${likePrefix(prefix)}`;
  const rows = await db
    .select({
      namespace: memories.namespace,
      count: count(),
      lastWrittenAt: max(memories.createdAt),
    })
    .from(memories)
    .where(
      and(
        eq(memories.userId, userId),
        isNull(memories.deletedAt),
        isNull(memories.supersededBy),
        options.prefix === undefined ? undefined : under(options.prefix),
        options.confinedTo == null ? undefined : under(options.confinedTo),
        // The null namespace sorts first: a cursor (always a name or null) moves past it.
        after === undefined
          ? undefined
          : after === null
            ? sql`${memories.namespace} is not null`
            : gt(memories.namespace, after),
      ),
    )
    .groupBy(memories.namespace)
    .orderBy(sql`${memories.namespace} asc nulls first`)
    .limit(limit + 1);
  const items = rows.map((row) => ({
    namespace: row.namespace,
    count: row.count,
    lastWrittenAt: row.lastWrittenAt as Date,
  }));
  return toPage(items, limit, (last) => encodeTextCursor(KIND, last.namespace));
}
