/**
 * core-api process: config → database (DATABASE_URL or the embedded PostgreSQL) → migrations →
 * app → HTTP server. Exits non-zero naming the variable when the config is invalid; on SIGINT,
 * SIGTERM or SIGHUP stops accepting, finishes in-flight requests, closes the database.
 * @module
 */
import { serve } from "@hono/node-server";
import { systemClock } from "@svc/auth";
import {
  createDatabase,
  handleShutdownSignals,
  migrateDatabase,
  resolveDatabaseUrl,
} from "@svc/db-schema";
import pino from "pino";
import { createApp } from "./app.js";
import { ConfigError, loadConfig } from "./env.js";
import { trackInFlight } from "./in-flight.js";

const logger = pino({ name: "core-api" });

let config: ReturnType<typeof loadConfig>;
try {
  config = loadConfig(process.env);
} catch (error) {
  if (error instanceof ConfigError) {
    console.error(error.message);
    process.exit(1);
  }
  throw error;
}

const resolved = await resolveDatabaseUrl({
  databaseUrl: config.databaseUrl,
  dataDir: config.dataDir,
});
await migrateDatabase(resolved.url);
const database = createDatabase({ url: resolved.url, max: 16 });
const app = createApp({ db: database.db, config, clock: systemClock, logger });
const requests = trackInFlight(app.fetch);
const server = serve({ fetch: requests.fetch, port: config.port }, (info) => {
  logger.info({ port: info.port }, "core-api listening");
});

/** How long a shutdown waits for the requests in flight before it closes the database. */
const SHUTDOWN_GRACE_MS = 15_000;

let stopping = false;
async function shutdown(signal: string): Promise<void> {
  if (stopping) {
    return;
  }
  stopping = true;
  logger.info({ signal }, "core-api stopping");
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  if (!(await requests.idle(SHUTDOWN_GRACE_MS))) {
    logger.warn({ inFlight: requests.count() }, "requests still running after the grace period");
  }
  await closed;
  await database.close();
  await resolved.embedded?.stop();
  logger.info("core-api stopped");
  process.exit(0);
}
// The only handler of SIGINT/SIGTERM/SIGHUP, also when this process started the embedded
// PostgreSQL (whose own exit hooks would stop it before the requests in flight are finished).
handleShutdownSignals((signal) => void shutdown(signal));
