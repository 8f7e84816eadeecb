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
  /** BM25 score (relevance ranking only). */
  readonly score?: number;
}

/** Who wrote a memory (leaf version 2). */
export type MemoryWriter = LeafWriter;

/** Where a recall page starts: after this match of the previous page. */
export type RecallCursor =
  | { readonly rank: "recency"; readonly leafIndex: number }
  | { readonly rank: "relevance"; readonly score: number; readonly leafIndex: number };

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
  /** `recency` (newest first) or `relevance` (BM25 score, then newest first). */
  readonly rank: "recency" | "relevance";
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
}
