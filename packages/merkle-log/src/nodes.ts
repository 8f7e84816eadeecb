/**
 * Addresses of perfect subtrees and the storage interface the proof builders read through
 * (the data model of transparency-dev/merkle `compact.NodeID`, over RFC 9162 §2.1 trees).
 * @module
 */
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
