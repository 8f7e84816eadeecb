/**
 * The HTTP app of a service process (core-api, extension-api), started inside runService:
 * database (DATABASE_URL or the embedded PostgreSQL in DATA_DIR) → migrations → start-up check →
 * app → HTTP server; on shutdown it stops accepting, ends long-lived responses (`onStop`),
 * finishes the requests in flight, closes the database (and the embedded PostgreSQL it started),
 * in that order (shutdown hooks run in reverse registration order). The server
 * refuses oversized headers (431) and slow requests (408 after 30 s) in the API's error shape
 * (@verifiable-memory/http-kit's server limits).
 * @module
 */
import type { Server } from "node:http";
import { serve } from "@hono/node-server";
import { createDatabase, type Database, migrateDatabase } from "@verifiable-memory/db-schema";
import { answerClientErrors, SERVER_OPTIONS, trackInFlight } from "@verifiable-memory/http-kit";
import type { Logger } from "pino";
import { resolveDatabaseUrl } from "./embedded.js";
import type { ServiceContext } from "./shutdown.js";

/** A fetch handler as @hono/node-server serves it (an app's `fetch`). */
type ServedFetch = Parameters<typeof serve>[0]["fetch"];

/** How long a shutdown waits for the requests in flight before it closes the database. */
const SHUTDOWN_GRACE_MS = 15_000;

/** Options of {@link startHttpService}. */
export interface HttpServiceOptions {
  /** The app's name in log lines (`<name> listening`). */
  readonly name: string;
  readonly logger: Logger;
  readonly port: number;
  /** DATABASE_URL; undefined → the embedded PostgreSQL in `dataDir`. */
  readonly databaseUrl: string | undefined;
  readonly dataDir: string;
  /** Connections of the pool. */
  readonly poolSize: number;
  /** Builds the app's fetch handler over the migrated database (after `prepare`). */
  readonly app: (db: Database) => { fetch: ServedFetch };
  /** Work that must succeed before the server listens (e.g. bundling a page). */
  readonly prepare?: () => Promise<unknown>;
  /**
   * Checks the migrated database before the app is built (e.g. that every stored data key's
   * master key is configured). When it throws, the start-up fails: the pool and the embedded
   * PostgreSQL this process started are closed (their shutdown hooks) and the error is rethrown.
   */
  readonly check?: (db: Database) => Promise<unknown>;
  /**
   * Called when a shutdown begins, once the server stopped accepting connections and before the
   * wait for requests in flight: ends long-lived responses (such as Server-Sent Events streams)
   * that would otherwise hold the server open. An error it throws is logged; the shutdown goes on.
   */
  readonly onStop?: () => Promise<unknown> | unknown;
}

/**
 * Starts the app as this process's HTTP server inside runService's start-up, registering
 * its shutdown: the embedded PostgreSQL it started (stopped last), the pool, then the server
 * (stops accepting, `onStop`, waits up to 15 s for the requests in flight).
 * @throws whatever the database, the migrations, `prepare` or `check` throw (the start-up fails).
 */
export async function startHttpService(
  service: ServiceContext,
  options: HttpServiceOptions,
): Promise<void> {
  const { logger, name } = options;
  const resolved = await resolveDatabaseUrl({
    databaseUrl: options.databaseUrl,
    dataDir: options.dataDir,
  });
  service.onShutdown("embedded PostgreSQL", () => resolved.close());
  await migrateDatabase(resolved.url);
  await options.prepare?.();
  const database = createDatabase({ url: resolved.url, max: options.poolSize });
  service.onShutdown("database pool", () => database.close());
  await options.check?.(database.db);
  const requests = trackInFlight(options.app(database.db).fetch);
  const server = serve(
    { fetch: requests.fetch, port: options.port, serverOptions: SERVER_OPTIONS },
    (info) => {
      logger.info({ port: info.port }, `${name} listening`);
    },
  );
  answerClientErrors(server as Server);
  service.onShutdown("HTTP server", async () => {
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    try {
      await options.onStop?.();
    } catch (error) {
      logger.error({ err: error }, "ending long-lived responses failed");
    }
    if (!(await requests.idle(SHUTDOWN_GRACE_MS))) {
      logger.warn({ inFlight: requests.count() }, "requests still running after the grace period");
    }
    await closed;
  });
}
