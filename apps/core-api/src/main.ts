/**
 * core-api process: config → database (DATABASE_URL or the embedded PostgreSQL) → migrations →
 * master-key check → app → HTTP server (@verifiable-memory/runtime's runHttpProcess). Exits 1 naming the
 * variable when the config is invalid, or naming the master key id when some stored data key is
 * wrapped under a key that is not configured; on SIGINT, SIGTERM or SIGHUP stops accepting, ends
 * the open `GET /events` streams, stops the background embedder (EMBEDDINGS), finishes in-flight
 * requests, closes the database.
 * @module
 */
import { systemClock } from "@verifiable-memory/clock";
import { createEmbeddingProvider } from "@verifiable-memory/embeddings";
import {
  checkMasterKeys,
  EventHub,
  MissingMasterKeyError,
  VectorIndexer,
} from "@verifiable-memory/memory";
import { createLogger, runHttpProcess } from "@verifiable-memory/runtime";
import { createApp } from "./app.js";
import { ConfigError, loadConfig } from "./env.js";

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

const logger = createLogger({ service: "core-api", level: config.logLevel });

/** The process's `GET /events` hub; closed on shutdown so open event streams end. */
let events: EventHub | undefined;
/** The background embedder (EMBEDDINGS); its passes stop on shutdown. */
let vectors: VectorIndexer | undefined;

try {
  await runHttpProcess({
    name: "core-api",
    logger,
    port: config.port,
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    poolSize: 16,
    check: async (db) => {
      const dataKeys = await checkMasterKeys(db, config.masterKeys);
      logger.info({ masterKeyId: config.masterKeys.current.id, dataKeys }, "master keys checked");
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
  });
} catch (error) {
  if (error instanceof MissingMasterKeyError) {
    console.error(error.message);
    process.exit(1);
  }
  throw error;
}
