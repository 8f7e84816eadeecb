/**
 * Verification of RFC 9162 inclusion proofs (§2.1.3.2) and consistency proofs (§2.1.4.2),
 * following the RFC's bit-walking algorithms step by step. Pure and synchronous: this is what an
 * auditor runs against a root read from the chain.
 * @module
 */
import { bitLength, isCount, popcount, shiftRight, xor } from "./_bits.js";
import { ProofError, RootMismatchError } from "./errors.js";
import { HASH_SIZE, type Hash, hashChildren } from "./hasher.js";

/** Length of the audit path of leaf `index` in a tree of `size` leaves (for error messages). */
function inclusionPathLength(index: number, size: number): number {
  const inner = bitLength(xor(index, size - 1));
  return inner + popcount(shiftRight(index, inner));
}

function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) {
    return false;
  }
  for (let i = 0; i < a.length; i++) {
    if (a[i] !== b[i]) {
      return false;
    }
  }
  return true;
}

function half(x: number): number {
  return Math.floor(x / 2);
}

function assertBytes(value: unknown, name: string): asserts value is Uint8Array {
  if (!(value instanceof Uint8Array)) {
    throw new TypeError(`${name} must be a Uint8Array, got ${typeof value}`);
  }
}

function assertProofArray(proof: unknown): asserts proof is readonly unknown[] {
  if (!Array.isArray(proof)) {
    throw new TypeError(`proof must be an array of Uint8Arrays, got ${typeof proof}`);
  }
}

/** A 32-byte hash from untrusted input, else ProofError `invalid_hash` (TypeError if not bytes). */
function hashInput(value: unknown, name: string): Hash {
  assertBytes(value, name);
  if (value.length !== HASH_SIZE) {
    throw new ProofError("invalid_hash", `${name} is ${value.length} bytes, expected 32`);
  }
  return value;
}

/**
 * The root implied by an inclusion proof (RFC 9162 §2.1.3.2 steps 1–5, without the final
 * comparison): the tree of `treeSize` leaves would have this root if `leafHash` is leaf
 * `leafIndex` and `proof` its audit path.
 * @param leafIndex 0-based leaf index; requires 0 <= leafIndex < treeSize.
 * @param treeSize number of leaves of the tree the proof is for.
 * @param leafHash the leaf's 32-byte hash (hashLeaf of its data).
 * @param proof the audit path, bottom-up, 32-byte hashes.
 * @returns a fresh 32-byte root.
 * @throws ProofError `invalid_size` / `invalid_index` / `invalid_hash` / `wrong_proof_length`
 *   for a malformed input; TypeError when `leafHash` or a proof element is not a Uint8Array or
 *   `proof` is not an array.
 */
export function rootFromInclusionProof(
  leafIndex: number,
  treeSize: number,
  leafHash: Hash,
  proof: readonly Hash[],
): Hash {
  if (!isCount(treeSize)) {
    throw new ProofError(
      "invalid_size",
      `treeSize must be an integer in [0, 2^53 - 1], got ${String(treeSize)}`,
    );
  }
  if (!isCount(leafIndex) || leafIndex >= treeSize) {
    throw new ProofError(
      "invalid_index",
      `leafIndex ${String(leafIndex)} is not an integer in [0, treeSize ${treeSize})`,
    );
  }
  let r = hashInput(leafHash, "leafHash");
  assertProofArray(proof);
  const wrongLength = (): ProofError =>
    new ProofError(
      "wrong_proof_length",
      `proof has ${proof.length} hashes; leaf ${leafIndex} of a tree of size ${treeSize} needs ${inclusionPathLength(leafIndex, treeSize)}`,
    );
  // Step 2: fn walks the leaf's position, sn the last leaf's position, level by level.
  let fn = leafIndex;
  let sn = treeSize - 1;
  for (let i = 0; i < proof.length; i++) {
    // Step 4a: the path already reached the root.
    if (sn === 0) {
      throw wrongLength();
    }
    const p = hashInput(proof[i], `proof[${i}]`);
    if (fn % 2 === 1 || fn === sn) {
      // p is a left sibling. When fn = sn is even, the node is the last of its level and has no
      // right sibling: it rises unchanged to the first level where it is a right child (fn odd),
      // and p is its left sibling there. The loop skips the levels in between.
      r = hashChildren(p, r);
      while (fn % 2 === 0 && fn !== 0) {
        fn = half(fn);
        sn = half(sn);
      }
    } else {
      r = hashChildren(r, p);
    }
    fn = half(fn);
    sn = half(sn);
  }
  // Step 5: a complete path ends at the root.
  if (sn !== 0) {
    throw wrongLength();
  }
  return r === leafHash ? leafHash.slice() : r;
}

