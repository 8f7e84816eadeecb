/**
 * The recall cache's public shapes: a recall query (docs/protocol.md §4 `POST /memories/search`),
 * its cursor, and the page of matches it answers.
 * @module
 */
import type { LeafWriter } from "@verifiable-memory/verifier";
import type { MemoryFilter } from "../memory-filter.js";

/** A memory's metadata as the cache hands it out (shared with the cache: do not mutate). */
export type Metadata = Readonly<Record<string, unknown>>;

/** One recall match: the memory's stored fields and its decrypted content. */
export interface RecallEntry {
  readonly id: string;
  readonly leafIndex: number;
  readonly content: string;
  /** The stored metadata (shared with the cache: do not mutate). */
  readonly metadata: Metadata;
  readonly createdAt: Date;
  /** The leaf hash (a copy). */
  readonly leafHash: Uint8Array;
  readonly namespace: string | null;
  readonly supersedes: string | null;
  /** The later version that superseded this one, or null while it is current. */
  readonly supersededBy: string | null;
  /** Who wrote it; null on version-1 leaves. */
  readonly writtenBy: MemoryWriter | null;
  /** BM25 score (relevance), cosine similarity (semantic) or fused score (hybrid). */
  readonly score?: number;
}

/** Who wrote a memory (leaf version 2). */
export type MemoryWriter = LeafWriter;

/** Where a recall page starts: after this match of the previous page. */
export type RecallCursor =
  | { readonly rank: "recency"; readonly leafIndex: number }
  | {
      readonly rank: ScoredRank;
      readonly score: number;
      readonly leafIndex: number;
    };

/** The ranks that order by a score (docs/protocol.md §4.5 "Recall"). */
export type ScoredRank = "relevance" | "semantic" | "hybrid";

/** Every rank of recall. */
export type RecallRank = "recency" | ScoredRank;

/** A query's embedding: its model id and values (float32). */
export interface QueryVector {
  readonly modelId: string;
  readonly values: Float32Array;
}

/** A recall query (docs/protocol.md §4 `POST /memories/search`). */
export interface RecallQuery {
  /**
   * Recency: a substring every match holds. Relevance: the terms to score (matches hold at least
   * one). Absent: every memory passing the filter, newest first.
   */
  readonly query?: string | undefined;
  /** Default false: compare lower-cased (recency substring only). */
  readonly caseSensitive: boolean;
  /** Conditions on the clear fields. */
  readonly filter: MemoryFilter;
  /**
   * `recency` (newest first), `relevance` (BM25 score), `semantic` (cosine) or `hybrid`
   * (reciprocal rank fusion of both); scored ranks break ties newest first.
   */
  readonly rank: RecallRank;
  /** The query's embedding: required by `semantic` and `hybrid` (else nothing has a vector). */
  readonly vector?: QueryVector | undefined;
  /** At most this many results (1–200). */
  readonly limit: number;
  /** Continue after this match of a previous page. */
  readonly after?: RecallCursor | undefined;
}

/** A recall answer: one page of matches, how many live memories were examined, and whether more match. */
export interface RecallResult {
  readonly items: readonly RecallEntry[];
  readonly scanned: number;
  /** True when matches follow the last item (ask again with it as the cursor). */
  readonly more: boolean;
  /**
   * `semantic` and `hybrid`: live memories passing the filter that have no vector of the query's
   * model (left out of `semantic`, ranked by BM25 alone in `hybrid`).
   */
  readonly unranked?: number;
}
