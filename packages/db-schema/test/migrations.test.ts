/**
 * Migrations: the committed drizzle-kit SQL applies to an empty database, re-running is a no-op,
 * and two concurrent migrateDatabase calls (advisory lock) both succeed and apply it once.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { MIGRATIONS_FOLDER, migrateDatabase, pendingMigrations } from "../src/index.js";
import { createTestDatabase, type TestDatabase } from "../src/testing/index.js";

const journal = JSON.parse(readFileSync(join(MIGRATIONS_FOLDER, "meta/_journal.json"), "utf8")) as {
  entries: unknown[];
};

const TABLES = [
  "anchored_checkpoints",
  "api_keys",
  "capability_grants",
  "checkpoint_log_cosignatures",
  "checkpoint_log_entries",
  "checkpoint_log_heads",
  "checkpoint_log_nodes",
  "commit_batches",
  "extension_sessions",
  "grant_audit",
  "memories",
  "memory_events",
  "memory_vectors",
  "merkle_nodes",
  "recall_segments",
  "recall_vector_segments",
  "sign_in_nonces",
  "stake_lots",
  "trees",
  "users",
];

let current: TestDatabase | null = null;
afterEach(async () => {
  await current?.close();
  current = null;
});

async function appliedMigrations(t: TestDatabase): Promise<number> {
  const rows = await t.sql<{ n: string }[]>`select count(*) as n from drizzle.__drizzle_migrations`;
  return Number(rows[0]?.n);
}

async function publicTables(t: TestDatabase): Promise<string[]> {
  const rows = await t.sql<{ table_name: string }[]>`
    select table_name from information_schema.tables
    where table_schema = 'public' order by table_name`;
  return rows.map((r) => r.table_name);
}

describe("migrateDatabase", () => {
  it("applies every migration to an empty database, and again is a no-op", async () => {
    current = await createTestDatabase({ empty: true, max: 1 });
    expect(await publicTables(current)).toEqual([]);
    expect(await pendingMigrations(current.db)).toBe(journal.entries.length);
    await migrateDatabase(current.url);
    expect(await pendingMigrations(current.db)).toBe(0);
    expect(await publicTables(current)).toEqual(TABLES);
    expect(await appliedMigrations(current)).toBe(journal.entries.length);
    await migrateDatabase(current.url);
    expect(await appliedMigrations(current)).toBe(journal.entries.length);
  });

  it("two concurrent migrations on a fresh database both succeed and apply once", async () => {
    current = await createTestDatabase({ empty: true, max: 1 });
    const results = await Promise.allSettled([
      migrateDatabase(current.url),
      migrateDatabase(current.url),
    ]);
    expect(results.map((r) => r.status)).toEqual(["fulfilled", "fulfilled"]);
    expect(await publicTables(current)).toEqual(TABLES);
    expect(await appliedMigrations(current)).toBe(journal.entries.length);
  });

  it("the template-copied test database carries the same schema", async () => {
    current = await createTestDatabase({ max: 1 });
    expect(await publicTables(current)).toEqual(TABLES);
    expect(await appliedMigrations(current)).toBe(journal.entries.length);
    expect(await pendingMigrations(current.db)).toBe(0);
    await current.sql`delete from drizzle.__drizzle_migrations`;
    expect(await pendingMigrations(current.db)).toBe(journal.entries.length);
  });
});
