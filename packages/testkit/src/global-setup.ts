/**
 * Vitest global setup (vitest.config.ts): gives every test run a real PostgreSQL.
 * DATABASE_URL when set; otherwise an embedded PostgreSQL (@verifiable-memory/runtime's
 * startEmbeddedPostgres) started in a temporary data directory for this run and removed
 * afterwards. The template database and the injected values come from
 * @verifiable-memory/db-schema's provideTestDatabases.
 * @module
 */
import { chmod, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  provideTestDatabases,
  type TestServer,
} from "@verifiable-memory/db-schema/testing/global-setup";
import { startEmbeddedPostgres } from "@verifiable-memory/runtime";
import type { TestProject } from "vitest/node";

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  return provideTestDatabases(project, await testServer());
}

/** DATABASE_URL, or a fresh embedded server in a temporary directory. */
async function testServer(): Promise<TestServer> {
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
