/**
 * Entry point of the anchor service (`tsx apps/anchor-service/src/main.ts`): configuration →
 * database (the embedded PostgreSQL when DATABASE_URL is unset) → migrations → chain client →
 * metrics server and the anchor worker (docs/protocol.md §7, §10, §7). SIGINT/SIGTERM finish the
 * running sweep, release the leader lock and close everything.
 * @module
 */
import { serve } from "@hono/node-server";
import { type ConfigError, type LogKey, loadLogKey } from "@verifiable-memory/app-config";
import { ChainClient, loadKeypairFile } from "@verifiable-memory/chain-commit";
import {
  createDatabase,
  handleShutdownSignals,
  migrateDatabase,
  resolveDatabaseUrl,
} from "@verifiable-memory/db-schema";
import { createLogger } from "@verifiable-memory/runtime";
import { createApp } from "./app.js";
import { appendUserCheckpoints } from "./checkpoint-log.js";
import { loadEnv } from "./env.js";
import { createLeaderLock } from "./leader-lock.js";
import { runMaintenance } from "./maintenance.js";
import { createMetrics } from "./metrics.js";
import { runSweep, type UserAnchorState } from "./sweep.js";
import { startWorker } from "./worker.js";

const env = loadEnv(process.env);
const logger = createLogger({ service: "anchor-service", level: env.LOG_LEVEL });

let authority: ReturnType<typeof loadKeypairFile>;
try {
  authority = loadKeypairFile(env.AUTHORITY_KEYPAIR_PATH);
} catch (error) {
  process.stderr.write(`anchor-service: AUTHORITY_KEYPAIR_PATH: ${(error as Error).message}\n`);
  process.exit(1);
}

let logKey: LogKey | null;
try {
  logKey = loadLogKey(process.env);
} catch (error) {
  for (const issue of (error as ConfigError).issues ?? []) {
    process.stderr.write(`anchor-service: ${issue.variable}: ${issue.message}\n`);
  }
  process.exit(1);
}

let chain: ChainClient;
try {
  chain = new ChainClient({
    rpcUrl: env.CHAIN_RPC_URL,
    programId: env.SERVICE_PROGRAM_ID,
    authority,
  });
} catch (error) {
  process.stderr.write(`anchor-service: SERVICE_PROGRAM_ID: ${(error as Error).message}\n`);
  process.exit(1);
}

const database = await resolveDatabaseUrl({ databaseUrl: env.DATABASE_URL, dataDir: env.DATA_DIR });
await migrateDatabase(database.url);
const handle = createDatabase({ url: database.url });
const metrics = createMetrics({ db: handle.db, intervalMs: env.ANCHOR_INTERVAL_MS });
const server = serve({
  fetch: createApp({ db: handle.db, metrics }).fetch,
  port: env.ANCHOR_PORT,
  hostname: "0.0.0.0",
});
server.once("listening", () => {
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : env.ANCHOR_PORT;
  logger.info(
    { port, authority: chain.authorityAddress },
    "anchor service listening (metrics, health)",
  );
});

/** When the batched pass last ran (USER_ANCHOR_INTERVAL_MS); a restart runs one at once. */
const userAnchorState: UserAnchorState = { lastAt: null };
const worker = startWorker({
  lock: createLeaderLock(database.url),
  intervalMs: env.ANCHOR_INTERVAL_MS,
  logger,
  metrics,
  maintenanceIntervalMs: env.MAINTENANCE_INTERVAL_MS,
  maintain: () =>
    runMaintenance({
      db: handle.db,
      now: new Date(),
      config: { unknownGrantAuditRetentionMs: env.UNKNOWN_GRANT_AUDIT_RETENTION_MS },
    }),
  sweep: async () => {
    const report = await runSweep({
      db: handle.db,
      chain,
      logger,
      metrics,
      userAnchorState,
      config: {
        sealMaxPending: env.SEAL_MAX_PENDING,
        sealMaxAgeMs: env.SEAL_MAX_AGE_MS,
        maxInFlight: env.ANCHOR_MAX_IN_FLIGHT,
        userAnchorIntervalMs: env.USER_ANCHOR_INTERVAL_MS,
      },
    });
    if (logKey) {
      // The checkpoint log follows the confirmed user checkpoints; a failure here never undoes
      // the sweep, and the next interval appends what was missed.
      await appendUserCheckpoints(handle.db, logKey).then(
        (result) =>
          result &&
          logger.info(
            { size: result.head.treeSize, appended: result.appended },
            "checkpoint log appended",
          ),
        (error: unknown) => logger.error({ err: error }, "appending to the checkpoint log failed"),
      );
    }
    return report;
  },
});

let stopping = false;
async function shutdown(signal: string): Promise<void> {
  if (stopping) {
    return;
  }
  stopping = true;
  logger.info({ signal }, "stopping: finishing the running sweep");
  await worker.stop();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await handle.close();
  await database.close();
  logger.info("stopped");
  process.exit(0);
}
// The only handler of SIGINT/SIGTERM/SIGHUP, also when this process started the embedded
// PostgreSQL (whose own exit hooks would stop it before the requests in flight are finished).
handleShutdownSignals((signal) => void shutdown(signal));
