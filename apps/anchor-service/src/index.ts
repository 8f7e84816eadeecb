/**
 * `@verifiable-memory/anchor-service`: the sweep that anchors each user's Merkle root on chain, its leader-locked
 * worker loop, metrics and HTTP surface (docs/protocol.md §4, §1, §7). `main.ts` wires them.
 * @module
 */
export { type AppDeps, createApp } from "./app.js";
export type { AnchorChain } from "./chain.js";
export {
  anchorCheckpointLog,
  type CheckpointLogChain,
  type CheckpointLogDeps,
  type CheckpointLogOutcome,
} from "./checkpoint-log.js";
export { type Env, EnvSchema, parseEnv } from "./env.js";
export { ANCHOR_LOCK_KEY, createLeaderLock, type LeaderLock } from "./leader-lock.js";
export { type MaintenanceConfig, type MaintenanceReport, runMaintenance } from "./maintenance.js";
export {
  type AnchorMetrics,
  type CommitOutcome,
  createMetrics,
  type IntegrityKind,
  type MetricsDeps,
} from "./metrics.js";
export {
  runSweep,
  type SweepConfig,
  type SweepDeps,
  type SweepReport,
  type UserAnchorState,
  type UserOutcome,
} from "./sweep.js";
export {
  createWitnessSubmitter,
  parseWitnessUrls,
  submitHead,
  WITNESS_TIMEOUT_MS,
  type Witness,
  type WitnessDeps,
  type WitnessOutcome,
  type WitnessSubmitter,
} from "./witnesses.js";
export { type AnchorWorker, startWorker, type WorkerOptions } from "./worker.js";
