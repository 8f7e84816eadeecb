/**
 * Test support (entry point `@verifiable-memory/db-schema/testing`): a fresh, migrated PostgreSQL database per
 * test file, copied from the template database that the vitest global setup migrates once per run
 * (global-setup.ts). Real PostgreSQL, never a mock.
 * @module
 */
import { randomBytes } from "node:crypto";
import type postgres from "postgres";
import { inject } from "vitest";
import { createDatabase, type Database } from "../client.js";
import { databaseUrl, dropDatabase, withAdmin } from "./_admin.js";

declare module "vitest" {
  export interface ProvidedContext {
    /** Admin URL of the test PostgreSQL server (DATABASE_URL or the embedded server). */
    adminDatabaseUrl: string;
    /** Migrated template database of this run; test databases are copies of it. */
    templateDatabaseName: string;
    /** Name prefix of this run's test databases (dropped together at teardown). */
    testDatabasePrefix: string;
  }
}

/** A test database and a handle on it. */
export interface TestDatabase {
  /** Database name (unique per call). */
  readonly name: string;
  /** Connection URL of the database. */
  readonly url: string;
  /** Drizzle handle (pool of `max` connections). */
  readonly db: Database;
  /** The underlying postgres.js client. */
  readonly sql: postgres.Sql;
  /** Closes the pool and drops the database. */
  close(): Promise<void>;
}

/** Options of {@link createTestDatabase}. */
export interface TestDatabaseOptions {
  /** Pool size of the handle; default 10. */
  readonly max?: number;
  /** Create an empty database (no schema) instead of a copy of the migrated template. */
  readonly empty?: boolean;
}

/**
 * Creates a fresh database for a test file: `CREATE DATABASE … TEMPLATE <run template>` (a file
 * copy, far faster than migrating), or an empty one with `empty: true`. Call `close()` in
 * afterAll; databases left behind are dropped by the global teardown.
 * Requires the root vitest config's global setup (packages/db-schema/src/testing/global-setup.ts).
 * @returns `{ name, url, db, sql, close }`.
 */
export async function createTestDatabase(options: TestDatabaseOptions = {}): Promise<TestDatabase> {
  const adminUrl = inject("adminDatabaseUrl");
  const name = `${inject("testDatabasePrefix")}${randomBytes(5).toString("hex")}`;
  const template = options.empty ? "template1" : inject("templateDatabaseName");
  await withAdmin(adminUrl, (sql) =>
    sql.unsafe(`create database "${name}" template "${template}"`),
  );
  const url = databaseUrl(adminUrl, name);
  const handle = createDatabase({ url, max: options.max ?? 10 });
  return {
    name,
    url,
    db: handle.db,
    sql: handle.sql,
    close: async () => {
      await handle.close();
      await dropDatabase(adminUrl, name);
    },
  };
}
