/**
 * Compact range [0, size) of an append-only RFC 9162 §2.1 Merkle tree: the roots of the perfect
 * subtrees that make up the tree's frontier, one per set bit of `size`. Appends cost amortized
 * two node hashes and report every perfect subtree they complete, so storage can persist them.
 * Model: transparency-dev/merkle `compact.Range` (docs/compact_ranges.md).
 * @module
 */
import { assertCount, popcount } from "./_bits.js";
import { assertHash, emptyRootCopy, type Hash, hashChildren } from "./hasher.js";
import type { StoredNode } from "./nodes.js";

/** The frontier of an append-only Merkle tree over leaves [0, size). */
export class CompactRange {
  #size: number;
  // Roots of the frontier's perfect subtrees, left to right: largest (highest set bit of size)
  // first. The byte arrays are never mutated after they enter the range, so clones share them.
  readonly #hashes: Hash[];

  private constructor(size: number, hashes: Hash[]) {
    this.#size = size;
    this.#hashes = hashes;
  }

  /** The range of the empty tree (size 0, no hashes). */
  static empty(): CompactRange {
    return new CompactRange(0, []);
  }

  /**
   * Restores a range saved as `{ size, hashes }` (for instance from the database).
   * @param size number of leaves, an integer in [0, 2^53 - 1].
   * @param hashes roots of the frontier's perfect subtrees, left to right: one per set bit of
   *   `size`, largest subtree first. They are copied.
   * @throws RangeError when `size` is not such an integer or `hashes.length` is not popcount(size).
   * @throws TypeError when an element of `hashes` is not a 32-byte Uint8Array.
   */
  static fromState(size: number, hashes: readonly Hash[]): CompactRange {
    assertCount(size, "size");
    if (!Array.isArray(hashes)) {
      throw new TypeError("hashes must be an array of 32-byte Uint8Arrays");
    }
    const want = popcount(size);
    if (hashes.length !== want) {
      throw new RangeError(
        `hashes must hold popcount(size) = ${want} hashes for size ${size}, got ${hashes.length}`,
      );
    }
    return new CompactRange(
      size,
      hashes.map((h, i) => {
        assertHash(h, `hashes[${i}]`);
        return h.slice();
      }),
    );
  }

  /** Number of leaves in the range. */
  get size(): number {
    return this.#size;
  }

  /** The frontier's perfect-subtree roots, left to right (a copy of the list; do not mutate). */
  get hashes(): readonly Hash[] {
    return this.#hashes.slice();
  }

  /**
   * Appends one leaf (RFC 9162 §2.1.1 leaf hash, e.g. from hashLeaf).
   * @param leafHash the new leaf's 32-byte hash; copied.
   * @returns every perfect subtree completed by this append, bottom-up: the leaf itself at
   *   level 0 and then one node per trailing one bit of the previous size (1 + trailingOnes(size)
   *   nodes), each with its level, index and hash, ready to be persisted.
   * @throws TypeError when `leafHash` is not a 32-byte Uint8Array.
   * @throws RangeError when the range already holds 2^53 - 1 leaves.
   */
  append(leafHash: Hash): StoredNode[] {
    assertHash(leafHash, "leafHash");
    if (this.#size >= Number.MAX_SAFE_INTEGER) {
      throw new RangeError("the range is full: size would exceed 2^53 - 1");
    }
    let hash: Hash = leafHash.slice();
    let level = 0;
    let index = this.#size;
    const completed: StoredNode[] = [{ level, index, hash }];
    // Each trailing one bit of the old size is a frontier subtree of the same height as the
    // node just completed, immediately to its left: merge them into their parent.
    for (let rest = this.#size; rest % 2 === 1; rest = Math.floor(rest / 2)) {
      // One frontier hash per set bit of size, so this pop always yields a hash.
      const left = this.#hashes.pop() as Hash;
      hash = hashChildren(left, hash);
      level += 1;
      index = Math.floor(index / 2);
      completed.push({ level, index, hash });
    }
    this.#hashes.push(hash);
    this.#size += 1;
    return completed;
  }

  /**
   * The tree's root MTH(D[size]) (RFC 9162 §2.1.1), folding the frontier from right to left:
   * it equals rootFromLeafHashes over all appended leaves at every size.
   * @returns a fresh hash; a copy of EMPTY_ROOT at size 0.
   */
  root(): Hash {
    const hashes = this.#hashes;
    if (hashes.length === 0) {
      return emptyRootCopy();
    }
    let acc = hashes[hashes.length - 1] as Hash;
    if (hashes.length === 1) {
      return acc.slice();
    }
    for (let i = hashes.length - 2; i >= 0; i--) {
      acc = hashChildren(hashes[i] as Hash, acc);
    }
    return acc;
  }

  /** An independent copy: appends to one do not affect the other. */
  clone(): CompactRange {
    return new CompactRange(this.#size, this.#hashes.slice());
  }
}
