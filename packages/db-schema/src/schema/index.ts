/**
 * The drizzle schema: one table per entity (docs/protocol.md §4, §2–§11). Column names are
 * camelCase here and snake_case in PostgreSQL (drizzle `casing: "snake_case"`).
 * @module
 */
export { type AnchoredCheckpoint, anchoredCheckpoints } from "./anchored-checkpoints.js";
export { API_KEY_SCOPES, type ApiKey, type ApiKeyScope, apiKeys } from "./api-keys.js";
export {
  type CapabilityGrant,
  capabilityGrants,
  type GrantOperation,
} from "./capability-grants.js";
export {
  type CheckpointLogHead,
  checkpointLogEntries,
  checkpointLogHeads,
  checkpointLogNodes,
} from "./checkpoint-log.js";
export {
  type CheckpointLogCosignatureRow,
  checkpointLogCosignatures,
} from "./checkpoint-log-cosignatures.js";
export {
  COMMIT_BATCH_STATUSES,
  type CommitBatch,
  type CommitBatchStatus,
  commitBatches,
} from "./commit-batches.js";
export { type ExtensionSession, extensionSessions } from "./extension-sessions.js";
export {
  GRANT_OUTCOMES,
  type GrantAuditRow,
  type GrantOutcome,
  grantAudit,
} from "./grant-audit.js";
export { type Memory, memories, WRITER_KINDS, type WriterKind } from "./memories.js";
export {
  MEMORY_EVENT_TYPES,
  type MemoryEventRow,
  type MemoryEventType,
  memoryEvents,
} from "./memory-events.js";
export { type MemoryVectorRow, memoryVectors } from "./memory-vectors.js";
export { type MerkleNodeRow, merkleNodes } from "./merkle-nodes.js";
export { type RecallSegmentRow, recallSegments } from "./recall-segments.js";
export {
  type RecallVectorSegmentRow,
  recallVectorSegments,
} from "./recall-vector-segments.js";
export {
  NONCE_PURPOSES,
  type NoncePurpose,
  type SignInNonce,
  signInNonces,
} from "./sign-in-nonces.js";
export { type StakeLot, stakeLots } from "./stake-lots.js";
export { type TreeRow, trees } from "./trees.js";
export { type User, users } from "./users.js";
