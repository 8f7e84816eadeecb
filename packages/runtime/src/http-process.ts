/**
 * The process around an HTTP app (core-api, extension-api): database (DATABASE_URL or the
 * embedded PostgreSQL in DATA_DIR) → migrations → start-up check → app → HTTP server; on SIGINT,
 * SIGTERM or SIGHUP it stops accepting, ends long-lived responses (`onStop`), finishes the requests
 * in flight, closes the database (and the embedded PostgreSQL it started), and exits 0. The server
 * refuses oversized headers (431) and slow requests (408 after 30 s) in the API's error shape
 * (@verifiable-memory/http-kit's server limits).
 * @module
 */
import type { Server } from "node:http";
import { serve } from "@hono/node-server";
import {
  createDatabase,
  type Database,
  handleShutdownSignals,
  migrateDatabase,
  resolveDatabaseUrl,
} from "@verifiable-memory/db-schema";
import { answerClientErrors, SERVER_OPTIONS, trackInFlight } from "@verifiable-memory/http-kit";
import type { Logger } from "pino";

/** A fetch handler as @hono/node-server serves it (an app's `fetch`). */
type ServedFetch = Parameters<typeof serve>[0]["fetch"];

/** How long a shutdown waits for the requests in flight before it closes the database. */
const SHUTDOWN_GRACE_MS = 15_000;

/** Options of {@link runHttpProcess}. */
export interface HttpProcessOptions {
  /** The app's name in log lines (`<name> listening`, `<name> stopped`). */
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
   * master key is configured). When it throws, the pool and the embedded PostgreSQL this process
   * started are closed and the error is rethrown: the process does not start.
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
 * Runs the app as this process's HTTP server until a shutdown signal, then drains and exits 0.
 * This is the only handler of SIGINT/SIGTERM/SIGHUP, also when the process started the embedded
 * PostgreSQL (whose own exit hooks would stop it under requests in flight).
 * @throws whatever the database, the migrations, `prepare` or `check` throw (the process should
 *   exit).
 */
export async function runHttpProcess(options: HttpProcessOptions): Promise<void> {
  const { logger, name } = options;
  const resolved = await resolveDatabaseUrl({
    databaseUrl: options.databaseUrl,
    dataDir: options.dataDir,
  });
  await migrateDatabase(resolved.url);
  await options.prepare?.();
  const database = createDatabase({ url: resolved.url, max: options.poolSize });
  try {
    await options.check?.(database.db);
  } catch (error) {
    await database.close();
    await resolved.close();
    throw error;
  }
  const requests = trackInFlight(options.app(database.db).fetch);
  const server = serve(
    { fetch: requests.fetch, port: options.port, serverOptions: SERVER_OPTIONS },
    (info) => {
      logger.info({ port: info.port }, `${name} listening`);
    },
  );
  answerClientErrors(server as Server);

  let stopping = false;
  const shutdown = async (signal: string): Promise<void> => {
    if (stopping) {
      return;
    }
    stopping = true;
    logger.info({ signal }, `${name} stopping`);
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
    await database.close();
    await resolved.embedded?.stop();
    logger.info(`${name} stopped`);
    process.exit(0);
  };
  handleShutdownSignals((signal) => void shutdown(signal));
}
