/**
 * Entry point of the anchor service (`tsx apps/anchor-service/src/main.ts`): configuration →
 * database (the embedded PostgreSQL when DATABASE_URL is unset) → migrations → chain client →
 * metrics server and the anchor worker (docs/protocol.md §7, §10), inside
 * @verifiable-memory/runtime's runService: a bad variable (or an unreadable keypair, a malformed
 * program id) exits 1 naming it (configErrorExit); SIGINT/SIGTERM/SIGHUP finish the running
 * sweep, release the leader lock and close everything, in reverse order of opening.
 * @module
 */
import { serve } from "@hono/node-server";
import { type LogKey, loadLogKey } from "@verifiable-memory/app-config";
import { ChainClient, loadKeypairFile } from "@verifiable-memory/chain-commit";
import { createDatabase, migrateDatabase } from "@verifiable-memory/db-schema";
import {
  configErrorExit,
  createLogger,
  loadServiceConfig,
  resolveDatabaseUrl,
  runService,
} from "@verifiable-memory/runtime";
import { createApp } from "./app.js";
import { anchorCheckpointLog } from "./checkpoint-log.js";
import { parseEnv } from "./env.js";
import { createLeaderLock } from "./leader-lock.js";
import { runMaintenance } from "./maintenance.js";
import { createMetrics } from "./metrics.js";
import { runSweep, type UserAnchorState } from "./sweep.js";
import { createWitnessSubmitter } from "./witnesses.js";
import { startWorker } from "./worker.js";

const env = loadServiceConfig("anchor-service", () => parseEnv(process.env));
const logger = createLogger({ service: "anchor-service", level: env.LOG_LEVEL });

let authority: ReturnType<typeof loadKeypairFile>;
try {
  authority = loadKeypairFile(env.AUTHORITY_KEYPAIR_PATH);
} catch (error) {
  configErrorExit("anchor-service", [
    { variable: "AUTHORITY_KEYPAIR_PATH", message: (error as Error).message },
  ]);
}

const logKey: LogKey | null = loadServiceConfig("anchor-service", () => loadLogKey(process.env));

let chain: ChainClient;
try {
  chain = new ChainClient({
    rpcUrl: env.CHAIN_RPC_URL,
    programId: env.SERVICE_PROGRAM_ID,
    authority,
  });
} catch (error) {
  configErrorExit("anchor-service", [
    { variable: "SERVICE_PROGRAM_ID", message: (error as Error).message },
  ]);
}

await runService({
  name: "anchor-service",
  logger,
  start: async (service) => {
    const database = await resolveDatabaseUrl({
      databaseUrl: env.DATABASE_URL,
      dataDir: env.DATA_DIR,
    });
    service.onShutdown("embedded PostgreSQL", () => database.close());
    await migrateDatabase(database.url);
    const handle = createDatabase({ url: database.url });
    service.onShutdown("database pool", () => handle.close());
    const metrics = createMetrics({ db: handle.db, intervalMs: env.ANCHOR_INTERVAL_MS });
    const server = serve({
      fetch: createApp({ db: handle.db, metrics }).fetch,
      port: env.ANCHOR_PORT,
      hostname: "0.0.0.0",
    });
    service.onShutdown(
      "metrics server",
      () => new Promise<void>((resolve) => server.close(() => resolve())),
    );
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
    const witnesses = createWitnessSubmitter(
      { db: handle.db, logger, metrics },
      env.WITNESS_URLS,
      env.WITNESS_POLICY,
    );
    service.onShutdown("witness submissions", () => witnesses.idle());
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
          // The checkpoint log follows the confirmed user checkpoints and the sealed trees whose
          // per-user commit waits; a failure here never undoes the sweep, and the next interval
          // appends and anchors what was missed.
          await anchorCheckpointLog({
            db: handle.db,
            logKey,
            chain,
            logger,
            metrics,
            sealed: report.waiting,
          }).catch((error: unknown) =>
            logger.error({ err: error }, "the checkpoint log step failed"),
          );
          // Witnesses cosign the latest head in the background; anchoring never waits for them.
          witnesses.kick();
        }
        return report;
      },
    });
    service.onShutdown("anchor worker", async () => {
      logger.info("finishing the running sweep");
      await worker.stop();
    });
  },
});
