/**
 * Typed errors of proof verification (RFC 9162 §2.1.3.2, §2.1.4.2), after transparency-dev/merkle
 * `proof.RootMismatchError`. Apps map them to `proof_invalid` / `root_mismatch` at their edge.
 * @module
 */
import { toHex } from "./hex.js";

/**
 * Why a proof was rejected:
 * - `invalid_index`: the leaf index is not an integer in [0, treeSize).
 * - `invalid_size`: a tree size is not an integer in [0, 2^53 - 1], or the sizes break
 *   0 < size1 <= size2 (a consistency proof from the empty tree proves nothing).
 * - `invalid_hash`: the leaf hash or a proof element is not 32 bytes.
 * - `wrong_proof_length`: the proof has more or fewer elements than the path needs.
 * - `root_mismatch`: the proof is well formed but leads to another root (RootMismatchError).
 */
export type ProofErrorReason =
  | "invalid_index"
  | "invalid_size"
  | "invalid_hash"
  | "wrong_proof_length"
  | "root_mismatch";

/** A proof that does not verify: malformed (see `reason`) or leading to the wrong root. */
export class ProofError extends Error {
  readonly reason: ProofErrorReason;

  constructor(reason: ProofErrorReason, message: string) {
    super(message);
    this.name = "ProofError";
    this.reason = reason;
  }
}

/** A well-formed proof whose recomputed root differs from the expected (trusted) root. */
export class RootMismatchError extends ProofError {
  /** The root the caller trusts (e.g. read from the chain). */
  readonly expectedRoot: Uint8Array;
  /** The root recomputed from the proof. */
  readonly calculatedRoot: Uint8Array;

  constructor(expectedRoot: Uint8Array, calculatedRoot: Uint8Array) {
    super(
      "root_mismatch",
      `calculated root ${toHex(calculatedRoot)} does not match expected root ${toHex(expectedRoot)}`,
    );
    this.name = "RootMismatchError";
    this.expectedRoot = expectedRoot;
    this.calculatedRoot = calculatedRoot;
  }
}
