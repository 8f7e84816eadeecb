/**
 * Applies the committed drizzle-kit migrations (packages/db-schema/drizzle) with drizzle's
 * migrator, serialised across processes by a PostgreSQL advisory lock so that several apps
 * starting at once against one database apply each migration exactly once.
 * @module
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { sql as rawSql } from "drizzle-orm";
import { drizzle } from "drizzle-orm/postgres-js";
import { migrate } from "drizzle-orm/postgres-js/migrator";
import postgres from "postgres";
import type { Executor } from "./client.js";

/** Absolute path of the committed SQL migrations. */
export const MIGRATIONS_FOLDER = fileURLToPath(new URL("../drizzle", import.meta.url));

/**
 * Key of the session-level advisory lock held while migrating (an arbitrary fixed int8,
 * 0x5356_435f_4d49 = "SVC_MI"); other users of advisory locks in this database must avoid it.
 */
export const MIGRATION_LOCK_KEY = 0x5356_435f_4d49;

/**
 * Brings the database at `url` to the latest schema. On a dedicated single connection it takes
 * `pg_advisory_lock(MIGRATION_LOCK_KEY)` (waiting while another process migrates), runs drizzle's
 * `migrate()` (which skips migrations already recorded in drizzle.__drizzle_migrations, and
 * applies the rest in one transaction), then unlocks and closes the connection.
 * @param url PostgreSQL connection URL of the application database.
 * @throws the PostgreSQL error of a failing migration (the transaction is rolled back).
 */
export async function migrateDatabase(url: string): Promise<void> {
  // max 1: the lock, the migration and the unlock all run on the same session.
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    await sql`select pg_advisory_lock(${MIGRATION_LOCK_KEY}::bigint)`;
    try {
      await migrate(drizzle({ client: sql }), { migrationsFolder: MIGRATIONS_FOLDER });
    } finally {
      await sql`select pg_advisory_unlock(${MIGRATION_LOCK_KEY}::bigint)`;
    }
  } finally {
    await sql.end({ timeout: 5 });
  }
}

/**
 * Number of committed migrations not yet applied to the database of `db`: those whose journal
 * time (`meta/_journal.json` `when`) is later than the newest `created_at` in
 * `drizzle.__drizzle_migrations`, the rule drizzle's migrator applies. 0 means the schema is
 * current (a readiness check); every migration is pending when the bookkeeping table is absent.
 * @throws the PostgreSQL error when the database is unreachable.
 */
export async function pendingMigrations(db: Executor): Promise<number> {
  const journal = JSON.parse(
    readFileSync(join(MIGRATIONS_FOLDER, "meta/_journal.json"), "utf8"),
  ) as { entries: { when: number }[] };
  const table = await db.execute<{ present: boolean }>(
    rawSql`select to_regclass('drizzle.__drizzle_migrations') is not null as present`,
  );
  if (!table[0]?.present) {
    return journal.entries.length;
  }
  const rows = await db.execute<{ last: string | null }>(
    rawSql`select max(created_at)::text as last from drizzle.__drizzle_migrations`,
  );
  const last = rows[0]?.last == null ? -1 : Number(rows[0].last);
  return journal.entries.filter((entry) => entry.when > last).length;
}
