/**
 * The database half of the vitest global setup (@verifiable-memory/testkit's global-setup.ts
 * finds the server: DATABASE_URL, or an embedded PostgreSQL from @verifiable-memory/runtime).
 * It migrates ONE template database per run (a unique name, since several vitest runs may share a
 * server) that createTestDatabase copies, and drops the template and every test database of the
 * run at teardown.
 * Provides `inject("adminDatabaseUrl")`, `inject("templateDatabaseName")` and
 * `inject("testDatabasePrefix")` (declared in ./index.ts).
 * @module
 */
import { randomBytes } from "node:crypto";
import { migrateDatabase } from "../migrate.js";
import { databaseUrl, dropDatabase, withAdmin } from "./_admin.js";

/** Where the values are provided: vitest's TestProject (`project.provide`). */
export interface ProvideTarget {
  provide(
    key: "adminDatabaseUrl" | "templateDatabaseName" | "testDatabasePrefix",
    value: string,
  ): void;
}

/** The PostgreSQL server of a test run. */
export interface TestServer {
  /** URL of a database on it with the right to create databases. */
  readonly adminUrl: string;
  /** Called at teardown, after the run's databases are dropped. */
  stop(): Promise<void>;
}

/**
 * Creates and migrates the run's template database on `server`, provides the injected values to
 * `project`, and returns the teardown (drops the run's databases, then stops the server).
 */
export async function provideTestDatabases(
  project: ProvideTarget,
  server: TestServer,
): Promise<() => Promise<void>> {
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
