/**
 * The steps of an RFC 9162 §2.1.3.2 inclusion-proof check, kept for drawing: from the leaf hash,
 * each proof node is hashed in on its side (`HASH(0x01 ‖ left ‖ right)`) until the root. The
 * same algorithm `verifyInclusion` of `@verifiable-memory/merkle-log` runs, here with every
 * intermediate hash recorded.
 * @module
 */
import { fromHex, hashChildren, toHex } from "@verifiable-memory/merkle-log";

/** One level of the path. */
export interface PathStep {
  /** The proof node (the sibling), lowercase hex. */
  readonly sibling: string;
  /** Where the sibling sits: left of the running hash, or right of it. */
  readonly side: "left" | "right";
  /** The running hash after this step, lowercase hex. */
  readonly result: string;
}

/** The recomputed path: its steps and the root they reach (null when the proof is malformed). */
export interface RecomputedPath {
  readonly steps: readonly PathStep[];
  readonly root: string | null;
  /** Why no root was reached, when it was not. */
  readonly problem: string | null;
}

/**
 * Recomputes the path of leaf `leafIndex` in a tree of `treeSize` leaves (RFC 9162 §2.1.3.2).
 * Arithmetic is on plain numbers with division, not 32-bit shifts (sizes up to 2^53 − 1).
 * @param leafHash the leaf hash, lowercase hex.
 * @param proof the proof nodes, lowercase hex, leaf level first.
 */
export function recomputePath(
  leafIndex: number,
  treeSize: number,
  leafHash: string,
  proof: readonly string[],
): RecomputedPath {
  if (!(leafIndex >= 0 && leafIndex < treeSize)) {
    return { steps: [], root: null, problem: `leaf ${leafIndex} is outside a tree of ${treeSize}` };
  }
  let fn = leafIndex;
  let sn = treeSize - 1;
  let running = fromHex(leafHash);
  const steps: PathStep[] = [];
  for (const node of proof) {
    if (sn === 0) {
      return { steps, root: null, problem: "the proof has more nodes than the tree has levels" };
    }
    const sibling = fromHex(node);
    if (fn % 2 === 1 || fn === sn) {
      running = hashChildren(sibling, running);
      steps.push({ sibling: node, side: "left", result: toHex(running) });
      if (fn % 2 === 0) {
        while (fn % 2 === 0 && fn !== 0) {
          fn = Math.floor(fn / 2);
          sn = Math.floor(sn / 2);
        }
      }
    } else {
      running = hashChildren(running, sibling);
      steps.push({ sibling: node, side: "right", result: toHex(running) });
    }
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  if (sn !== 0) {
    return { steps, root: null, problem: "the proof has fewer nodes than the path needs" };
  }
  return { steps, root: toHex(running), problem: null };
}
