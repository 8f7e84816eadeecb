/**
 * CompactRange against full recomputation (docs/protocol.md §5 "The Merkle log and leaf encoding":
 * the incremental root equals a full recomputation over the leaves at every size), its saved-state
 * round trip, and the nodes each append reports for storage. Reference: RFC 9162 §2.1.1
 * (test/_reference.ts).
 * @module
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  CompactRange,
  EMPTY_ROOT,
  type Hash,
  hashLeaf,
  rootFromLeafHashes,
  type StoredNode,
  toHex,
} from "../src/index.js";
import { leafData, ReferenceTree } from "./_reference.js";

const MAX_LEAVES = 100_000;
const leaves: Hash[] = Array.from({ length: MAX_LEAVES }, (_, i) => hashLeaf(leafData(i)));
const reference = new ReferenceTree(leaves);

function rangeOf(size: number): CompactRange {
  const range = CompactRange.empty();
  for (let i = 0; i < size; i++) {
    range.append(leaves[i] as Hash);
  }
  return range;
}

function trailingOnes(n: number): number {
  let count = 0;
  for (let x = n; x % 2 === 1; x = Math.floor(x / 2)) {
    count += 1;
  }
  return count;
}

function popcount(n: number): number {
  let count = 0;
  for (let x = n; x > 0; x = Math.floor(x / 2)) {
    count += x % 2;
  }
  return count;
}

describe("CompactRange.root", () => {
  it("is EMPTY_ROOT (a copy) at size 0", () => {
    const root = CompactRange.empty().root();
    expect(toHex(root)).toBe(toHex(EMPTY_ROOT));
    expect(root).not.toBe(EMPTY_ROOT);
  });

  it("equals rootFromLeafHashes and the recursive RFC MTH at every size 1..2048", () => {
    const range = CompactRange.empty();
    for (let size = 1; size <= 2048; size++) {
      range.append(leaves[size - 1] as Hash);
      const root = toHex(range.root());
      expect(root).toBe(toHex(rootFromLeafHashes(leaves.slice(0, size))));
      expect(root).toBe(toHex(reference.root(size)));
    }
  });

  it("equals rootFromLeafHashes at random sizes up to 100 000", () => {
    fc.assert(
      fc.property(fc.integer({ min: 2049, max: MAX_LEAVES }), (size) => {
        const root = toHex(rangeOf(size).root());
        expect(root).toBe(toHex(rootFromLeafHashes(leaves.slice(0, size))));
        expect(root).toBe(toHex(reference.root(size)));
      }),
      { numRuns: 4 },
    );
  });
});

describe("CompactRange.append", () => {
  it("returns exactly the perfect subtrees it completes: 1 + trailing ones of the old size", () => {
    const range = CompactRange.empty();
    for (let size = 0; size < 1100; size++) {
      const nodes = range.append(leaves[size] as Hash);
      expect(nodes).toHaveLength(1 + trailingOnes(size));
      nodes.forEach((node, level) => {
        const width = 2 ** level;
        expect(node.level).toBe(level);
        expect(node.index).toBe(Math.floor(size / width));
        // The node ends at the new leaf and is the MTH of its 2^level leaves.
        expect((node.index + 1) * width).toBe(size + 1);
        expect(toHex(node.hash)).toBe(toHex(reference.mth(node.index * width, size + 1)));
      });
    }
  });

  it("copies the leaf hash, so later mutation of the caller's buffer changes nothing", () => {
    const leaf = (leaves[0] as Hash).slice();
    const range = CompactRange.empty();
    const [node] = range.append(leaf);
    leaf.fill(0);
    expect(toHex((node as StoredNode).hash)).toBe(toHex(leaves[0] as Hash));
    expect(toHex(range.root())).toBe(toHex(reference.root(1)));
  });

  it("rejects a leaf hash that is not 32 bytes with a TypeError", () => {
    expect(() => CompactRange.empty().append(new Uint8Array(31))).toThrow(TypeError);
    expect(() => CompactRange.empty().append("00" as unknown as Hash)).toThrow(TypeError);
  });

  it("refuses to grow past 2^53 - 1 leaves", () => {
    const full = CompactRange.fromState(
      Number.MAX_SAFE_INTEGER,
      Array.from({ length: 53 }, () => leaves[0] as Hash),
    );
    expect(() => full.append(leaves[1] as Hash)).toThrow(RangeError);
    expect(full.size).toBe(Number.MAX_SAFE_INTEGER);
  });
});

describe("CompactRange state", () => {
  it("holds popcount(size) hashes, the MTH of each frontier subtree, largest first", () => {
    const range = CompactRange.empty();
    for (let size = 1; size <= 300; size++) {
      range.append(leaves[size - 1] as Hash);
      const hashes = range.hashes;
      expect(hashes).toHaveLength(popcount(size));
      const expected: string[] = [];
      let start = 0;
      for (let level = 52; level >= 0; level--) {
        if (Math.floor(size / 2 ** level) % 2 === 1) {
          expected.push(toHex(reference.mth(start, start + 2 ** level)));
          start += 2 ** level;
        }
      }
      expect(hashes.map(toHex)).toEqual(expected);
    }
  });

  it("round-trips through fromState(size, hashes) at random sizes", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 5000 }),
        fc.integer({ min: 0, max: 300 }),
        (size, more) => {
          const original = rangeOf(size);
          const restored = CompactRange.fromState(original.size, original.hashes);
          expect(restored.size).toBe(size);
          expect(restored.hashes.map(toHex)).toEqual(original.hashes.map(toHex));
          for (let i = size; i < size + more; i++) {
            expect(restored.append(leaves[i] as Hash).map((n) => toHex(n.hash))).toEqual(
              original.append(leaves[i] as Hash).map((n) => toHex(n.hash)),
            );
          }
          expect(toHex(restored.root())).toBe(toHex(reference.root(size + more)));
        },
      ),
      { numRuns: 30 },
    );
  });

  it("fromState rejects a hash count other than popcount(size) with a RangeError", () => {
    const h = leaves[0] as Hash;
    expect(() => CompactRange.fromState(0, [h])).toThrow(RangeError);
    expect(() => CompactRange.fromState(3, [h])).toThrow(RangeError);
    expect(() => CompactRange.fromState(4, [h, h])).toThrow(RangeError);
    expect(() => CompactRange.fromState(-1, [])).toThrow(RangeError);
    expect(() => CompactRange.fromState(1.5, [h])).toThrow(RangeError);
    expect(() => CompactRange.fromState(2 ** 53, [h])).toThrow(RangeError);
    expect(CompactRange.fromState(4, [h]).size).toBe(4);
  });

  it("fromState rejects a hash that is not 32 bytes with a TypeError", () => {
    expect(() => CompactRange.fromState(1, [new Uint8Array(33)])).toThrow(TypeError);
  });

  it("fromState copies its input and hashes returns a copy", () => {
    const input = [(leaves[0] as Hash).slice()];
    const range = CompactRange.fromState(1, input);
    (input[0] as Hash).fill(0);
    (range.hashes as Hash[]).pop();
    expect(range.hashes.map(toHex)).toEqual([toHex(leaves[0] as Hash)]);
  });

  it("clone is independent of the original", () => {
    const original = rangeOf(5);
    const copy = original.clone();
    copy.append(leaves[5] as Hash);
    expect(original.size).toBe(5);
    expect(toHex(original.root())).toBe(toHex(reference.root(5)));
    expect(copy.size).toBe(6);
    expect(toHex(copy.root())).toBe(toHex(reference.root(6)));
  });
});
