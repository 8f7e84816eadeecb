/**
 * In-memory NodeHashSource for tests, tools and auditors: stores the perfect subtrees reported by
 * CompactRange.append and serves them to inclusionProof / consistencyProof.
 * @module
 */
import { assertCount } from "./_bits.js";
import { assertHash, type Hash } from "./hasher.js";
import type { NodeHashSource, NodeId, StoredNode } from "./nodes.js";

/** Thrown by MemoryNodeStore.getNodes when a requested node was never stored. */
export class MissingNodeError extends Error {
  /** The first requested node that is missing. */
  readonly node: NodeId;

  constructor(node: NodeId) {
    super(`node (level ${node.level}, index ${node.index}) is not stored`);
    this.name = "MissingNodeError";
    this.node = { level: node.level, index: node.index };
  }
}

/**
 * A Map-backed store of perfect-subtree hashes, one map per level keyed by index.
 * @example
 * const range = CompactRange.empty();
 * const store = new MemoryNodeStore();
 * for (const leaf of leafHashes) store.put(range.append(leaf));
 * const proof = await inclusionProof(3, range.size, store);
 */
export class MemoryNodeStore implements NodeHashSource {
  readonly #levels: Map<number, Hash>[] = [];
  #count = 0;

  /** Number of distinct nodes stored. */
  get nodeCount(): number {
    return this.#count;
  }

  /**
   * Stores nodes (typically the output of CompactRange.append); a node stored again is
   * overwritten. Hashes are kept by reference: CompactRange hands out fresh arrays.
   * @throws RangeError when a level or index is not an integer in [0, 2^53 - 1] (levels <= 53).
   * @throws TypeError when a hash is not a 32-byte Uint8Array.
   */
  put(nodes: readonly StoredNode[]): void {
    for (const node of nodes) {
      assertCount(node.level, "node.level");
      if (node.level > 53) {
        throw new RangeError(`node.level must be <= 53, got ${node.level}`);
      }
      assertCount(node.index, "node.index");
      assertHash(node.hash, "node.hash");
      let level = this.#levels[node.level];
      if (level === undefined) {
        level = new Map();
        this.#levels[node.level] = level;
      }
      if (!level.has(node.index)) {
        this.#count += 1;
      }
      level.set(node.index, node.hash);
    }
  }

  /**
   * Reads stored hashes in the order of `ids` (NodeHashSource). Each result is a copy.
   * @throws MissingNodeError (rejects) for the first id that was never stored.
   */
  async getNodes(ids: readonly NodeId[]): Promise<readonly Hash[]> {
    return ids.map((id) => {
      const hash = this.#levels[id.level]?.get(id.index);
      if (hash === undefined) {
        throw new MissingNodeError(id);
      }
      return hash.slice();
    });
  }
}
