/**
 * RFC 9162 §2.1.3.1 inclusion proofs and §2.1.4.1 consistency proofs, built from stored
 * perfect subtrees. A proof path may contain one ephemeral node (the right-border subtree that is
 * not perfect at this tree size); it is recomputed here from the perfect subtrees covering it, so
 * a proof costs one batch read of O(log n) stored nodes.
 * Model: transparency-dev/merkle `proof.Inclusion` / `proof.Consistency` (node ids, then rehash).
 * @module
 */
import { assertCount, bitLength, shiftRight, trailingZeros, xor } from "./_bits.js";
import { assertHash, type Hash, hashChildren } from "./hasher.js";
import { type NodeHashSource, type NodeId, rangeNodes } from "./nodes.js";

/**
 * The stored nodes a proof path is made of, in proof order: `inner` siblings bottom-up, then the
 * `right` nodes (left to right) whose fold is one proof element, then the `left` border nodes
 * by increasing level.
 */
interface PathPlan {
  readonly inner: NodeId[];
  readonly right: NodeId[];
  readonly left: NodeId[];
}

/**
 * The audit path of the perfect node (level, index) up to the root of a tree of `size` leaves.
 * Requires (index + 1) * 2^level <= size.
 *
 * The fork is the highest ancestor of the node that is still perfect at this size: the node's
 * index and size >> level first differ at bit `forkHeight` (size has 1 there, the index 0).
 * Below the fork every sibling is perfect. The fork's right sibling covers [end, size) (absent
 * when end = size); it is ephemeral unless a single perfect node covers it. Above the fork the
 * path is the perfect subtrees covering [0, begin), all left siblings, lowest first.
 */
function pathPlan(level: number, index: number, size: number): PathPlan {
  const forkHeight = bitLength(xor(index, shiftRight(size, level))) - 1;
  const inner: NodeId[] = [];
  for (let h = 0; h < forkHeight; h++) {
    const ancestor = shiftRight(index, h);
    inner.push({ level: level + h, index: ancestor % 2 === 0 ? ancestor + 1 : ancestor - 1 });
  }
  const forkLevel = level + forkHeight;
  const begin = shiftRight(index, forkHeight) * 2 ** forkLevel;
  const end = begin + 2 ** forkLevel;
  return {
    inner,
    right: rangeNodes(end, size),
    left: rangeNodes(0, begin).reverse(),
  };
}

/** All node ids of a plan, in proof order. */
function planIds(plan: PathPlan): NodeId[] {
  return [...plan.inner, ...plan.right, ...plan.left];
}

/**
 * Reads `seed` and the plan's nodes in one batch (no call when there are none) and turns them
 * into proof hashes, folding the right nodes into the ephemeral node's hash.
 */
async function readPath(
  seed: readonly NodeId[],
  plan: PathPlan,
  source: NodeHashSource,
): Promise<Hash[]> {
  const ids = [...seed, ...planIds(plan)];
  if (ids.length === 0) {
    return [];
  }
  const hashes = await source.getNodes(ids);
  if (!Array.isArray(hashes) || hashes.length !== ids.length) {
    const got = Array.isArray(hashes) ? hashes.length : typeof hashes;
    throw new TypeError(`source.getNodes returned ${got} hashes for ${ids.length} ids`);
  }
  hashes.forEach((h, i) => {
    assertHash(h, `source.getNodes()[${i}]`);
  });
  const rightStart = seed.length + plan.inner.length;
  const rightEnd = rightStart + plan.right.length;
  const proof: Hash[] = hashes.slice(0, rightStart);
  if (rightEnd > rightStart) {
    let ephemeral = hashes[rightEnd - 1] as Hash;
    for (let i = rightEnd - 2; i >= rightStart; i--) {
      ephemeral = hashChildren(hashes[i] as Hash, ephemeral);
    }
    proof.push(ephemeral);
  }
  proof.push(...hashes.slice(rightEnd));
  return proof;
}

function assertIndexInSize(index: number, size: number): void {
  assertCount(index, "index");
  assertCount(size, "size");
  if (index >= size) {
    throw new RangeError(`index must be < size, got index ${index} and size ${size}`);
  }
}

