/**
 * core-api process: config → database (DATABASE_URL or the embedded PostgreSQL) → migrations →
 * app → HTTP server. Exits non-zero naming the variable when the config is invalid; on SIGINT or
 * SIGTERM stops accepting, finishes in-flight requests, closes the database.
 * @module
 */
import { serve } from "@hono/node-server";
import { systemClock } from "@svc/auth";
import { createDatabase, migrateDatabase, resolveDatabaseUrl } from "@svc/db-schema";
import pino from "pino";
import { createApp } from "./app.js";
import { ConfigError, loadConfig } from "./env.js";

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
const server = serve({ fetch: app.fetch, port: config.port }, (info) => {
  logger.info({ port: info.port }, "core-api listening");
});

let stopping = false;
async function shutdown(signal: string): Promise<void> {
  if (stopping) {
    return;
  }
  stopping = true;
  logger.info({ signal }, "core-api stopping");
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await database.close();
  await resolved.embedded?.stop();
  logger.info("core-api stopped");
  process.exit(0);
}
process.on("SIGINT", () => void shutdown("SIGINT"));
process.on("SIGTERM", () => void shutdown("SIGTERM"));
