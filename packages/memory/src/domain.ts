/**
 * One memory domain per process, built the same way by every app that reads or writes memories
 * (core-api, extension-api): the group-commit append queue, data keys, recall cache, memory and
 * proof services over one database.
 * @module
 */
import type { Clock } from "@verifiable-memory/clock";
import type { Database } from "@verifiable-memory/db-schema";
import type { MasterKeyring } from "@verifiable-memory/envelope-crypto";
import { AppendQueue } from "./append-queue.js";
import { DataKeys } from "./caller.js";
import { LogOverviewService } from "./log-overview.js";
import { MemoryService } from "./memories.js";
import { type AnchorChain, ProofService } from "./proofs.js";
import { RecallCache } from "./recall/cache.js";
import type { RecallLanguage } from "./recall/lexical-analyser.js";
import type { VectorIndexer } from "./vectors.js";

/** The memory services of one process. */
export interface MemoryDomain {
  /** The process's group-commit queue of memory appends (MemoryService writes through it). */
  readonly appendQueue: AppendQueue;
  /** Users' data keys, unwrapped once per user (the wrapped key is still loaded per request). */
  readonly dataKeys: DataKeys;
  readonly recall: RecallCache;
  /** The background embedder (EMBEDDINGS); null when no model is configured. */
  readonly vectors: VectorIndexer | null;
  readonly memories: MemoryService;
  readonly proofs: ProofService;
  /** Anchored checkpoints and namespaces with counts (the console's overviews). */
  readonly overview: LogOverviewService;
}

/**
 * Builds the memory domain of a process. Several processes may each build one over the same
 * database: appends of one user from several processes serialise on the user's tree row
 * (compare-and-swap, retried), so the log stays one append-only log.
 * @param deps.masterKeys the key-encryption keys that wrap users' data keys (current and previous).
 * @param deps.recallCacheMaxBytes bound of the decrypted recall cache, bytes (0 disables it).
 * @param deps.recallSegmentLeaves leaves per sealed recall segment (default 4 096; 0: none).
 * @param deps.recallLanguage the language of relevance ranking (default `en`).
 * @param deps.vectors the background embedder over the embedding model (EMBEDDINGS); absent: no
 *   semantic or hybrid ranking.
 * @param deps.chain where anchored roots are read for `verify` (docs/protocol.md §6.5 "The
 *   convenience check").
 * @throws RangeError for a malformed bound (from the services' constructors).
 */
export function createMemoryDomain(deps: {
  readonly db: Database;
  readonly clock: Clock;
  readonly masterKeys: MasterKeyring;
  readonly recallCacheMaxBytes: number;
  readonly recallSegmentLeaves?: number;
  readonly recallLanguage?: RecallLanguage;
  readonly vectors?: VectorIndexer | undefined;
  readonly chain: AnchorChain;
}): MemoryDomain {
  const recall = new RecallCache({
    db: deps.db,
    clock: deps.clock,
    maxBytes: deps.recallCacheMaxBytes,
    ...(deps.recallSegmentLeaves === undefined ? {} : { segmentLeaves: deps.recallSegmentLeaves }),
    ...(deps.recallLanguage === undefined ? {} : { language: deps.recallLanguage }),
  });
  const appendQueue = new AppendQueue(deps.db);
  const dataKeys = new DataKeys(deps.masterKeys);
  const vectors = deps.vectors ?? null;
  const memories = new MemoryService({
    db: deps.db,
    clock: deps.clock,
    appendQueue,
    recall,
    ...(vectors === null ? {} : { vectors }),
  });
  const proofs = new ProofService(deps.db, deps.chain);
  const overview = new LogOverviewService(deps.db);
  return { appendQueue, dataKeys, recall, vectors, memories, proofs, overview };
}
