/**
 * Test fixtures of the recall modules: synthetic memories (no database, no encryption) and a
 * small deterministic PRNG, so a failure replays.
 * @module
 */
import { createHash } from "node:crypto";
import type { LogEntryFields } from "../../src/recall/user-log.js";

/** A small deterministic PRNG (mulberry32). */
export function prng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let x = Math.imul(a ^ (a >>> 15), 1 | a);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

/** A memory as a test knows it. */
export interface Known {
  readonly id: string;
  readonly leafIndex: number;
  readonly content: string;
  readonly metadata: Record<string, unknown>;
  readonly namespace: string | null;
}

/** The row fields of memory `known` (leaf hash: SHA-256 of its id; created at 1 s per leaf). */
export function rowOf(known: Known, supersedes: string | null = null): LogEntryFields {
  return {
    id: known.id,
    leafIndex: known.leafIndex,
    createdAtMs: 1_764_000_000_000 + 1000 * known.leafIndex,
    metadataJson: JSON.stringify(known.metadata),
    leafHash: leafHashOf(known.id),
    namespace: known.namespace,
    supersedes,
    supersededBy: null,
    writerKind: known.leafIndex % 2 === 0 ? "session" : null,
    writerKeyId: null,
  };
}

/** The synthetic leaf hash of memory `id`. */
export function leafHashOf(id: string): Uint8Array {
  return createHash("sha256").update(id).digest();
}

/** Whether every character of `text` is ASCII. */
export function isAsciiText(text: string): boolean {
  return Buffer.byteLength(text) === text.length;
}
