/**
 * Property tests (fast-check) of inclusion and consistency proofs: generated proofs equal the
 * RFC 9162 §2.1.3.1 PATH / §2.1.4.1 PROOF of the independent reference (test/_reference.ts),
 * verify (§2.1.3.2, §2.1.4.2), are read with one batch of the expected perfect nodes, and every
 * tampered variant is rejected (the mutations of transparency-dev/merkle `cmd/proofgen`).
 * @module
 */
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import {
  CompactRange,
  consistencyProof,
  consistencyProofNodeIds,
  type Hash,
  hashLeaf,
  inclusionProof,
  inclusionProofNodeIds,
  MemoryNodeStore,
  type NodeHashSource,
  type NodeId,
  ProofError,
  RootMismatchError,
  rootFromInclusionProof,
  toHex,
  verifyConsistency,
  verifyInclusion,
} from "../src/index.js";
import { leafData, pathSpans, perfectBlocks, ReferenceTree, subproofSpans } from "./_reference.js";

const MAX_LEAVES = 100_000;
// One leaf more than the largest tree size drawn, so that "size + 1" mutations have a root.
const leaves: Hash[] = Array.from({ length: MAX_LEAVES + 1 }, (_, i) => hashLeaf(leafData(i)));
const reference = new ReferenceTree(leaves);
const store = new MemoryNodeStore();

beforeAll(() => {
  const range = CompactRange.empty();
  for (const leaf of leaves) {
    store.put(range.append(leaf));
  }
});

/** The store, counting batch reads and recording the ids asked for. */
function countingSource(): NodeHashSource & { calls: NodeId[][] } {
  const calls: NodeId[][] = [];
  return {
    calls,
    getNodes(ids) {
      calls.push([...ids]);
      return store.getNodes(ids);
    },
  };
}

/** Tree sizes: mostly small (many shapes), sometimes up to MAX_LEAVES. */
const treeSize = (min: number) =>
  fc.oneof(fc.integer({ min, max: 70 }), fc.integer({ min, max: MAX_LEAVES }));

/** (index, size) with 0 <= index < size. */
const leafInTree = (minSize: number) =>
  treeSize(minSize).chain((size) =>
    fc.record({ size: fc.constant(size), index: fc.integer({ min: 0, max: size - 1 }) }),
  );

/** (size1, size2) with 0 < size1 < size2. */
const growth = treeSize(2).chain((size2) =>
  fc.record({ size1: fc.integer({ min: 1, max: size2 - 1 }), size2: fc.constant(size2) }),
);

/** Safe integers up to 2^53 - 1, biased towards the 32-bit boundary and the top. */
const bigSize = fc.oneof(
  fc.bigInt({ min: 1n, max: 2n ** 53n - 1n }).map(Number),
  fc.integer({ min: -4, max: 4 }).map((d) => 2 ** 32 + d),
  fc.integer({ min: 1, max: 8 }).map((d) => 2 ** 53 - d),
);

function pick<T>(items: readonly T[], at: number): T {
  return items[at % items.length] as T;
}

function flipBit(proof: readonly Hash[], element: number, bit: number): Hash[] {
  const out = proof.map((h) => h.slice());
  const target = pick(out, element);
  target[bit >> 3] = (target[bit >> 3] as number) ^ (1 << (bit & 7));
  return out;
}

/** ProofError or one of its subclasses. */
type ProofErrorClass = new (...args: never[]) => ProofError;

const randomHash = fc.uint8Array({ minLength: 32, maxLength: 32 });

