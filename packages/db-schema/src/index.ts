/**
 * `@verifiable-memory/db-schema`: the PostgreSQL data layer of the service (docs/protocol.md §4, §3 Authorization,
 * §1; docs/protocol.md §2–§11): the drizzle schema and its migrations, database handles, and the
 * query functions (hosting the embedded PostgreSQL is @verifiable-memory/runtime's). Every user-data query takes the userId and
 * filters on it inside the SQL (docs/protocol.md §3 Authorization rule 1).
 * @module
 */

export {
  type CreateDatabaseOptions,
  createDatabase,
  type Database,
  type DatabaseHandle,
  type Executor,
  type Transaction,
} from "./client.js";
export {
  Counter,
  DatabaseDomainError,
  InvalidCursorError,
  TreeCorruptError,
  TreeSaveConflictError,
  treeSaveConflicts,
} from "./errors.js";
export {
  MIGRATION_LOCK_KEY,
  MIGRATIONS_FOLDER,
  migrateDatabase,
  pendingMigrations,
} from "./migrate.js";
export { MAX_PAGE_LIMIT, type Page, type PageOptions } from "./queries/_pagination.js";
export {
  getLeafCount,
  getOldestPendingCreatedAt,
  getPendingLeaves,
  listUsersWithPendingLeaves,
  markAnchored,
  type PendingLeaves,
  type PendingUser,
} from "./queries/anchoring.js";
export {
  findActiveApiKeyByHash,
  getApiKey,
  insertApiKey,
  listApiKeys,
  type NewApiKey,
  revokeApiKey,
  touchApiKeyLastUsed,
} from "./queries/api-keys.js";
export {
  appendCheckpointLog,
  type CheckpointLogAnchor,
  type CheckpointLogAppend,
  type CheckpointLogAppendResult,
  checkpointLogEntriesRange,
  checkpointLogEntryOf,
  checkpointLogNodeSource,
  checkpointLogRootAt,
  latestCheckpointLogHead,
  recordCheckpointLogAnchor,
  type SealedCheckpoint,
  type UnloggedCheckpoint,
} from "./queries/checkpoint-log.js";
export {
  type CheckpointLogCosignature,
  checkpointLogCosignatureLines,
  latestCosignedSize,
  recordCheckpointLogCosignature,
} from "./queries/checkpoint-log-cosignatures.js";
export {
  checkpointLogCoveredSize,
  type LoggedUserCheckpoint,
  latestAnchoredCheckpointLogHead,
  loggedCheckpointCovering,
} from "./queries/checkpoint-log-reads.js";
export {
  getAnchoredCheckpointBySize,
  getMemoryAtLatestCheckpoint,
  insertAnchoredCheckpoint,
  latestAnchoredCheckpoint,
  listAnchoredCheckpoints,
  type MemoryAtCheckpoint,
  type NewAnchoredCheckpoint,
} from "./queries/checkpoints.js";
export {
  countBatchesByStatus,
  getCommitBatch,
  insertSubmittedBatch,
  listStuckBatches,
  markBatchConfirmed,
  markBatchFailed,
  type NewCommitBatch,
} from "./queries/commit-batches.js";
export {
  deleteEventsBefore,
  type EventHorizon,
  type EventListening,
  type EventListOptions,
  eventHorizon,
  eventHorizonSettled,
  latestEventId,
  listEventsAfter,
  listenForEvents,
  MAX_EVENT_PAGE,
  MEMORY_EVENTS_CHANNEL,
} from "./queries/events.js";
export {
  deleteEndedExtensionSessions,
  findActiveExtensionSessionByHash,
  insertExtensionSession,
  type NewExtensionSession,
  revokeExtensionSession,
} from "./queries/extension-sessions.js";
export {
  type ClearGrantQuery,
  deleteUnknownGrantAudit,
  type GrantUse,
  type GrantWithCreator,
  getGrant,
  insertGrant,
  insertGrantAudit,
  listClearGrantQueries,
  listGrantAudit,
  listGrants,
  type NewGrant,
  type NewGrantAudit,
  revokeGrant,
  revokeGrantsOfKey,
  type SealedGrantQuery,
  sealClearGrantQuery,
  useGrant,
} from "./queries/grants.js";
export {
  countUsersByMasterKeyId,
  type DataKeyReplacement,
  findVersionOneDataKey,
  listDataKeysNotUnder,
  type MasterKeyIdCount,
  replaceWrappedDataKeys,
  type StoredDataKey,
} from "./queries/master-keys.js";
export {
  type AppendOptions,
  type AppendResult,
  appendMemories,
  appendMemoriesForUsers,
  appendMemoriesToKnownTrees,
  type BatchAppendHookContext,
  type BatchAppendOptions,
  type BeforeTreeUpdateContext,
  type KnownTreeAppend,
  type NewMemory,
  type SavedTree,
  type StaleTreeResult,
  type UserAppend,
  type UserAppendResult,
} from "./queries/memories/append.js";
export {
  deleteMemory,
  type SegmentResealers,
  type SupersedeResult,
  supersedeMemory,
} from "./queries/memories/lifecycle.js";
export {
  getMemoriesByIds,
  getMemory,
  listDeletedSince,
  listMemories,
  listMemoriesSince,
  listMemoryVersions,
  type MemoryListOptions,
  type MemoryReadOptions,
  namespaceUnder,
} from "./queries/memories/read.js";
export {
  deleteVectorsOf,
  deleteVectorsOfOtherModels,
  insertMemoryVectors,
  listMemoriesWithoutVector,
  listMemoryVectors,
  type MemoryToEmbed,
  type SealedVector,
  type StoredVector,
  streamMemoryVectors,
} from "./queries/memory-vectors.js";
export {
  listNamespaces,
  type NamespaceCount,
  type NamespaceListOptions,
} from "./queries/namespaces.js";
export {
  consumeNonce,
  deleteExpiredNonces,
  insertNonce,
  insertNonceWithin,
  type NewNonce,
} from "./queries/nonces.js";
export {
  type RecallPage,
  type RecallPageOptions,
  type RecallRow,
  readRecallPage,
} from "./queries/recall.js";
export {
  deleteRecallSegments,
  dropRecallSegmentOf,
  listRecallSegments,
  listSupersededBefore,
  resealRecallSegmentOf,
  type SealedSegment,
  sealRecallSegment,
  streamRecallSegments,
} from "./queries/recall-segments.js";
export {
  type RangeVector,
  sealRecallVectorSegment,
  streamRecallVectorSegments,
} from "./queries/recall-vector-segments.js";
export {
  type CachedStakeLot,
  listStakeLots,
  replaceStakeLots,
} from "./queries/stake-lots.js";
export {
  checkTree,
  getTree,
  nodeSource,
  type RebuildResult,
  rebuildTree,
  rootAtSize,
  type TreeCheck,
  type TreeState,
} from "./queries/tree.js";
export {
  getUserById,
  getUserByPubkey,
  getUsersByIds,
  type UpsertUserInput,
  upsertUserByPubkey,
} from "./queries/users.js";
export {
  type AnchoredCheckpoint,
  API_KEY_SCOPES,
  type ApiKey,
  type ApiKeyScope,
  anchoredCheckpoints,
  apiKeys,
  type CapabilityGrant,
  type CheckpointLogCosignatureRow,
  type CheckpointLogHead,
  COMMIT_BATCH_STATUSES,
  type CommitBatch,
  type CommitBatchStatus,
  capabilityGrants,
  checkpointLogCosignatures,
  checkpointLogEntries,
  checkpointLogHeads,
  checkpointLogNodes,
  commitBatches,
  type ExtensionSession,
  extensionSessions,
  GRANT_OUTCOMES,
  type GrantAuditRow,
  type GrantOperation,
  type GrantOutcome,
  grantAudit,
  MEMORY_EVENT_TYPES,
  type Memory,
  type MemoryEventRow,
  type MemoryEventType,
  type MemoryVectorRow,
  type MerkleNodeRow,
  memories,
  memoryEvents,
  memoryVectors,
  merkleNodes,
  NONCE_PURPOSES,
  type NoncePurpose,
  type RecallSegmentRow,
  type RecallVectorSegmentRow,
  recallSegments,
  recallVectorSegments,
  type SignInNonce,
  type StakeLot,
  signInNonces,
  stakeLots,
  type TreeRow,
  trees,
  type User,
  users,
  WRITER_KINDS,
  type WriterKind,
} from "./schema/index.js";
