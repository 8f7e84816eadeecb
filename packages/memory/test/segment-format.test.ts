/**
 * The recall segment format 1: what `encodeSegment` writes, `decodeSegment` gives back column by
 * column, field for field, whether the entries' strings are all ASCII (decoded in chunks and
 * cut) or not (decoded one by one), and whether the contents are ASCII or not; an empty segment;
 * contents cut into pieces of at most PIECE_CHARS characters; truncated plaintexts and trailing
 * bytes refused.
 */
import { randomBytes, randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import {
  decodeSegment,
  encodeSegment,
  PIECE_CHARS,
  type SegmentEntry,
  segmentContent,
  segmentEntry,
} from "../src/segment-format.js";

/** An entry with every optional field set in turn. */
function entry(k: number, metadataJson: string): SegmentEntry {
  return {
    id: randomUUID(),
    leafIndex: 4096 + k,
    createdAtMs: 1_764_000_000_000 + k,
    metadataJson,
    leafHash: randomBytes(32),
    namespace: k % 2 === 0 ? `agent:${k}/run` : null,
    supersedes: k % 3 === 0 ? randomUUID() : null,
    writerKind: k % 4 === 0 ? null : k % 4 === 1 ? "session" : "api_key",
    writerKeyId: k % 4 >= 2 ? randomUUID() : null,
  };
}

/** Decoded entries and contents as plain values (leaf hashes as hex). */
function decoded(plaintext: Uint8Array) {
  const segment = decodeSegment(plaintext);
  return Array.from({ length: segment.count }, (_, k) => {
    const e = segmentEntry(segment, k);
    return {
      ...e,
      leafHash: Buffer.from(e.leafHash).toString("hex"),
      content: segmentContent(segment, k),
    };
  });
}

function expected(entries: readonly SegmentEntry[], contents: readonly string[]) {
  return entries.map((e, k) => ({
    ...e,
    leafHash: Buffer.from(e.leafHash).toString("hex"),
    content: contents[k],
  }));
}

describe("segment format 1", () => {
  const cases: [string, string[], string[]][] = [
    ["ASCII strings and contents", ['{"n":1}', "{}", '{"topic":"a b"}'], ["alpha", "", "gamma"]],
    ["non-ASCII metadata", ['{"name":"Zoë"}', "{}", '{"k":"記憶"}'], ["alpha", "beta", "c"]],
    ["non-ASCII contents", ["{}", '{"n":2}', "{}"], ["Straße", "🦊 fox", "x\u0000y"]],
    ["both", ['{"é":true}', "{}", "{}"], ["İstanbul", "ΣΊΣΥΦΟΣ", ""]],
  ];
  for (const [name, metadata, contents] of cases) {
    it(`decodes what it encoded: ${name}`, () => {
      const entries = metadata.map((json, k) => entry(k, json));
      const plaintext = encodeSegment(entries, contents);
      expect(decoded(plaintext)).toEqual(expected(entries, contents));
      const segment = decodeSegment(plaintext);
      expect(segment.ascii).toBe(contents.every((c) => Buffer.byteLength(c) === c.length));
      expect(segment.pieces.map((piece) => piece.text).join("\u0000")).toBe(
        contents.join("\u0000"),
      );
    });
  }

  it("keeps nothing of the plaintext: every array it hands out owns its memory, but the leaf hashes", () => {
    const entries = ['{"n":1}', "{}"].map((json, k) => entry(k, json));
    const plaintext = encodeSegment(entries, ["alpha", "beta"]);
    const segment = decodeSegment(plaintext);
    const { strings } = segment;
    for (const array of [strings.flags, strings.first, strings.bounds, segment.leafIndexes]) {
      expect(array.buffer).not.toBe(plaintext.buffer);
    }
    for (const piece of segment.pieces) {
      expect(piece.ends.buffer).not.toBe(plaintext.buffer);
    }
    expect(segment.leafHashes.buffer).toBe(plaintext.buffer);
  });

  it("decodes an empty segment", () => {
    const segment = decodeSegment(encodeSegment([], []));
    expect(segment.count).toBe(0);
    expect(segment.pieces).toEqual([]);
  });

  it("cuts the contents into pieces of at most PIECE_CHARS characters at content boundaries", () => {
    for (const unit of ["abcdefghij", "Zoë 記憶 🦊"]) {
      const contents = Array.from({ length: 3000 }, (_, k) =>
        k === 1000 ? unit.repeat(PIECE_CHARS / 5) : `${k} ${unit.repeat(k % 40)}`,
      );
      const entries = contents.map((_, k) => entry(k, "{}"));
      const segment = decodeSegment(encodeSegment(entries, contents));
      expect(segment.pieces.length).toBeGreaterThan(2);
      let next = 0;
      for (const piece of segment.pieces) {
        expect(piece.start).toBe(next);
        next += piece.count;
        const alone = piece.count === 1 && piece.text.length > PIECE_CHARS;
        expect(alone || piece.text.length <= PIECE_CHARS).toBe(true);
      }
      expect(next).toBe(contents.length);
      expect(Array.from({ length: segment.count }, (_, k) => segmentContent(segment, k))).toEqual(
        contents,
      );
    }
  });

  it("refuses a truncated plaintext and trailing bytes", () => {
    const plaintext = encodeSegment([entry(1, '{"n":1}'), entry(2, "{}")], ["one", "two"]);
    for (const cut of [0, 3, 10, 100, plaintext.length - 1]) {
      expect(() => decodeSegment(plaintext.subarray(0, cut)), `cut at ${cut}`).toThrow(RangeError);
    }
    expect(() => decodeSegment(Buffer.concat([plaintext, Buffer.from([0])]))).toThrow(
      /trailing bytes/,
    );
  });
});
