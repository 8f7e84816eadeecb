/**
 * Addresses of perfect subtrees and the storage interface the proof builders read through
 * (the data model of transparency-dev/merkle `compact.NodeID`, over RFC 9162 §2.1 trees).
 * @module
 */
import { assertCount, bitLength, trailingZeros, xor } from "./_bits.js";
import type { Hash } from "./hasher.js";

/**
 * A perfect subtree of 2^level leaves covering leaves [index * 2^level, (index + 1) * 2^level).
 * Level 0 nodes are leaves. Such a node's hash never changes once the log holds all its leaves,
 * so it can be stored; nodes on the right border of a tree whose size is not a power of two are
 * not perfect ("ephemeral") and are recomputed from perfect ones instead.
 */
export interface NodeId {
  readonly level: number;
  readonly index: number;
}

/** A perfect subtree together with its hash, as returned by CompactRange.append. */
export interface StoredNode extends NodeId {
  readonly hash: Hash;
}

/**
 * Batch read of stored perfect-subtree hashes. Implementations (a database table, or
 * MemoryNodeStore) return the hashes in the order of `ids`, one per id, and reject (throw) when
 * any id is missing rather than returning a placeholder.
 */
export interface NodeHashSource {
  getNodes(ids: readonly NodeId[]): Promise<readonly Hash[]>;
}

/**
 * The perfect subtrees covering leaves [begin, end), left to right: the unique shortest such
 * list. Along the range's left border they grow (by increasing level), along its right border
 * they shrink; for begin = 0 they are the popcount(end) subtrees of the tree of `end` leaves,
 * largest first, whose hashes are its compact range (RFC 9162 §2.1.1 MTH folds them right to
 * left). Source: transparency-dev/merkle `compact.RangeNodes` and `compact.Decompose`.
 * @throws RangeError when `begin` or `end` is not an integer in [0, 2^53 - 1], or begin > end.
 */
export function rangeNodes(begin: number, end: number): NodeId[] {
  assertCount(begin, "begin");
  assertCount(end, "end");
  if (begin > end) {
    throw new RangeError(`begin must not exceed end, got [${begin}, ${end})`);
  }
  let left = 0;
  let right = end;
  if (begin > 0) {
    // Below the level where the paths to leaves begin - 1 and end part, the left border's nodes
    // are the zero bits of begin - 1, the right border's the one bits of end.
    const width = 2 ** (bitLength(xor(begin - 1, end)) - 1);
    left = width - 1 - ((begin - 1) % width);
    right = end % width;
  }
  const nodes: NodeId[] = [];
  let position = begin;
  while (left > 0) {
    const level = trailingZeros(left);
    nodes.push({ level, index: position / 2 ** level });
    position += 2 ** level;
    left -= 2 ** level;
  }
  while (right > 0) {
    const level = bitLength(right) - 1;
    nodes.push({ level, index: position / 2 ** level });
    position += 2 ** level;
    right -= 2 ** level;
  }
  return nodes;
}