function assertSizes(size1: number, size2: number): void {
  assertCount(size1, "size1");
  assertCount(size2, "size2");
  if (size1 === 0 || size1 > size2) {
    throw new RangeError(`requires 0 < size1 <= size2, got size1 ${size1} and size2 ${size2}`);
  }
}

function consistencyPlan(size1: number, size2: number): { seed: NodeId[]; plan: PathPlan } {
  // The seed is the largest perfect subtree ending at size1. When size1 is a power of two it is
  // the whole old tree, whose root the verifier already holds, so it is left out (RFC 9162
  // §2.1.4.1: SUBPROOF with b = true).
  const level = trailingZeros(size1);
  const index = shiftRight(size1, level) - 1;
  return { seed: index === 0 ? [] : [{ level, index }], plan: pathPlan(level, index, size2) };
}

/**
 * The stored perfect-subtree nodes the inclusion proof of leaf `index` in a tree of `size` leaves
 * needs, distinct, in the order inclusionProof reads them (so storage can prefetch them): the
 * audit path's siblings bottom-up, with the one ephemeral sibling (if any) replaced by the
 * perfect subtrees that cover it, left to right. At most 2 * log2(size) nodes.
 * Requires 0 <= index < size. Source: RFC 9162 §2.1.3.1.
 * @throws RangeError when the arguments are not integers in [0, 2^53 - 1] or index >= size.
 */
export function inclusionProofNodeIds(index: number, size: number): NodeId[] {
  assertIndexInSize(index, size);
  return planIds(pathPlan(0, index, size));
}

/**
 * The RFC 9162 §2.1.3.1 inclusion proof (audit path, bottom-up) of leaf `index` in the tree of
 * the first `size` leaves, read from stored perfect subtrees with ONE `source.getNodes` call
 * (none when the proof is empty, i.e. size 1). The right-border ephemeral node is recomputed.
 * Requires 0 <= index < size, and the source must hold every node completed by the first
 * `size` appends.
 * @returns the proof hashes, empty for a one-leaf tree.
 * @throws RangeError on bad index or size; TypeError when the source returns the wrong number of
 *   hashes or a non-hash; whatever `source.getNodes` throws (e.g. a missing node).
 * @example
 * const proof = await inclusionProof(5, 8, store);
 * verifyInclusion(5, 8, leafHash, proof, root);
 */
export async function inclusionProof(
  index: number,
  size: number,
  source: NodeHashSource,
): Promise<Hash[]> {
  assertIndexInSize(index, size);
  return readPath([], pathPlan(0, index, size), source);
}

/**
 * The stored perfect-subtree nodes the consistency proof from `size1` to `size2` needs,
 * distinct, in the order consistencyProof reads them: the largest perfect subtree ending at
 * size1 (unless size1 is a power of two), then its audit path in the tree of size2 with the
 * ephemeral node replaced by the perfect subtrees covering it. Empty when size1 = size2.
 * Requires 0 < size1 <= size2. Source: RFC 9162 §2.1.4.1.
 * @throws RangeError when the sizes are not integers in [0, 2^53 - 1] or break 0 < size1 <= size2.
 */
export function consistencyProofNodeIds(size1: number, size2: number): NodeId[] {
  assertSizes(size1, size2);
  if (size1 === size2) {
    return [];
  }
  const { seed, plan } = consistencyPlan(size1, size2);
  return [...seed, ...planIds(plan)];
}

/**
 * The RFC 9162 §2.1.4.1 consistency proof PROOF(size1, D[size2]) that the tree of size2 extends
 * the tree of size1, read with ONE `source.getNodes` call (none when size1 = size2, which gives
 * an empty proof). Requires 0 < size1 <= size2 and a source holding every node completed by the
 * first size2 appends.
 * @throws RangeError on bad sizes; TypeError when the source returns the wrong number of hashes
 *   or a non-hash; whatever `source.getNodes` throws.
 * @example
 * const proof = await consistencyProof(3, 7, store);
 * verifyConsistency(3, 7, proof, root3, root7);
 */
export async function consistencyProof(
  size1: number,
  size2: number,
  source: NodeHashSource,
): Promise<Hash[]> {
  assertSizes(size1, size2);
  if (size1 === size2) {
    return [];
  }
  const { seed, plan } = consistencyPlan(size1, size2);
  return readPath(seed, plan, source);
}
