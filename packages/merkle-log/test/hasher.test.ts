/**
 * Hashing primitives (RFC 9162 §2.1.1) against node:crypto, their argument checks, and the
 * lowercase hex codec (docs/protocol.md §1 encodings).
 * @module
 */
import { createHash } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  EMPTY_ROOT,
  fromHex,
  type Hash,
  hashChildren,
  hashLeaf,
  rootFromLeafHashes,
  toHex,
} from "../src/index.js";

function nodeSha256(...parts: Uint8Array[]): string {
  const h = createHash("sha256");
  for (const p of parts) {
    h.update(p);
  }
  return h.digest("hex");
}

describe("hashLeaf / hashChildren", () => {
  it("hashLeaf is SHA-256(0x00 || data) for any data", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), (data) => {
        expect(toHex(hashLeaf(data))).toBe(nodeSha256(Uint8Array.of(0), data));
      }),
    );
  });

  it("hashChildren is SHA-256(0x01 || left || right), and calls do not disturb each other", () => {
    const hash32 = fc.uint8Array({ minLength: 32, maxLength: 32 });
    fc.assert(
      fc.property(hash32, hash32, fc.uint8Array({ maxLength: 100 }), (l, r, data) => {
        const first = hashChildren(l, r);
        hashLeaf(data);
        const second = hashChildren(r, l);
        expect(toHex(first)).toBe(nodeSha256(Uint8Array.of(1), l, r));
        expect(toHex(second)).toBe(nodeSha256(Uint8Array.of(1), r, l));
        expect(first).not.toBe(second);
      }),
    );
  });

  it("EMPTY_ROOT is SHA-256 of the empty string", () => {
    expect(toHex(EMPTY_ROOT)).toBe(nodeSha256());
  });

  it("rejects wrong argument types and sizes with a TypeError naming the argument", () => {
    const h = new Uint8Array(32);
    expect(() => hashLeaf("abc" as unknown as Uint8Array)).toThrow(/leafData/);
    expect(() => hashChildren(new Uint8Array(31), h)).toThrow(/left must be a 32-byte/);
    expect(() => hashChildren(h, new Uint8Array(33))).toThrow(/right must be a 32-byte/);
    expect(() => hashChildren(h, [] as unknown as Hash)).toThrow(TypeError);
    expect(() => rootFromLeafHashes([h, new Uint8Array(2)])).toThrow(/leafHashes\[1\]/);
    expect(() => rootFromLeafHashes(h as unknown as Hash[])).toThrow(TypeError);
  });

  it("rootFromLeafHashes returns a fresh array, even for one leaf or none", () => {
    const leaf = hashLeaf(Uint8Array.of(1));
    const root = rootFromLeafHashes([leaf]);
    expect(root).not.toBe(leaf);
    expect(toHex(root)).toBe(toHex(leaf));
    const empty = rootFromLeafHashes([]);
    empty.fill(0);
    expect(toHex(rootFromLeafHashes([]))).toBe(nodeSha256());
  });
});

describe("toHex / fromHex", () => {
  it("round-trips any bytes through lowercase hex", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 100 }), (bytes) => {
        const hex = toHex(bytes);
        expect(hex).toBe(Buffer.from(bytes).toString("hex"));
        expect(Array.from(fromHex(hex))).toEqual(Array.from(bytes));
      }),
    );
  });

  it.each([
    ["odd length", "abc"],
    ["uppercase", "AB"],
    ["non-hex character", "zz"],
    ["whitespace", "ab "],
    ["0x prefix", "0xab"],
  ])("fromHex rejects %s with a TypeError", (_, input) => {
    expect(() => fromHex(input)).toThrow(TypeError);
  });

  it("rejects non-string and non-bytes inputs with a TypeError", () => {
    expect(() => fromHex(12 as unknown as string)).toThrow(TypeError);
    expect(() => toHex("ab" as unknown as Uint8Array)).toThrow(TypeError);
  });
});
