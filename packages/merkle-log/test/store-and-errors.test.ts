/**
 * MemoryNodeStore, the proof builders' handling of their NodeHashSource and arguments, and the
 * typed errors of verification (reason codes, RootMismatchError fields). RFC 9162 §2.1.3–2.1.4.
 * @module
 */
import { describe, expect, it } from "vitest";
import {
  CompactRange,
  consistencyProof,
  consistencyProofNodeIds,
  type Hash,
  hashLeaf,
  inclusionProof,
  inclusionProofNodeIds,
  MemoryNodeStore,
  MissingNodeError,
  type NodeHashSource,
  ProofError,
  RootMismatchError,
  rootFromInclusionProof,
  toHex,
  verifyConsistency,
  verifyInclusion,
} from "../src/index.js";
import { leafData } from "./_reference.js";

const leaves = Array.from({ length: 16 }, (_, i) => hashLeaf(leafData(i)));

function build(size: number): { store: MemoryNodeStore; roots: Hash[] } {
  const store = new MemoryNodeStore();
  const range = CompactRange.empty();
  const roots = [range.root()];
  for (const leaf of leaves.slice(0, size)) {
    store.put(range.append(leaf));
    roots.push(range.root());
  }
  return { store, roots };
}

describe("MemoryNodeStore", () => {
  it("stores every node CompactRange.append reports: 2n - 1 for a power-of-two n", () => {
    const { store } = build(16);
    expect(store.nodeCount).toBe(31);
  });

  it("returns copies in the order asked and rejects a missing node with MissingNodeError", async () => {
    const { store } = build(4);
    const [a, b] = await store.getNodes([
      { level: 0, index: 3 },
      { level: 2, index: 0 },
    ]);
    expect(toHex(a as Hash)).toBe(toHex(leaves[3] as Hash));
    (a as Hash).fill(0);
    const [again] = await store.getNodes([{ level: 0, index: 3 }]);
    expect(toHex(again as Hash)).toBe(toHex(leaves[3] as Hash));
    expect(b).toHaveLength(32);
    const missing = store.getNodes([
      { level: 0, index: 0 },
      { level: 1, index: 2 },
    ]);
    await expect(missing).rejects.toBeInstanceOf(MissingNodeError);
    await expect(missing).rejects.toMatchObject({ node: { level: 1, index: 2 } });
  });

  it("put rejects bad levels, indices and hashes", () => {
    const store = new MemoryNodeStore();
    const hash = leaves[0] as Hash;
    expect(() => store.put([{ level: -1, index: 0, hash }])).toThrow(RangeError);
    expect(() => store.put([{ level: 54, index: 0, hash }])).toThrow(RangeError);
    expect(() => store.put([{ level: 0, index: 0.5, hash }])).toThrow(RangeError);
    expect(() => store.put([{ level: 0, index: 0, hash: new Uint8Array(3) }])).toThrow(TypeError);
    expect(store.nodeCount).toBe(0);
  });
});

describe("proof builders", () => {
  it("propagate the source's error when a node is missing", async () => {
    const { store } = build(4);
    await expect(inclusionProof(0, 8, store)).rejects.toBeInstanceOf(MissingNodeError);
    await expect(consistencyProof(3, 8, store)).rejects.toBeInstanceOf(MissingNodeError);
  });

  it("reject a source that returns the wrong number of hashes or a non-hash", async () => {
    const short: NodeHashSource = { getNodes: async () => [] };
    const junk: NodeHashSource = { getNodes: async (ids) => ids.map(() => new Uint8Array(5)) };
    await expect(inclusionProof(1, 4, short)).rejects.toThrow(/returned 0 hashes for 2 ids/);
    await expect(inclusionProof(1, 4, junk)).rejects.toThrow(TypeError);
  });

  it("do not call the source when the proof is empty", async () => {
    const refuse: NodeHashSource = {
      getNodes: async () => {
        throw new Error("unexpected read");
      },
    };
    expect(await inclusionProof(0, 1, refuse)).toEqual([]);
    expect(await consistencyProof(5, 5, refuse)).toEqual([]);
    expect(consistencyProofNodeIds(5, 5)).toEqual([]);
  });

  it("reject out-of-range arguments with a RangeError", async () => {
    const { store } = build(4);
    expect(() => inclusionProofNodeIds(4, 4)).toThrow(RangeError);
    expect(() => inclusionProofNodeIds(-1, 4)).toThrow(RangeError);
    expect(() => inclusionProofNodeIds(0, 2 ** 53)).toThrow(RangeError);
    expect(() => consistencyProofNodeIds(0, 4)).toThrow(RangeError);
    expect(() => consistencyProofNodeIds(5, 4)).toThrow(RangeError);
    await expect(inclusionProof(0, 0, store)).rejects.toThrow(RangeError);
    await expect(consistencyProof(1.5, 4, store)).rejects.toThrow(RangeError);
  });
});

