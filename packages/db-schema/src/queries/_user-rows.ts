/**
 * Query pieces shared by the tables of per-user credentials (API keys, capability grants,
 * extension sessions): the newest-first keyset page over `(created_at, id)` (docs/protocol.md
 * §1.6 "Content limits and pagination") and the idempotent revocation of one of the user's rows.
 * @module
 */
import { and, desc, eq, type SQL, sql } from "drizzle-orm";
import type { PgColumn, PgTable, PgUpdateSetSource } from "drizzle-orm/pg-core";
import type { Executor } from "../client.js";
import {
  decodeTimeCursor,
  encodeTimeCursor,
  type Page,
  type PageOptions,
  pageLimit,
  toPage,
} from "./_pagination.js";
import { timestamptz } from "./_sql.js";

/** The keyset of a newest-first list: its `created_at` and `id` columns. */
export interface NewestFirstColumns {
  readonly createdAt: PgColumn;
  readonly id: PgColumn;
}

/** The parts of a newest-first page query built by {@link newestFirstPage}. */
export interface NewestFirstPage {
  /** The condition "older than the cursor's row" (undefined on the first page), for `and(...)`. */
  readonly after: SQL | undefined;
  /** `created_at desc, id desc`, for `orderBy(...)`. */
  readonly orderBy: readonly [SQL, SQL];
  /** The rows to fetch: the page size + 1 (the extra row tells whether a next page exists). */
  readonly fetch: number;
  /** The fetched rows as a page, its `nextCursor` built from the last item kept. */
  page<T extends { readonly createdAt: Date; readonly id: string }>(rows: T[]): Page<T>;
}

/**
 * A newest-first keyset page over `columns` for the list `kind` (the cursor's tag).
 * @throws RangeError on a bad `options.limit`; InvalidCursorError on a cursor of another list.
 */
export function newestFirstPage(
  kind: string,
  columns: NewestFirstColumns,
  options: PageOptions,
): NewestFirstPage {
  const limit = pageLimit(options.limit);
  const cursor = options.cursor ? decodeTimeCursor(kind, options.cursor) : null;
  return {
    after: cursor
      ? sql`(${columns.createdAt}, ${columns.id}) < (${timestamptz(cursor.createdAt)}, ${cursor.id})`
      : undefined,
    orderBy: [desc(columns.createdAt), desc(columns.id)],
    fetch: limit + 1,
    page: (rows) => toPage(rows, limit, (last) => encodeTimeCursor(kind, last.createdAt, last.id)),
  };
}

/** A table of per-user rows that can be revoked: its `user_id`, `id` and `revoked_at` columns. */
export type RevocableTable = PgTable & {
  readonly userId: PgColumn;
  readonly id: PgColumn;
  readonly revokedAt: PgColumn;
};

/**
 * Revokes the user's row `id` of `table` at `now`; idempotent (a row already revoked keeps its
 * first `revoked_at`).
 * @returns true when the row exists and belongs to `userId` (revoked now or before), else false.
 */
export async function revokeUserRow(
  db: Executor,
  table: RevocableTable,
  userId: string,
  id: string,
  now: Date,
): Promise<boolean> {
  const revoked = { revokedAt: sql`coalesce(${table.revokedAt}, ${timestamptz(now)})` };
  const rows = await db
    .update(table)
    .set(revoked as PgUpdateSetSource<RevocableTable>)
    .where(and(eq(table.userId, userId), eq(table.id, id)))
    .returning({ id: table.id });
  return rows.length === 1;
}
