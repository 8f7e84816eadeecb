/**
 * `@verifiable-memory/memory`: the memory domain both HTTP apps compose (docs/protocol.md §4, §6): the
 * encrypted append to a user's RFC 9162 Merkle log with group commit, recall over the decrypted
 * log, proofs at the latest anchored checkpoint, and the request schemas of the memory routes.
 * @module
 */

export {
  ContentSchema,
  CreateMemoriesBodySchema,
  CreateMemoryBodySchema,
  isOperatorObject,
  isWellFormedText,
  MAX_BATCH_BODY_BYTES,
  MAX_BATCH_ITEMS,
  MAX_CONTENT_BYTES,
  MAX_METADATA_BYTES,
  METADATA_OPERATORS,
  MetadataFilterSchema,
  MetadataSchema,
  metadataFilterProblem,
  NAMESPACE_PATTERN,
  NamespaceSchema,
  type SearchBody,
  SearchBodySchema,
} from "@verifiable-memory/memory-schemas";
export { rpcAnchorChain } from "./anchor-chain.js";
export {
  type AppendedLeaf,
  type Appender,
  AppendQueue,
  type AppendQueueOptions,
  type ExpectedAppend,
} from "./append-queue.js";
export { type Caller, DataKeys, type Owner } from "./caller.js";
export { createMemoryDomain, type MemoryDomain } from "./domain.js";
export {
  InvalidRangeError,
  MemoryConflictError,
  MemoryDomainError,
  type MemoryErrorCode,
  MemoryNotFoundError,
  NamespaceForbiddenError,
} from "./errors.js";
export {
  EventFeed,
  type EventFilter,
  EventHub,
  type EventHubLogger,
  type EventHubOptions,
  type MemoryEvent,
  type OpenFeedInput,
} from "./events.js";
export {
  type CheckpointView,
  LogOverviewService,
  type NamespaceView,
  type OverviewPageInput,
} from "./log-overview.js";
export {
  type CheckpointLogConsistencyView,
  type CheckpointLogProofView,
  checkpointLogConsistency,
  checkpointLogProof,
} from "./log-proof.js";
export {
  checkMasterKeys,
  MissingMasterKeyError,
  type RotationOptions,
  type RotationProgress,
  type RotationResult,
  rotateDataKeys,
} from "./master-keys.js";
export {
  type CreatedMemory,
  type ListInput,
  type MemoryInput,
  MemoryService,
  type SearchInput,
} from "./memories.js";
export { type MemoryBody, newSalt, SALT_BYTES, sealMemoryBody } from "./memory-body.js";
export {
  compileFilter,
  type MemoryFilter,
  type MemoryPredicate,
  withinConfinement,
} from "./memory-filter.js";
export { type LeafFields, type LeafFieldsV2, memoryLeaf, storedLeafFields } from "./memory-leaf.js";
export { type MemoryView, memoryView, rowViewSource } from "./memory-view.js";
export {
  type AnchorChain,
  type ConsistencyView,
  type LogView,
  type MemoryWithProof,
  type OnChainCheckpointLog,
  type OnChainCommitment,
  type ProofBundleView,
  ProofService,
  type VerifyView,
} from "./proofs.js";
export { RecallCache } from "./recall/cache.js";
export {
  type LexicalAnalyser,
  lexicalAnalyser,
  RECALL_LANGUAGES,
  type RecallLanguage,
} from "./recall/lexical-analyser.js";
export { BestList } from "./recall/ranking.js";
export { BM25_B, BM25_K1 } from "./recall/relevance.js";
export { FUSION_DEPTH, RRF_K } from "./recall/semantic.js";
export type {
  MemoryWriter,
  QueryVector,
  RecallCursor,
  RecallQuery,
  RecallRank,
  RecallResult,
} from "./recall/types.js";
export { quantise, VectorStore } from "./recall/vector-store.js";
export {
  CheckpointLogProofSchema,
  CreatedMemoriesSchema,
  CreatedMemorySchema,
  ExtensionCreateMemoryBodySchema,
  type ExtensionSearchBody,
  ExtensionSearchBodySchema,
  ExtensionSearchResultSchema,
  LeafDataSchema,
  MemoryHistorySchema,
  MemorySchema,
  MemoryWithProofSchema,
  ProofBundleSchema,
  SearchResultSchema,
  searchInputOf,
  VerifyResultSchema,
  WriterSchema,
} from "./schemas.js";
export { type MemoryToIndex, VectorIndexer, type VectorIndexerOptions } from "./vectors.js";
