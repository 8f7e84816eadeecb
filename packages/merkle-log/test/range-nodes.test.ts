/**
 * rangeNodes, the perfect subtrees covering a leaf range (transparency-dev/merkle
 * `compact.RangeNodes`): known answers; for every range of a 70-leaf tree, nodes that are
 * perfect, disjoint, left to right, cover exactly the range and are fewest (no two could merge
 * into their parent); at sizes near 2^53; the hashes of rangeNodes(0, n) are the compact range
 * whose fold is the RFC 9162 root; refusals of bad bounds.
 * @module
 */
import { describe, expect, it } from "vitest";
import { CompactRange, hashLeaf, MemoryNodeStore, type NodeId, rangeNodes } from "../src/index.js";
import { leafData } from "./_reference.js";

const ids = (nodes: NodeId[]) => nodes.map(({ level, index }) => [level, index]);

describe("rangeNodes", () => {
  it("gives the known covers", () => {
    expect(ids(rangeNodes(0, 0))).toEqual([]);
    expect(ids(rangeNodes(5, 5))).toEqual([]);
    expect(ids(rangeNodes(0, 1))).toEqual([[0, 0]]);
    expect(ids(rangeNodes(0, 7))).toEqual([
      [2, 0],
      [1, 2],
      [0, 6],
    ]);
    expect(ids(rangeNodes(3, 11))).toEqual([
      [0, 3],
      [2, 1],
      [1, 4],
      [0, 10],
    ]);
    expect(ids(rangeNodes(8, 16))).toEqual([[3, 1]]);
    expect(ids(rangeNodes(1, 16))).toEqual([
      [0, 1],
      [1, 1],
      [2, 1],
      [3, 1],
    ]);
  });

  it("covers every range of a 70-leaf tree exactly, left to right, with the fewest perfect subtrees", () => {
    for (let begin = 0; begin <= 70; begin++) {
      for (let end = begin; end <= 70; end++) {
        const nodes = rangeNodes(begin, end);
        let position = begin;
        for (const [k, { level, index }] of nodes.entries()) {
          const width = 2 ** level;
          expect(index * width, `[${begin}, ${end}) node ${k}`).toBe(position);
          position += width;
          const next = nodes[k + 1];
          // Two neighbours of one level that are siblings would merge into their parent.
          if (next !== undefined && next.level === level) {
            expect(index % 2 === 0 && next.index === index + 1, `[${begin}, ${end})`).toBe(false);
          }
        }
        expect(position, `[${begin}, ${end})`).toBe(end);
      }
    }
  });

  it("stays exact near 2^53", () => {
    const end = 2 ** 53 - 1;
    for (const begin of [0, 1, 2 ** 52 - 1, 2 ** 52 + 1, end - 1]) {
      const nodes = rangeNodes(begin, end);
      let position = begin;
      for (const { level, index } of nodes) {
        expect(Number.isSafeInteger(index)).toBe(true);
        expect(index * 2 ** level).toBe(position);
        position += 2 ** level;
      }
      expect(position).toBe(end);
    }
    expect(rangeNodes(0, end)).toHaveLength(53);
  });

  it("from 0: the stored subtrees whose fold is the RFC 9162 root", async () => {
    const store = new MemoryNodeStore();
    const range = CompactRange.empty();
    for (let size = 1; size <= 40; size++) {
      store.put(range.append(hashLeaf(leafData(size - 1))));
      const hashes = await store.getNodes(rangeNodes(0, size));
      expect(CompactRange.fromState(size, hashes).root()).toEqual(range.root());
    }
  });

  it("refuses bounds that are not counts, or a reversed range", () => {
    expect(() => rangeNodes(3, 2)).toThrow(RangeError);
    expect(() => rangeNodes(-1, 2)).toThrow(RangeError);
    expect(() => rangeNodes(0, 2 ** 53)).toThrow(RangeError);
    expect(() => rangeNodes(0.5, 2)).toThrow(RangeError);
  });
});
