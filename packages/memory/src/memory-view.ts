/**
 * The memory object of the API (docs/protocol.md §4): `{ id, leafIndex, leafHash, content,
 * metadata, namespace, writtenBy, supersedes, supersededBy, createdAt, anchored }` (plus `score`
 * in relevance recall), hashes in lowercase hex and times in ISO 8601 UTC with milliseconds.
 * @module
 */
import { toHex } from "@verifiable-memory/merkle-log";
import type { LeafWriter } from "@verifiable-memory/verifier";
import { writerOf } from "./memory-leaf.js";

/** A memory as the API returns it. */
export interface MemoryView {
  readonly id: string;
  readonly leafIndex: number;
  readonly leafHash: string;
  readonly content: string;
  readonly metadata: Readonly<Record<string, unknown>>;
  readonly namespace: string | null;
  /** Who wrote it (committed in version-2 leaves); null on version-1 leaves. */
  readonly writtenBy: LeafWriter | null;
  readonly supersedes: string | null;
  readonly supersededBy: string | null;
  readonly createdAt: string;
  readonly anchored: boolean;
  readonly score?: number;
}

/** The stored fields a view is made of. */
export interface MemoryViewSource {
  readonly id: string;
  readonly leafIndex: number;
  readonly leafHash: Uint8Array;
  readonly metadata: Readonly<Record<string, unknown>>;
  readonly createdAt: Date;
  readonly namespace: string | null;
  readonly writtenBy: LeafWriter | null;
  readonly supersedes: string | null;
  readonly supersededBy: string | null;
  readonly score?: number | undefined;
}

/** The view fields of a stored memory row. */
export function rowViewSource(row: {
  readonly id: string;
  readonly leafIndex: number;
  readonly leafHash: Uint8Array;
  readonly metadata: Readonly<Record<string, unknown>>;
  readonly createdAt: Date;
  readonly namespace: string | null;
  readonly writerKind: "session" | "api_key" | null;
  readonly writerKeyId: string | null;
  readonly supersedes: string | null;
  readonly supersededBy: string | null;
}): MemoryViewSource {
  return { ...row, writtenBy: writerOf(row) };
}

/** Renders a memory for the API. */
export function memoryView(
  source: MemoryViewSource,
  content: string,
  anchored: boolean,
): MemoryView {
  return {
    id: source.id,
    leafIndex: source.leafIndex,
    leafHash: toHex(source.leafHash),
    content,
    metadata: source.metadata,
    namespace: source.namespace,
    writtenBy: source.writtenBy,
    supersedes: source.supersedes,
    supersededBy: source.supersededBy,
    createdAt: source.createdAt.toISOString(),
    anchored,
    ...(source.score === undefined ? {} : { score: source.score }),
  };
}
