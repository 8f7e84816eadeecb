/**
 * Server-side prepared statements for the hot queries (append, proof, recall), without drizzle's
 * query building or result mapping. drizzle's `execute` sends every statement unnamed: parse +
 * describe, wait, then bind + execute (two round trips, and postgres.js sends nothing else on the
 * connection meanwhile). A prepared statement with a fixed text is parsed once per connection, then
 * costs one message and one round trip, and postgres.js pipelines it behind other queries.
 * Rows come back through postgres.js's parsers as drizzle's postgres-js driver leaves them: bytea
 * as Buffer, int2/int4/float as number, bool as boolean, json/jsonb parsed, int8 and numeric as
 * decimal strings, timestamps as PostgreSQL text (drizzle turns those parsers off), NULL as null.
 * Internal to queries/*.ts; not part of the package surface.
 * @module
 */
import type { Query, SQL } from "drizzle-orm";
import { PgDialect } from "drizzle-orm/pg-core";
import type postgres from "postgres";
import type { Executor } from "../client.js";

/**
 * Renders drizzle `sql` fragments to text + parameters. Only for raw statements whose
 * identifiers are spelled out in snake_case.
 */
const dialect = new PgDialect({ casing: "snake_case" });

/**
 * Runs `query` on `db` (a database or an open transaction) as a server-side prepared statement.
 * @param name a label (drizzle prepares only named queries; postgres.js keys them by text).
 * @returns the rows (empty for a statement without RETURNING).
 * @throws drizzle's DrizzleQueryError whose `cause` is the PostgreSQL error.
 */
export async function runPrepared<Row>(db: Executor, name: string, query: SQL): Promise<Row[]> {
  return executePrepared<Row>(db, name, dialect.sqlToQuery(query));
}

/** Executes a rendered query (text + parameters) as a prepared statement named `name`. */
function executePrepared<Row>(db: Executor, name: string, query: Query): Promise<Row[]> {
  return db._.session
    .prepareQuery<{ execute: Row[]; all: unknown; values: unknown }>(query, undefined, name, false)
    .execute();
}

/** A bound parameter of {@link rawQuery}: text, or a number sent as text. */
export type RawParam = string | number;

/**
 * Runs `text` (SQL with `$1`…`$n` placeholders bound to `params`) as a prepared statement on
 * `db` (a database or an open transaction); see {@link runPrepared}. The text goes to PostgreSQL
 * as it is (drizzle renders nothing), so a hot statement costs no query building per call.
 * @throws drizzle's DrizzleQueryError whose `cause` is the PostgreSQL error.
 */
export function rawQuery<T extends Record<string, unknown>>(
  db: Executor,
  text: string,
  params: readonly RawParam[],
): Promise<T[]> {
  return executePrepared<T>(db, text, { sql: text, params: [...params] });
}

/**
 * The postgres.js client of a database built by drizzle's postgres-js driver (`db.$client`), for
 * what drizzle cannot do (streaming rows); null for a transaction (drizzle exposes none on it).
 */
export function clientOf(db: Executor): postgres.Sql | null {
  const client = (db as { $client?: unknown }).$client;
  return typeof client === "function" && "unsafe" in client ? (client as postgres.Sql) : null;
}

/** A bytea column read as a fresh Uint8Array (never Buffer pool memory). */
export function bytesOf(value: unknown): Uint8Array {
  if (!(value instanceof Uint8Array)) {
    throw new TypeError(`expected bytea, got ${typeof value}`);
  }
  return new Uint8Array(value);
}

/**
 * Memoizes a drizzle prepared query per executor: `build(db)` runs on the first call with `db`
 * and its result is returned for every later call with the same `db` (a database or an open
 * transaction; held weakly). For the hot lookups run on every request, so that drizzle builds
 * their SQL once (`sql.placeholder` for the values) instead of on every call.
 */
export function builtOncePer<Query>(build: (db: Executor) => Query): (db: Executor) => Query {
  const built = new WeakMap<Executor, Query>();
  return (db) => {
    let query = built.get(db);
    if (query === undefined) {
      query = build(db);
      built.set(db, query);
    }
    return query;
  };
}
