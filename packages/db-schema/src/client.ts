/**
 * Database handle: drizzle over postgres.js with the schema and snake_case casing.
 * Each app builds its own handle from its configured URL; this package never holds a connection.
 * @module
 */
import { drizzle, type PostgresJsDatabase } from "drizzle-orm/postgres-js";
import postgres from "postgres";
import * as schema from "./schema/index.js";

/** The drizzle database type of this schema. */
export type Database = PostgresJsDatabase<typeof schema>;

/** A transaction opened by `db.transaction(async (tx) => …)`. */
export type Transaction = Parameters<Parameters<Database["transaction"]>[0]>[0];

/** Anything a query function can run on: the database or an open transaction. */
export type Executor = Database | Transaction;

/** A database handle with its postgres.js pool. */
export interface DatabaseHandle {
  /** The drizzle database (schema, snake_case casing). */
  readonly db: Database;
  /** The underlying postgres.js client (for raw SQL and pool control). */
  readonly sql: postgres.Sql;
  /** Closes every connection of the pool (waits up to 5 s for running queries). */
  close(): Promise<void>;
}

/** Options of {@link createDatabase}. */
export interface CreateDatabaseOptions {
  /** PostgreSQL connection URL (`postgres://user:password@host:port/database`). */
  readonly url: string;
  /** Pool size (connections); default 10. */
  readonly max?: number;
}

/**
 * Opens a pooled connection to `url` (connections are made lazily, on first query).
 * @returns `{ db, sql, close }`.
 * @throws TypeError when `url` is not a postgres:// or postgresql:// URL.
 * @throws RangeError when `max` is not a positive integer.
 * @example const { db, close } = createDatabase({ url: process.env.DATABASE_URL });
 */
export function createDatabase(options: CreateDatabaseOptions): DatabaseHandle {
  const { url, max = 10 } = options;
  if (typeof url !== "string" || !/^postgres(ql)?:\/\//.test(url)) {
    throw new TypeError("url must be a postgres:// or postgresql:// connection URL");
  }
  if (!Number.isInteger(max) || max < 1) {
    throw new RangeError(`max must be a positive integer, got ${max}`);
  }
  const sql = postgres(url, { max, onnotice: () => {} });
  const db = drizzle({ client: sql, schema, casing: "snake_case" });
  return { db, sql, close: () => sql.end({ timeout: 5 }) };
}