describe("inclusion proofs", () => {
  it("for every (index, size) up to 64 leaves equal RFC PATH and verify", async () => {
    for (let size = 1; size <= 64; size++) {
      for (let index = 0; index < size; index++) {
        const proof = await inclusionProof(index, size, store);
        expect(proof.map(toHex)).toEqual(reference.inclusionProof(index, size).map(toHex));
        verifyInclusion(index, size, leaves[index] as Hash, proof, reference.root(size));
      }
    }
  });

  it("for random (index, size) equal RFC PATH, verify, and cost one read of the planned nodes", async () => {
    await fc.assert(
      fc.asyncProperty(leafInTree(1), async ({ index, size }) => {
        const source = countingSource();
        const proof = await inclusionProof(index, size, source);
        expect(proof.map(toHex)).toEqual(reference.inclusionProof(index, size).map(toHex));
        verifyInclusion(index, size, leaves[index] as Hash, proof, reference.root(size));
        const ids = inclusionProofNodeIds(index, size);
        expect(source.calls).toEqual(ids.length === 0 ? [] : [ids]);
        expect(ids.length).toBeLessThanOrEqual(2 * Math.ceil(Math.log2(size)));
        expect(new Set(ids.map((id) => `${id.level}/${id.index}`)).size).toBe(ids.length);
        for (const id of ids) {
          expect((id.index + 1) * 2 ** id.level).toBeLessThanOrEqual(size);
        }
      }),
      { numRuns: 300 },
    );
  });

  it("node ids match the RFC path's perfect subtrees for sizes up to 2^53 - 1", () => {
    fc.assert(
      fc.property(
        bigSize.chain((size) =>
          fc.record({
            size: fc.constant(size),
            index: fc.bigInt({ min: 0n, max: BigInt(size - 1) }).map(Number),
          }),
        ),
        ({ index, size }) => {
          const expected = pathSpans(index, 0, size).flatMap(perfectBlocks);
          expect(inclusionProofNodeIds(index, size)).toEqual(expected);
        },
      ),
      { numRuns: 500 },
    );
    expect(inclusionProofNodeIds(2 ** 53 - 2, 2 ** 53 - 1)).toEqual(
      pathSpans(2 ** 53 - 2, 0, 2 ** 53 - 1).flatMap(perfectBlocks),
    );
  });

  it("the verifier accepts exactly the RFC path length for sizes up to 2^53 - 1", () => {
    fc.assert(
      fc.property(
        bigSize.chain((size) =>
          fc.record({
            size: fc.constant(size),
            index: fc.bigInt({ min: 0n, max: BigInt(size - 1) }).map(Number),
            filler: randomHash,
          }),
        ),
        ({ index, size, filler }) => {
          const length = pathSpans(index, 0, size).length;
          const proof = (n: number) => Array.from({ length: n }, () => filler);
          expect(() => rootFromInclusionProof(index, size, filler, proof(length))).not.toThrow();
          for (const wrong of [length - 1, length + 1].filter((n) => n >= 0)) {
            expect(() => rootFromInclusionProof(index, size, filler, proof(wrong))).toThrow(
              expect.objectContaining({ reason: "wrong_proof_length" }),
            );
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe("tampered inclusion proofs are rejected", () => {
  const check = (
    mutate: (c: { index: number; size: number; proof: Hash[]; leaf: Hash; root: Hash }) => {
      index: number;
      size: number;
      proof: readonly Hash[];
      leaf: Hash;
      root: Hash;
    },
    expectedError: ProofErrorClass = ProofError,
    minSize = 1,
  ) =>
    fc.assert(
      fc.asyncProperty(leafInTree(minSize), async ({ index, size }) => {
        const proof = await inclusionProof(index, size, store);
        const leaf = leaves[index] as Hash;
        const root = reference.root(size);
        const bad = mutate({ index, size, proof, leaf, root });
        expect(() => verifyInclusion(bad.index, bad.size, bad.leaf, bad.proof, bad.root)).toThrow(
          expectedError,
        );
      }),
      { numRuns: 100 },
    );

  it("any flipped bit in any proof element", async () => {
    await fc.assert(
      fc.asyncProperty(
        leafInTree(2),
        fc.nat(),
        fc.integer({ min: 0, max: 255 }),
        async (c, e, b) => {
          const proof = await inclusionProof(c.index, c.size, store);
          const bad = flipBit(proof, e, b);
          expect(() =>
            verifyInclusion(c.index, c.size, leaves[c.index] as Hash, bad, reference.root(c.size)),
          ).toThrow(RootMismatchError);
        },
      ),
      { numRuns: 200 },
    );
  });

  it("index + 1", () => check((c) => ({ ...c, index: c.index + 1 })));
  it("index - 1", () => check((c) => ({ ...c, index: c.index - 1 })));
  it("size * 2", () => check((c) => ({ ...c, size: c.size * 2 })));
  it("size / 2", () => check((c) => ({ ...c, size: Math.floor(c.size / 2) })));
  it("size + 1, checked against the checkpoint of that size", () =>
    check((c) => ({ ...c, size: c.size + 1, root: reference.root(c.size + 1) })));
  it("truncated path", () => check((c) => ({ ...c, proof: c.proof.slice(0, -1) }), ProofError, 2));
  it("extended path (trailing hash)", () => check((c) => ({ ...c, proof: [...c.proof, c.root] })));
  it("extended path (leading hash)", () => check((c) => ({ ...c, proof: [c.leaf, ...c.proof] })));
  it("wrong leaf", () =>
    check((c) => ({ ...c, leaf: leaves[(c.index + 1) % MAX_LEAVES] as Hash }), RootMismatchError));
  it("root of another size", () =>
    check((c) => ({ ...c, root: reference.root(c.size + 1) }), RootMismatchError));

  it("the root does not commit to the size: take size and root from one trusted checkpoint", () => {
    // RFC 9162 roots carry no size. The audit path of leaf 0 in a 3-leaf tree has the same
    // shape as in a 4-leaf tree, so it "verifies" the pair (size 4, root of size 3) — a pair no
    // honest checkpoint contains. The test above shows the real attack (an old proof against a
    // newer checkpoint) fails.
    return inclusionProof(0, 3, store).then((proof) => {
      expect(() =>
        verifyInclusion(0, 4, leaves[0] as Hash, proof, reference.root(3)),
      ).not.toThrow();
      expect(() => verifyInclusion(0, 4, leaves[0] as Hash, proof, reference.root(4))).toThrow(
        RootMismatchError,
      );
    });
  });
});

describe("consistency proofs", () => {
  it("for every 0 < m <= n <= 64 equal RFC PROOF and verify", async () => {
    for (let n = 1; n <= 64; n++) {
      for (let m = 1; m <= n; m++) {
        const proof = await consistencyProof(m, n, store);
        expect(proof.map(toHex)).toEqual(reference.consistencyProof(m, n).map(toHex));
        verifyConsistency(m, n, proof, reference.root(m), reference.root(n));
      }
    }
  });

  it("for random m <= n equal RFC PROOF, verify, and cost one read of the planned nodes", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          growth,
          treeSize(1).map((n) => ({ size1: n, size2: n })),
        ),
        async ({ size1, size2 }) => {
          const source = countingSource();
          const proof = await consistencyProof(size1, size2, source);
          expect(proof.map(toHex)).toEqual(reference.consistencyProof(size1, size2).map(toHex));
          verifyConsistency(size1, size2, proof, reference.root(size1), reference.root(size2));
          const ids = consistencyProofNodeIds(size1, size2);
          expect(source.calls).toEqual(ids.length === 0 ? [] : [ids]);
          for (const id of ids) {
            expect((id.index + 1) * 2 ** id.level).toBeLessThanOrEqual(size2);
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it("node ids match the RFC proof's perfect subtrees for sizes up to 2^53 - 1", () => {
    fc.assert(
      fc.property(
        bigSize.chain((size2) =>
          fc.record({
            size1: fc.bigInt({ min: 1n, max: BigInt(size2) }).map(Number),
            size2: fc.constant(size2),
          }),
        ),
        ({ size1, size2 }) => {
          const expected = subproofSpans(size1, 0, size2, true).flatMap(perfectBlocks);
          expect(consistencyProofNodeIds(size1, size2)).toEqual(expected);
        },
      ),
      { numRuns: 500 },
    );
  });

  it("the verifier accepts exactly the RFC proof length for sizes up to 2^53 - 1", () => {
    fc.assert(
      fc.property(
        bigSize
          .filter((n) => n >= 2)
          .chain((size2) =>
            fc.record({
              size1: fc.bigInt({ min: 1n, max: BigInt(size2 - 1) }).map(Number),
              size2: fc.constant(size2),
              filler: randomHash,
            }),
          ),
        ({ size1, size2, filler }) => {
          const length = subproofSpans(size1, 0, size2, true).length;
          const proof = (n: number) => Array.from({ length: n }, () => filler);
          // Random hashes have the right length, so only the roots can disagree.
          expect(() => verifyConsistency(size1, size2, proof(length), filler, filler)).toThrow(
            RootMismatchError,
          );
          for (const wrong of [length - 1, length + 1]) {
            expect(() => verifyConsistency(size1, size2, proof(wrong), filler, filler)).toThrow(
              expect.objectContaining({ reason: "wrong_proof_length" }),
            );
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe("tampered consistency proofs are rejected", () => {
  const check = (
    mutate: (c: { size1: number; size2: number; proof: Hash[]; root1: Hash; root2: Hash }) => {
      size1: number;
      size2: number;
      proof: readonly Hash[];
      root1: Hash;
      root2: Hash;
    },
    expectedError: ProofErrorClass = ProofError,
  ) =>
    fc.assert(
      fc.asyncProperty(growth, async ({ size1, size2 }) => {
        const proof = await consistencyProof(size1, size2, store);
        const c = {
          size1,
          size2,
          proof,
          root1: reference.root(size1),
          root2: reference.root(size2),
        };
        const bad = mutate(c);
        expect(() =>
          verifyConsistency(bad.size1, bad.size2, bad.proof, bad.root1, bad.root2),
        ).toThrow(expectedError);
      }),
      { numRuns: 100 },
    );

  it("any flipped bit in any proof element", () =>
    fc.assert(
      fc.asyncProperty(growth, fc.nat(), fc.integer({ min: 0, max: 255 }), async (c, e, b) => {
        const proof = await consistencyProof(c.size1, c.size2, store);
        const bad = flipBit(proof, e, b);
        expect(() =>
          verifyConsistency(
            c.size1,
            c.size2,
            bad,
            reference.root(c.size1),
            reference.root(c.size2),
          ),
        ).toThrow(RootMismatchError);
      }),
      { numRuns: 200 },
    ));

  it("size1 + 1", () => check((c) => ({ ...c, size1: c.size1 + 1 })));
  it("size1 - 1", () => check((c) => ({ ...c, size1: c.size1 - 1 })));
  it("size2 * 2", () => check((c) => ({ ...c, size2: c.size2 * 2 })));
  it("size2 / 2", () => check((c) => ({ ...c, size2: Math.floor(c.size2 / 2) })));
  it("size2 + 1, checked against the checkpoint of that size", () =>
    check((c) => ({ ...c, size2: c.size2 + 1, root2: reference.root(c.size2 + 1) })));
  it("truncated proof", () => check((c) => ({ ...c, proof: c.proof.slice(0, -1) })));
  it("extended proof (trailing hash)", () =>
    check((c) => ({ ...c, proof: [...c.proof, c.root2] })));
  it("extended proof (leading hash)", () => check((c) => ({ ...c, proof: [c.root1, ...c.proof] })));
  it("swapped roots", () =>
    check((c) => ({ ...c, root1: c.root2, root2: c.root1 }), RootMismatchError));
  it("wrong old root", () =>
    check((c) => ({ ...c, root1: reference.root(c.size1 - 1) }), ProofError));
  it("wrong new root", () =>
    check((c) => ({ ...c, root2: reference.root(c.size2 - 1) }), RootMismatchError));
});