/**
 * Verifies that `leafHash` is leaf `leafIndex` of the tree of `treeSize` leaves whose root is
 * `root`, given its audit path (RFC 9162 §2.1.3.2). Returns normally when the proof holds.
 * @param root the trusted 32-byte root (e.g. from the on-chain commitment).
 * @throws RootMismatchError when the proof is well formed but leads to another root.
 * @throws ProofError (`reason` says why) for a malformed index, size, hash or proof length.
 * @throws TypeError when an argument has the wrong type (not a Uint8Array / array).
 * @example
 * verifyInclusion(leafIndex, treeSize, fromHex(leafHashHex), proofHex.map(fromHex), fromHex(rootHex));
 */
export function verifyInclusion(
  leafIndex: number,
  treeSize: number,
  leafHash: Hash,
  proof: readonly Hash[],
  root: Hash,
): void {
  assertBytes(root, "root");
  const calculated = rootFromInclusionProof(leafIndex, treeSize, leafHash, proof);
  if (!bytesEqual(calculated, root)) {
    throw new RootMismatchError(root.slice(), calculated);
  }
}

/**
 * Verifies that the tree of `size2` leaves with root `root2` extends the tree of `size1` leaves
 * with root `root1`, given the consistency proof PROOF(size1, D[size2]) (RFC 9162 §2.1.4.2).
 * Requires 0 < size1 <= size2; size1 = size2 needs an empty proof and equal roots.
 * Returns normally when the proof holds.
 * @throws RootMismatchError when the proof is well formed but yields another root1 or root2.
 * @throws ProofError `invalid_size` (size1 = 0, size1 > size2, not integers), `invalid_hash`,
 *   `wrong_proof_length`.
 * @throws TypeError when an argument has the wrong type (not a Uint8Array / array).
 * @example
 * verifyConsistency(oldSize, newSize, proof, oldRoot, newRoot);
 */
export function verifyConsistency(
  size1: number,
  size2: number,
  proof: readonly Hash[],
  root1: Hash,
  root2: Hash,
): void {
  if (!isCount(size1) || !isCount(size2) || size1 > size2) {
    throw new ProofError(
      "invalid_size",
      `sizes must be integers with 0 < size1 <= size2, got ${String(size1)} and ${String(size2)}`,
    );
  }
  if (size1 === 0) {
    throw new ProofError("invalid_size", "a consistency proof from the empty tree proves nothing");
  }
  assertBytes(root1, "root1");
  assertBytes(root2, "root2");
  assertProofArray(proof);
  if (size1 === size2) {
    if (proof.length !== 0) {
      throw new ProofError("wrong_proof_length", "size1 = size2 requires an empty proof");
    }
    if (!bytesEqual(root1, root2)) {
      throw new RootMismatchError(root2.slice(), root1.slice());
    }
    return;
  }
  // Step 1.
  if (proof.length === 0) {
    throw new ProofError("wrong_proof_length", "size1 < size2 requires a non-empty proof");
  }
  const first = hashInput(root1, "root1");
  // Step 2: when size1 is a power of two, the old root itself starts the path (path element i
  // is then proof[i - 1]; the proof is not copied).
  const shift = size1 === 2 ** (bitLength(size1) - 1) ? 1 : 0;
  const pathLength = proof.length + shift;
  const element = (i: number): Hash =>
    i < shift ? first : hashInput(proof[i - shift], `proof[${i - shift}]`);
  // Step 3.
  let fn = size1 - 1;
  let sn = size2 - 1;
  // Step 4.
  while (fn % 2 === 1) {
    fn = half(fn);
    sn = half(sn);
  }
  // Step 5.
  let fr = element(0);
  let sr = fr;
  // Step 6.
  for (let i = 1; i < pathLength; i++) {
    if (sn === 0) {
      throw new ProofError(
        "wrong_proof_length",
        `proof has ${proof.length} hashes, more than a consistency proof from ${size1} to ${size2} has`,
      );
    }
    const c = element(i);
    if (fn % 2 === 1 || fn === sn) {
      fr = hashChildren(c, fr);
      sr = hashChildren(c, sr);
      while (fn % 2 === 0 && fn !== 0) {
        fn = half(fn);
        sn = half(sn);
      }
    } else {
      sr = hashChildren(sr, c);
    }
    fn = half(fn);
    sn = half(sn);
  }
  // Step 7.
  if (sn !== 0) {
    throw new ProofError(
      "wrong_proof_length",
      `proof has ${proof.length} hashes, fewer than a consistency proof from ${size1} to ${size2} has`,
    );
  }
  if (!bytesEqual(fr, first)) {
    throw new RootMismatchError(first.slice(), fr);
  }
  if (!bytesEqual(sr, root2)) {
    throw new RootMismatchError(root2.slice(), sr);
  }
}
