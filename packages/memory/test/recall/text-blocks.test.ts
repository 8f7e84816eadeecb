/**
 * Text blocks and leaf-hash chunks without a database: a match that runs across the separator
 * belongs to no text; each text found at most once; the block of a position; leaf hashes read
 * back across chunk boundaries, their allocation reported as it grows.
 */
import { describe, expect, it } from "vitest";
import { LeafHashes } from "../../src/recall/leaf-hashes.js";
import {
  blockAt,
  blockFolded,
  blockMatches,
  blockText,
  endsOf,
  SEPARATOR,
  type TextBlock,
} from "../../src/recall/text-blocks.js";

function blockOf(start: number, texts: string[]): TextBlock {
  const folded = texts.map((t) => t.toLowerCase());
  return {
    start,
    count: texts.length,
    text: texts.join(SEPARATOR),
    ends: endsOf(texts),
    folded: folded.join(SEPARATOR),
    foldedEnds: endsOf(folded),
    width: 2,
    live: texts.length,
  };
}

describe("text blocks", () => {
  it("find each text holding the needle once; a match across the separator belongs to none", () => {
    const block = blockOf(10, ["abab", "Ab", "xa", "bx", "", "ab"]);
    const all = () => true;
    expect(blockMatches(block, "ab", true, all)).toEqual([0, 5]);
    expect(blockMatches(block, "ab", false, all)).toEqual([0, 1, 5]);
    expect(blockMatches(block, `a${SEPARATOR}b`, true, all)).toEqual([]);
    expect(blockMatches(block, "ab", false, (position) => position !== 11)).toEqual([0, 5]);
    expect(blockMatches(block, "zz", false, all)).toEqual([]);
  });

  it("cut each text out of the joined strings, and find the block of a position", () => {
    const blocks = [blockOf(0, ["One", "", "Two"]), blockOf(3, ["İx"]), blockOf(4, ["a", "B"])];
    expect([0, 1, 2].map((k) => blockText(blocks[0] as TextBlock, k))).toEqual(["One", "", "Two"]);
    expect(blockFolded(blocks[1] as TextBlock, 0)).toBe("İx".toLowerCase());
    expect([0, 2, 3, 4, 5].map((p) => blockAt(blocks, p).start)).toEqual([0, 0, 3, 4, 4]);
  });
});

describe("leaf hashes", () => {
  it("read back across chunk boundaries; allocation reported as chunks grow", () => {
    const hashes = new LeafHashes();
    const hash = (n: number) => new Uint8Array(32).fill(n % 251);
    const many = new Uint8Array(32 * 5000);
    for (let n = 0; n < 5000; n++) {
      many.set(hash(n), 32 * n);
    }
    expect(hashes.put(0, hash(0), 1)).toBe(64 * 32);
    // Chunk 0 grows to 4 096 hashes; chunk 1 doubles from 64 to the 1 024 that hold 904.
    expect(hashes.put(1, many.subarray(32), 4999)).toBe((4096 - 64 + 1024) * 32);
    for (const n of [0, 1, 63, 64, 4095, 4096, 4999]) {
      expect(hashes.at(n)).toEqual(hash(n));
      expect(hashes.view(n)).toEqual(hash(n));
    }
    const copy = hashes.at(7);
    copy.fill(0);
    expect(hashes.at(7)).toEqual(hash(7));
    expect(hashes.put(5000, hash(1), 1)).toBe(0);
  });
});
