/**
 * `@verifiable-memory/witness`: a C2SP tlog-witness for the checkpoint log (docs/protocol.md §13.6
 * "Witnesses"). The process is `src/main.ts`; these exports are for tests and scripts above apps.
 * @module
 */
export {
  type AddCheckpointAnswer,
  type AddCheckpointDeps,
  type AddCheckpointRequest,
  addCheckpoint,
  MAX_PROOF_LINES,
  parseAddCheckpoint,
} from "./add-checkpoint.js";
export { createWitnessApp, MAX_BODY_BYTES } from "./app.js";
export { type Env, EnvSchema, parseEnv } from "./env.js";
export { type LogState, openWitnessStore, type WitnessStore } from "./state.js";
