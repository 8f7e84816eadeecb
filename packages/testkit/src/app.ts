/**
 * A real app over real HTTP for tests: @hono/node-server on 127.0.0.1, port 0, against a fresh
 * PostgreSQL database (db-schema's test databases) or another app's, with a {@link TestClock}
 * and a silent logger. Generic over the app: the caller passes its `loadConfig` and `createApp`
 * (a package never imports an app; tests above the apps, or an app's own tests, do).
 * @module
 */
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { TestClock } from "@verifiable-memory/clock";
import { createDatabase, type Database } from "@verifiable-memory/db-schema";
import { createTestDatabase } from "@verifiable-memory/db-schema/testing";
import pino, { type Logger } from "pino";
import { TEST_ENV } from "./env.js";

/** A fetch handler as @hono/node-server serves it (a hono app's `fetch`). */
export type TestFetch = Parameters<typeof serve>[0]["fetch"];

/** A server listening on 127.0.0.1. */
export interface TestServer {
  /** `http://127.0.0.1:<port>`. */
  readonly url: string;
  /** Stops accepting and waits for open connections to end. */
  close(): Promise<void>;
}

/** Serves `fetch` on 127.0.0.1 at a free port; resolves once it listens. */
export async function serveTestApp(fetch: TestFetch): Promise<TestServer> {
  const server = serve({ fetch, port: 0, hostname: "127.0.0.1" });
  await new Promise<void>((resolve) => server.once("listening", () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** What {@link startTestApp} gives the app's `createApp`. */
export interface TestAppDeps<C> {
  readonly db: Database;
  readonly config: C;
  readonly clock: TestClock;
  readonly logger: Logger;
}

/** The app to start: its config parser and its factory. */
export interface TestAppFactory<C, A extends { fetch: TestFetch }> {
  /** Parses the environment (throws on a bad one). */
  loadConfig(env: Record<string, string | undefined>): C;
  createApp(deps: TestAppDeps<C>): A;
}

/** A running test app. */
export interface TestApp<C, A> extends TestServer {
  readonly app: A;
  readonly db: Database;
  readonly sql: Awaited<ReturnType<typeof createTestDatabase>>["sql"];
  /** The database's URL, for another app (or process) on the same database. */
  readonly databaseUrl: string;
  readonly clock: TestClock;
  readonly config: C;
  readonly deps: TestAppDeps<C>;
}

/** Options of {@link startTestApp}. */
export interface StartTestAppOptions {
  readonly clock?: TestClock;
  /** Settings over {@link TEST_ENV}. */
  readonly env?: Record<string, string>;
  /** Run on this app's database (multi-instance tests) instead of a fresh one. */
  readonly shareDatabaseOf?: Pick<TestApp<unknown, unknown>, "db" | "sql" | "databaseUrl">;
  /** Run on this database through a pool of its own, as a second process would. */
  readonly databaseUrl?: string;
  /** Default: a silent logger. */
  readonly logger?: Logger;
}

/** The database of a test app and how to let go of it. */
interface TestAppDatabase {
  readonly db: Database;
  readonly sql: TestApp<unknown, unknown>["sql"];
  readonly databaseUrl: string;
  close(): Promise<void>;
}

/** A fresh database, another app's (left open), or a pool of our own on `databaseUrl`. */
async function openDatabase(options: StartTestAppOptions): Promise<TestAppDatabase> {
  if (options.shareDatabaseOf) {
    return { ...options.shareDatabaseOf, close: async () => {} };
  }
  if (options.databaseUrl !== undefined) {
    const pool = createDatabase({ url: options.databaseUrl, max: 10 });
    return { db: pool.db, sql: pool.sql, databaseUrl: options.databaseUrl, close: pool.close };
  }
  const fresh = await createTestDatabase();
  return { db: fresh.db, sql: fresh.sql, databaseUrl: fresh.url, close: fresh.close };
}

/**
 * Starts `factory`'s app on a fresh migrated database (or a shared one) with `TEST_ENV` plus
 * `options.env`; `close` stops the server and drops what this call created.
 * @throws whatever `loadConfig`, `createApp` or creating the database throws.
 */
export async function startTestApp<C, A extends { fetch: TestFetch }>(
  factory: TestAppFactory<C, A>,
  options: StartTestAppOptions = {},
): Promise<TestApp<C, A>> {
  const database = await openDatabase(options);
  const { db, sql, databaseUrl } = database;
  const clock = options.clock ?? new TestClock();
  const config = factory.loadConfig({ ...TEST_ENV, ...options.env });
  const deps: TestAppDeps<C> = {
    db,
    config,
    clock,
    logger: options.logger ?? pino({ level: "silent" }),
  };
  const app = factory.createApp(deps);
  const server = await serveTestApp(app.fetch);
  return {
    ...server,
    app,
    db,
    sql,
    databaseUrl,
    clock,
    config,
    deps,
    close: async () => {
      await server.close();
      await database.close();
    },
  };
}
