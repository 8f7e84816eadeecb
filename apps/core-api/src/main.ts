/**
 * core-api process: config → database (DATABASE_URL or the embedded PostgreSQL) → migrations →
 * master-key check → sealing of grant queries left in clear → app → HTTP server (@verifiable-memory/runtime's runService and
 * startHttpService). Exits 1 naming every bad variable when the config is invalid (configErrorExit),
 * or naming the master key id when some stored data key is wrapped under a key that is not
 * configured (a failed start-up); on SIGINT, SIGTERM or SIGHUP stops accepting, ends
 * the open `GET /events` streams, stops the background embedder (EMBEDDINGS), finishes in-flight
 * requests, closes the database.
 * @module
 */
import { systemClock } from "@verifiable-memory/clock";
import { createEmbeddingProvider } from "@verifiable-memory/embeddings";
import { checkMasterKeys, DataKeys, EventHub, VectorIndexer } from "@verifiable-memory/memory";
import {
  createLogger,
  loadServiceConfig,
  runService,
  startHttpService,
} from "@verifiable-memory/runtime";
import { createApp } from "./app.js";
import { loadConfig } from "./env.js";
import { sealClearGrantQueries } from "./services/grant-queries.js";

const config = loadServiceConfig("core-api", () => loadConfig(process.env));

const logger = createLogger({ service: "core-api", level: config.logLevel });

/** The process's `GET /events` hub; closed on shutdown so open event streams end. */
let events: EventHub | undefined;
/** The background embedder (EMBEDDINGS); its passes stop on shutdown. */
let vectors: VectorIndexer | undefined;

await runService({
  name: "core-api",
  logger,
  start: (service) =>
    startHttpService(service, {
      name: "core-api",
      logger,
      port: config.port,
      databaseUrl: config.databaseUrl,
      dataDir: config.dataDir,
      poolSize: 16,
      check: async (db) => {
        const dataKeys = await checkMasterKeys(db, config.masterKeys);
        logger.info({ masterKeyId: config.masterKeys.current.id, dataKeys }, "master keys checked");
        const grantQueries = await sealClearGrantQueries(db, new DataKeys(config.masterKeys));
        logger.info({ grantQueries }, "grant queries stored in clear sealed");
      },
      app: (db) => {
        events = new EventHub({ db, logger });
        if (config.embeddings !== null) {
          vectors = new VectorIndexer({
            db,
            provider: createEmbeddingProvider(config.embeddings),
            masterKeys: config.masterKeys,
            namespaces: config.embeddings.namespaces,
            batchSize: config.embeddings.batchSize,
            onError: (error) => logger.warn({ err: error }, "background embedding failed"),
          });
          if (config.embeddingsPassIntervalMs > 0) {
            vectors.startPasses(config.embeddingsPassIntervalMs);
          }
        }
        return createApp({
          db,
          config,
          clock: systemClock,
          logger,
          events,
          ...(vectors === undefined ? {} : { vectors }),
        });
      },
      onStop: () => {
        vectors?.close();
        return events?.close();
      },
    }),
});
