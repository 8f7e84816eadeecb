/**
 * The memory object of the API (docs/protocol.md §5): `{ id, leafIndex, leafHash, content, metadata,
 * createdAt, anchored }`, hashes in lowercase hex and times in ISO 8601 UTC with milliseconds.
 * @module
 */
import { toHex } from "@svc/merkle-log";

/** A memory as the API returns it. */
export interface MemoryView {
  readonly id: string;
  readonly leafIndex: number;
  readonly leafHash: string;
  readonly content: string;
  readonly metadata: Readonly<Record<string, unknown>>;
  readonly createdAt: string;
  readonly anchored: boolean;
}

/** The stored fields a view is made of. */
export interface MemoryViewSource {
  readonly id: string;
  readonly leafIndex: number;
  readonly leafHash: Uint8Array;
  readonly metadata: Readonly<Record<string, unknown>>;
  readonly createdAt: Date;
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
    createdAt: source.createdAt.toISOString(),
    anchored,
  };
}
