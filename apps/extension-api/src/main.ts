/**
 * extension-api process: config → database (DATABASE_URL or the embedded PostgreSQL) →
 * migrations → connect page bundle → master-key check → app → HTTP server on EXTENSION_PORT
 * (@verifiable-memory/runtime's runService and startHttpService). Exits 1 naming every bad
 * variable when the config is invalid (configErrorExit), or naming the master key id when some
 * stored data key is wrapped under a key that is not configured (a failed start-up); on SIGINT, SIGTERM or SIGHUP stops accepting, finishes in-flight requests, closes
 * the database.
 * @module
 */
import { systemClock } from "@verifiable-memory/clock";
import { checkMasterKeys } from "@verifiable-memory/memory";
import {
  createLogger,
  loadServiceConfig,
  runService,
  startHttpService,
} from "@verifiable-memory/runtime";
import { createApp } from "./app.js";
import { connectScript } from "./connect-page.js";
import { loadConfig } from "./env.js";

const config = loadServiceConfig("extension-api", () => loadConfig(process.env));

const logger = createLogger({ service: "extension-api", level: config.logLevel });

await runService({
  name: "extension-api",
  logger,
  start: (service) =>
    startHttpService(service, {
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
    }),
});
