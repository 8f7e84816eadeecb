/**
 * Small SQL fragments shared by the query modules.
 * @module
 */
import { type SQL, sql } from "drizzle-orm";

/**
 * A Date as a `timestamptz` parameter inside a raw `sql` fragment. Raw fragments bypass column
 * encoders, so the value is sent as ISO 8601 text with an explicit cast.
 */
export function timestamptz(date: Date): SQL {
  return sql`${date.toISOString()}::timestamptz`;
}

/**
 * The LIKE pattern "starts with `prefix`": `%`, `_` and `\\` escaped (PostgreSQL's default
 * escape character), then `%`.
 */
export function likePrefix(prefix: string): string {
  return `${prefix.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}
