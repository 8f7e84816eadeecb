/**
 * The isolation test's classification of every function db-schema exports (docs/protocol.md §3
 * Authorization rule 1): user-scoped queries (each tested cross-user in isolation.test.ts),
 * inserts carrying their userId, credential lookups, the user records, service-wide queries and
 * infrastructure. A new export must be added to one of these lists.
 * @module
 */
/** Query functions scoped to one user: tested cross-user below. */
export const USER_SCOPED = [
  "appendMemories",
  "appendMemoriesForUsers",
  "appendMemoriesToKnownTrees",
  "checkTree",
  "deleteMemory",
  "getAnchoredCheckpointBySize",
  "getApiKey",
  "getCommitBatch",
  "getGrant",
  "getLeafCount",
  "getMemoriesByIds",
  "getMemory",
  "getMemoryAtLatestCheckpoint",
  "getPendingLeaves",
  "getTree",
  "latestAnchoredCheckpoint",
  "listApiKeys",
  "listDeletedSince",
  "listGrantAudit",
  "listGrants",
  "listMemories",
  "listMemoriesSince",
  "listStakeLots",
  "markAnchored",
  "markBatchConfirmed",
  "markBatchFailed",
  "nodeSource",
  "readRecallPage",
  "rebuildTree",
  "replaceStakeLots",
  "revokeApiKey",
  "revokeExtensionSession",
  "revokeGrant",
  "revokeGrantsOfKey",
  "rootAtSize",
  "touchApiKeyLastUsed",
  "listMemoryVersions",
  "supersedeMemory",
  "listRecallSegments",
  "streamRecallSegments",
  "listAnchoredCheckpoints",
  "listNamespaces",
  "listSupersededBefore",
  "sealRecallSegment",
  "resealRecallSegmentOf",
  "dropRecallSegmentOf",
  "deleteRecallSegments",
  "listEventsAfter",
  "latestEventId",
  "insertMemoryVectors",
  "listMemoryVectors",
  "streamMemoryVectors",
  "deleteVectorsOf",
  "sealRecallVectorSegment",
  "streamRecallVectorSegments",
];
/** Inserts whose row carries the userId given in the input. */
export const USER_INSERTS = [
  "insertAnchoredCheckpoint",
  "insertApiKey",
  "insertExtensionSession",
  "insertGrant",
  "insertGrantAudit",
  "insertSubmittedBatch",
];
/** Lookups keyed by a secret (token hash, nonce + key) that resolve the owning user. */
export const CREDENTIAL_LOOKUPS = [
  "consumeNonce",
  "findActiveApiKeyByHash",
  "findActiveExtensionSessionByHash",
  "insertNonce",
  "insertNonceWithin",
  "useGrant",
];
/** The user records themselves. */
export const IDENTITY = ["getUserById", "getUserByPubkey", "getUsersByIds", "upsertUserByPubkey"];
/** Anchor service and maintenance queries over all users (no user-facing route uses them). */
export const SERVICE_WIDE = [
  "countBatchesByStatus",
  "countUsersByMasterKeyId",
  "deleteEndedExtensionSessions",
  "deleteEventsBefore",
  "deleteExpiredNonces",
  "deleteUnknownGrantAudit",
  "findVersionOneDataKey",
  // core-api's start-up re-encryption of grant queries written in clear (docs/protocol.md §8.1).
  "listClearGrantQueries",
  "sealClearGrantQuery",
  "getOldestPendingCreatedAt",
  "listDataKeysNotUnder",
  "listStuckBatches",
  "listUsersWithPendingLeaves",
  "replaceWrappedDataKeys",
  "listMemoriesWithoutVector",
  "deleteVectorsOfOtherModels",
  // The checkpoint log is public by design: its entries are anchored user checkpoints, whose
  // sizes and roots the chain already shows (docs/protocol.md §13.5 "The checkpoint log"); the
  // reads by user find a user's entries in it, which its tiles publish anyway.
  "appendCheckpointLog",
  "checkpointLogCoveredSize",
  "latestAnchoredCheckpointLogHead",
  "loggedCheckpointCovering",
  "checkpointLogEntriesRange",
  "checkpointLogEntryOf",
  "checkpointLogNodeSource",
  "checkpointLogRootAt",
  "latestCheckpointLogHead",
  "recordCheckpointLogAnchor",
  // Witness cosignatures of the checkpoint log, public like the log (docs/protocol.md §13.6 "Witnesses").
  "checkpointLogCosignatureLines",
  "latestCosignedSize",
  "recordCheckpointLogCosignature",
];
/** Not queries: connections, migrations, error classes. */
export const INFRASTRUCTURE = [
  "Counter",
  "DatabaseDomainError",
  "InvalidCursorError",
  "TreeCorruptError",
  "TreeSaveConflictError",
  "createDatabase",
  "eventHorizon",
  "eventHorizonSettled",
  "listenForEvents",
  "migrateDatabase",
  "namespaceUnder",
  "pendingMigrations",
];
