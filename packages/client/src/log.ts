/**
 * The log calls of the SDK client (docs/protocol.md §6.4 "The log head", §6.3 "Consistency proof
 * (RFC 9162 §2.1.4)"): the caller's tree head and consistency proofs.
 * @module
 */
import { type RawClient, unwrap } from "./calls.js";
import type { ConsistencyProof, LogHead } from "./types.js";

/** The caller's Merkle log. */
export interface LogCalls {
  /**
   * The tree head and the latest anchored checkpoint: `GET /log` →
   * `{ treeSize, rootHash, anchored: { treeSize, rootHash, nonce, signature } | null }`.
   * @throws SvcError `unauthorized`, `insufficient_scope`.
   */
  get(): Promise<LogHead>;
  /**
   * An RFC 9162 consistency proof between two tree sizes: `GET /log/consistency`
   * (`1 ≤ from ≤ to ≤ treeSize`) → `{ from, to, fromRoot, toRoot, proof }`. Check it with
   * `verifyConsistency` of `@verifiable-memory/merkle-log` against the root *you* kept.
   * @throws SvcError `invalid_request` (a range outside the tree).
   */
  consistency(from: number, to: number): Promise<ConsistencyProof>;
}

/** The log calls over `raw`. */
export function logCalls(raw: RawClient): LogCalls {
  return {
    get: () => unwrap(raw.GET("/log")),
    async consistency(from, to) {
      return unwrap(raw.GET("/log/consistency", { params: { query: { from, to } } }));
    },
  };
}
