/**
 * The setup the checkpoint-log end-to-end tests share: core-api with a log key and the local chain,
 * and one anchor-service interval run in process with per-user accounts committed once an hour
 * (docs/protocol.md §7.6 "One user's anchoring and the commit batches", §13.5 "The checkpoint log").
 * @module
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  anchorCheckpointLog,
  type CheckpointLogDeps,
  createMetrics,
  runSweep,
  type UserAnchorState,
} from "@verifiable-memory/anchor-service";
import { generateSigner } from "@verifiable-memory/signed-note";
import pino from "pino";
import { type Chain, type CoreApp, startChain, startCoreApi } from "../_apps.js";

/** The log key's name (LOG_ORIGIN) the tests sign under. */
export const ORIGIN = "localhost:8787/tlog";
/** USER_ANCHOR_INTERVAL_MS of the interval below: one hour, so only the checkpoint log anchors. */
export const HOUR = 3_600_000;
/** The deployment's log key (signer and its verifier key). */
export const signer = generateSigner(ORIGIN);
const logKey: CheckpointLogDeps["logKey"] = { origin: ORIGIN, signer, verifiers: [signer] };
const logger = pino({ level: "silent" });

/** A running core-api and local chain with a log key, and a scratch directory. */
export interface CheckpointLogService {
  readonly t: CoreApp;
  readonly chain: Chain;
  /** A temporary directory, removed by close(). */
  readonly dir: string;
  /** One interval of the anchor service's leader: the batched sweep, then the checkpoint-log step. */
  interval(state: UserAnchorState): Promise<{
    report: Awaited<ReturnType<typeof runSweep>>;
    log: Awaited<ReturnType<typeof anchorCheckpointLog>>;
  }>;
  close(): Promise<void>;
}

/** Starts the local chain and core-api (LOG_ORIGIN, LOG_SIGNING_KEY_PATH) for one test file. */
export async function startCheckpointLogService(): Promise<CheckpointLogService> {
  const chain = await startChain();
  const dir = await mkdtemp(join(tmpdir(), "e2e-checkpoint-log-"));
  const keyPath = join(dir, "log-signing.key");
  await writeFile(keyPath, `${signer.skey}\n`);
  const t = await startCoreApi({
    env: {
      CHAIN_RPC_URL: chain.url,
      SIWS_CHAIN_ID: "localnet",
      LOG_ORIGIN: ORIGIN,
      LOG_SIGNING_KEY_PATH: keyPath,
    },
  });
  return {
    t,
    chain,
    dir,
    async interval(state) {
      const report = await runSweep({
        db: t.db,
        chain: chain.client,
        logger,
        userAnchorState: state,
        config: { sealMaxPending: 1, sealMaxAgeMs: 0, maxInFlight: 4, userAnchorIntervalMs: HOUR },
      });
      const log = await anchorCheckpointLog({
        db: t.db,
        logKey,
        chain: chain.client,
        logger,
        metrics: createMetrics({ db: t.db, intervalMs: 30_000 }),
        sealed: report.waiting,
      });
      return { report, log };
    },
    async close() {
      await t.close();
      await chain.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