describe("verification errors", () => {
  it("carry reason codes for malformed input", async () => {
    const { store, roots } = build(8);
    const proof = await inclusionProof(2, 8, store);
    const leaf = leaves[2] as Hash;
    const root = roots[8] as Hash;
    const reason = (f: () => void) => {
      try {
        f();
      } catch (e) {
        return e instanceof ProofError ? e.reason : `not a ProofError: ${String(e)}`;
      }
      return "no error";
    };
    expect(reason(() => verifyInclusion(8, 8, leaf, proof, root))).toBe("invalid_index");
    expect(reason(() => verifyInclusion(-1, 8, leaf, proof, root))).toBe("invalid_index");
    expect(reason(() => verifyInclusion(0, 1.5, leaf, proof, root))).toBe("invalid_size");
    expect(reason(() => verifyInclusion(2, 8, leaf.subarray(1), proof, root))).toBe("invalid_hash");
    expect(reason(() => verifyInclusion(2, 8, leaf, [...proof, new Uint8Array(0)], root))).toBe(
      "wrong_proof_length",
    );
    expect(reason(() => verifyInclusion(2, 8, leaf, [new Uint8Array(31), ...proof], root))).toBe(
      "invalid_hash",
    );
    expect(reason(() => verifyInclusion(2, 8, leaf, proof.slice(1), root))).toBe(
      "wrong_proof_length",
    );
    expect(reason(() => verifyInclusion(2, 8, leaf, proof, roots[7] as Hash))).toBe(
      "root_mismatch",
    );
    const r3 = roots[3] as Hash;
    const r8 = roots[8] as Hash;
    const cproof = await consistencyProof(3, 8, store);
    expect(reason(() => verifyConsistency(0, 8, cproof, r3, r8))).toBe("invalid_size");
    expect(reason(() => verifyConsistency(0, 0, [], r3, r3))).toBe("invalid_size");
    expect(reason(() => verifyConsistency(9, 8, cproof, r3, r8))).toBe("invalid_size");
    expect(reason(() => verifyConsistency(3, 3, cproof, r3, r3))).toBe("wrong_proof_length");
    expect(reason(() => verifyConsistency(3, 8, [], r3, r8))).toBe("wrong_proof_length");
    expect(reason(() => verifyConsistency(3, 3, [], r3, r8))).toBe("root_mismatch");
    expect(reason(() => verifyConsistency(3, 8, cproof, r3.subarray(2), r8))).toBe("invalid_hash");
    expect(reason(() => verifyConsistency(3, 8, cproof, r3, r8))).toBe("no error");
  });

  it("stop at the path length: a huge garbage proof costs no more than a valid one", () => {
    const h = leaves[0] as Hash;
    const huge = Array.from({ length: 1_000_000 }, () => h);
    const started = performance.now();
    expect(() => verifyInclusion(3, 1000, h, huge, h)).toThrow(/needs 10/);
    expect(() => verifyConsistency(3, 1000, huge, h, h)).toThrow(ProofError);
    expect(performance.now() - started).toBeLessThan(500);
  });

  it("RootMismatchError names both roots", async () => {
    const { store, roots } = build(8);
    const proof = await inclusionProof(5, 8, store);
    const wrong = roots[6] as Hash;
    let error: unknown;
    try {
      verifyInclusion(5, 8, leaves[5] as Hash, proof, wrong);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(RootMismatchError);
    const mismatch = error as RootMismatchError;
    expect(mismatch.reason).toBe("root_mismatch");
    expect(toHex(mismatch.expectedRoot)).toBe(toHex(wrong));
    expect(toHex(mismatch.calculatedRoot)).toBe(toHex(roots[8] as Hash));
    expect(mismatch.message).toContain(toHex(wrong));
  });

  it("wrong argument types are TypeErrors, not ProofErrors", () => {
    const h = leaves[0] as Hash;
    expect(() => verifyInclusion(0, 1, h, "x" as unknown as Hash[], h)).toThrow(TypeError);
    expect(() => verifyInclusion(0, 1, h, [], "x" as unknown as Hash)).toThrow(TypeError);
    expect(() => verifyInclusion(0, 2, h, ["x" as unknown as Hash], h)).toThrow(TypeError);
    expect(() => verifyConsistency(1, 2, [h], h, null as unknown as Hash)).toThrow(TypeError);
  });

  it("rootFromInclusionProof returns a fresh array for a one-leaf tree", () => {
    const leaf = leaves[0] as Hash;
    const root = rootFromInclusionProof(0, 1, leaf, []);
    expect(root).not.toBe(leaf);
    expect(toHex(root)).toBe(toHex(leaf));
  });
});
