/**
 * Test-only reference of the RFC 9162 §2.1 definitions, written independently of src/: the
 * recursive MTH (§2.1.1), PATH (§2.1.3.1) and SUBPROOF (§2.1.4.1), hashed with node:crypto
 * rather than @noble/hashes, and with plain arithmetic (no bit tricks) so it also serves for
 * sizes up to 2^53 - 1 when only the shape of a proof (the leaf ranges it covers) is compared.
 * @module
 */
import { createHash } from "node:crypto";

/** Leaf range [start, end) of the tree a proof element is the MTH of. */
export type Span = readonly [start: number, end: number];

/** The largest power of two strictly less than n (n > 1), RFC 9162 §2.1.1's split point k. */
export function splitPoint(n: number): number {
  let k = 1;
  while (k * 2 < n) {
    k *= 2;
  }
  return k;
}

/**
 * RFC 9162 §2.1.3.1 PATH(m, D[start:end]) as the spans of its elements, bottom-up.
 * `m` is the absolute leaf index, start <= m < end.
 */
export function pathSpans(m: number, start: number, end: number): Span[] {
  const n = end - start;
  if (n === 1) {
    return [];
  }
  const k = splitPoint(n);
  return m - start < k
    ? [...pathSpans(m, start, start + k), [start + k, end]]
    : [...pathSpans(m, start + k, end), [start, start + k]];
}

/**
 * RFC 9162 §2.1.4.1 SUBPROOF(m, D[start:end], b) as the spans of its elements, where `m` counts
 * the old tree's leaves inside [start, end). PROOF(m, D[n]) = subproofSpans(m, 0, n, true).
 */
export function subproofSpans(m: number, start: number, end: number, b: boolean): Span[] {
  const n = end - start;
  if (m === n) {
    return b ? [] : [[start, end]];
  }
  const k = splitPoint(n);
  return m <= k
    ? [...subproofSpans(m, start, start + k, b), [start + k, end]]
    : [...subproofSpans(m - k, start + k, end, false), [start, start + k]];
}

/**
 * Splits [start, end) into aligned power-of-two blocks greedily from the left: the perfect
 * subtrees a store holds for that range. Returned as { level, index } like the package's NodeId.
 */
export function perfectBlocks([start, end]: Span): { level: number; index: number }[] {
  const out: { level: number; index: number }[] = [];
  let at = start;
  while (at < end) {
    let level = 0;
    while (at % 2 ** (level + 1) === 0 && at + 2 ** (level + 1) <= end) {
      level += 1;
    }
    out.push({ level, index: at / 2 ** level });
    at += 2 ** level;
  }
  return out;
}

/** SHA-256(0x00 || data) with node:crypto. */
export function referenceLeafHash(data: Uint8Array): Uint8Array {
  return new Uint8Array(createHash("sha256").update(Uint8Array.of(0)).update(data).digest());
}

function nodeHash(left: Uint8Array, right: Uint8Array): Uint8Array {
  return new Uint8Array(
    createHash("sha256").update(Uint8Array.of(1)).update(left).update(right).digest(),
  );
}

/**
 * The recursive RFC 9162 §2.1.1 MTH over a fixed list of leaf hashes, memoizing perfect
 * (power-of-two) subtrees so that roots, paths and proofs at many sizes stay cheap.
 */
export class ReferenceTree {
  readonly #leaves: readonly Uint8Array[];
  readonly #perfect = new Map<string, Uint8Array>();

  constructor(leafHashes: readonly Uint8Array[]) {
    this.#leaves = leafHashes;
  }

  /** MTH(D[start:end]). */
  mth(start: number, end: number): Uint8Array {
    const n = end - start;
    if (n === 0) {
      return new Uint8Array(createHash("sha256").digest());
    }
    if (n === 1) {
      return this.#leaves[start] as Uint8Array;
    }
    const key = `${start}:${n}`;
    const cached = this.#perfect.get(key);
    if (cached !== undefined) {
      return cached;
    }
    const k = splitPoint(n);
    const hash = nodeHash(this.mth(start, start + k), this.mth(start + k, end));
    if (k * 2 === n) {
      this.#perfect.set(key, hash);
    }
    return hash;
  }

  /** Root of the tree of the first `size` leaves. */
  root(size: number): Uint8Array {
    return this.mth(0, size);
  }

  /** PATH(index, D[size]). */
  inclusionProof(index: number, size: number): Uint8Array[] {
    return pathSpans(index, 0, size).map(([a, b]) => this.mth(a, b));
  }

  /** PROOF(size1, D[size2]); [] when size1 = size2. */
  consistencyProof(size1: number, size2: number): Uint8Array[] {
    return subproofSpans(size1, 0, size2, true).map(([a, b]) => this.mth(a, b));
  }
}

/** Deterministic distinct leaf data: the 4-byte big-endian index prefixed with "leaf". */
export function leafData(i: number): Uint8Array {
  const out = new Uint8Array(8);
  out.set([0x6c, 0x65, 0x61, 0x66]);
  new DataView(out.buffer).setUint32(4, i);
  return out;
}
