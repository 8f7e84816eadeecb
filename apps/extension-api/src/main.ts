/**
 * extension-api process: config → database (DATABASE_URL or the embedded PostgreSQL) →
 * migrations → connect page bundle → master-key check → app → HTTP server on EXTENSION_PORT
 * (@verifiable-memory/runtime's runHttpProcess). Exits 1 naming the variable when the config is invalid, or
 * naming the master key id when some stored data key is wrapped under a key that is not
 * configured; on SIGINT, SIGTERM or SIGHUP stops accepting, finishes in-flight requests, closes
 * the database.
 * @module
 */
import { ConfigError } from "@verifiable-memory/app-config";
import { systemClock } from "@verifiable-memory/clock";
import { checkMasterKeys, MissingMasterKeyError } from "@verifiable-memory/memory";
import { createLogger, runHttpProcess } from "@verifiable-memory/runtime";
import { createApp } from "./app.js";
import { connectScript } from "./connect-page.js";
import { loadConfig } from "./env.js";

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

const logger = createLogger({ service: "extension-api", level: config.logLevel });

try {
  await runHttpProcess({
    name: "extension-api",
    logger,
    port: config.port,
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    poolSize: 8,
    // The connect page's script is bundled before the first request (a failure stops here).
    prepare: connectScript,
    check: async (db) => {
      const dataKeys = await checkMasterKeys(db, config.masterKeys);
      logger.info({ masterKeyId: config.masterKeys.current.id, dataKeys }, "master keys checked");
    },
    app: (db) => createApp({ db, config, clock: systemClock, logger }),
  });
} catch (error) {
  if (error instanceof MissingMasterKeyError) {
    console.error(error.message);
    process.exit(1);
  }
  throw error;
}
