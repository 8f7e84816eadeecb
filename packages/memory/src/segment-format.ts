/**
 * The plaintext of a sealed recall segment, format 1 (docs/data-model.md "Recall segments"):
 * column-wise binary, little-endian, laid out so that a cold load turns a segment into recall
 * text blocks without touching each content on its own. Not compressed: on this machine inflating
 * costs more than the bytes it saves on the wire (docs/performance.md).
 *
 *     u32 count
 *     u8[count]      flags: bit 0 namespace, bit 1 supersedes, bit 2 writer session,
 *                    bit 3 writer api_key (a keyId follows), bit 4 content is ASCII;
 *                    no writer bit: a version-1 leaf
 *     f64[count]     leaf indices
 *     f64[count]     createdAt, epoch milliseconds
 *     32 × count     leaf hashes
 *     u32[count]     content ends: UTF-16 offset just past content k in the joined contents
 *     count × entry  str id, str metadata (its JSON), [str namespace], [str supersedes], [str keyId]
 *     str            the contents joined by U+0000 (a content may hold U+0000 too: the ends
 *                    delimit them)
 *     str = u32 byte length ‖ UTF-8 bytes
 *
 * No salt is kept (recall never needs it; proofs read the memory rows).
 * @module
 */
import { isAscii } from "node:buffer";

/** The segment format this code writes and reads. */
export const SEGMENT_FORMAT = 1;

/** The clear fields of one memory inside a segment. */
export interface SegmentEntry {
  readonly id: string;
  readonly leafIndex: number;
  readonly createdAtMs: number;
  /** The metadata's JSON text (`"{}"` when empty). */
  readonly metadataJson: string;
  /** 32 bytes. */
  readonly leafHash: Uint8Array;
  readonly namespace: string | null;
  readonly supersedes: string | null;
  readonly writerKind: "session" | "api_key" | null;
  readonly writerKeyId: string | null;
}

/**
 * Characters per string a decoding makes, at most (unless one content alone is longer): V8 keeps a
 * string over 128 KiB (two bytes per character when not all one-byte) in its large-object space,
 * in freshly mapped memory each time, and on the shared host touching fresh pages cost more than
 * the decoding itself (docs/performance.md "Cold recall, 2026-11-28, second pass").
 */
export const PIECE_CHARS = 60_000;
/** Contents per piece, at most (a piece becomes one recall text block). */
export const PIECE_ENTRIES = 4096;

/** Consecutive contents of a decoded segment, joined by U+0000 into one string. */
export interface SegmentPiece {
  /** The entry index of its first content. */
  readonly first: number;
  readonly count: number;
  readonly text: string;
  /** UTF-16 offset just past each of its contents in `text` (the next starts one further). */
  readonly ends: Int32Array;
}

/**
 * A decoded segment, column by column (position k of each column is entry k, in leaf order), and
 * its contents joined in pieces of at most {@link PIECE_CHARS} characters, each one recall text
 * block.
 */
export interface DecodedSegment {
  readonly count: number;
  readonly ids: readonly string[];
  readonly leafIndexes: Float64Array;
  readonly createdMs: Float64Array;
  /** The leaf hashes, 32 bytes each, back to back. */
  readonly leafHashes: Uint8Array;
  /** Each entry's metadata JSON text (`"{}"` when empty). */
  readonly metadataJson: readonly string[];
  readonly namespaces: readonly (string | null)[];
  readonly supersedes: readonly (string | null)[];
  readonly writerKinds: readonly ("session" | "api_key" | null)[];
  readonly writerKeyIds: readonly (string | null)[];
  /** The contents in order, in pieces. */
  readonly pieces: readonly SegmentPiece[];
  /** True when every content is ASCII. */
  readonly ascii: boolean;
  /** True when every entry string (ids, metadata, namespaces…) is ASCII. */
  readonly stringsAscii: boolean;
}

const NAMESPACE = 1;
const SUPERSEDES = 2;
const SESSION = 4;
const API_KEY = 8;
const ASCII = 16;
const HASH_BYTES = 32;
const SEPARATOR = "\u0000";

/**
 * Encodes `entries` (in leaf order) with their `contents` (same order) as a format-1 segment
 * plaintext.
 * @throws RangeError when the two lists differ in length.
 */
export function encodeSegment(
  entries: readonly SegmentEntry[],
  contents: readonly string[],
): Uint8Array {
  if (entries.length !== contents.length) {
    throw new RangeError("one content per entry");
  }
  const count = entries.length;
  const joined = contents.join(SEPARATOR);
  const strings: string[] = [];
  const flags = new Uint8Array(count);
  entries.forEach((e, k) => {
    const content = contents[k] as string;
    flags[k] =
      (e.namespace !== null ? NAMESPACE : 0) |
      (e.supersedes !== null ? SUPERSEDES : 0) |
      (e.writerKind === "session" ? SESSION : 0) |
      (e.writerKind === "api_key" ? API_KEY : 0) |
      (Buffer.byteLength(content) === content.length ? ASCII : 0);
    strings.push(e.id, e.metadataJson);
    if (e.namespace !== null) {
      strings.push(e.namespace);
    }
    if (e.supersedes !== null) {
      strings.push(e.supersedes);
    }
    if (e.writerKind === "api_key") {
      strings.push(e.writerKeyId ?? "");
    }
  });
  strings.push(joined);
  let size = 4 + count * (1 + 8 + 8 + HASH_BYTES + 4);
  for (const value of strings) {
    size += 4 + Buffer.byteLength(value);
  }
  const out = Buffer.allocUnsafe(size);
  let at = out.writeUInt32LE(count, 0);
  out.set(flags, at);
  at += count;
  for (const e of entries) {
    at = out.writeDoubleLE(e.leafIndex, at);
  }
  for (const e of entries) {
    at = out.writeDoubleLE(e.createdAtMs, at);
  }
  for (const e of entries) {
    out.set(e.leafHash.subarray(0, HASH_BYTES), at);
    at += HASH_BYTES;
  }
  let end = 0;
  for (const content of contents) {
    end += content.length;
    at = out.writeUInt32LE(end, at);
    end += 1;
  }
  for (const value of strings) {
    const length = out.write(value, at + 4, "utf8");
    out.writeUInt32LE(length, at);
    at += 4 + length;
  }
  return out;
}

/**
 * Decodes a format-1 segment plaintext into columns. The leaf hashes are a view into
 * `plaintext`. When the entries' strings (ids, metadata, namespaces…) are all ASCII, as they
 * nearly always are, they are decoded in chunks of at most {@link PIECE_CHARS} and cut out of them.
 * @throws RangeError when the plaintext is truncated or holds trailing bytes.
 */
export function decodeSegment(plaintext: Uint8Array): DecodedSegment {
  const bytes = Buffer.from(plaintext.buffer, plaintext.byteOffset, plaintext.byteLength);
  const need = (at: number, n: number) => {
    if (at + n > bytes.length) {
      throw new RangeError("recall segment plaintext is truncated");
    }
  };
  need(0, 4);
  const count = bytes.readUInt32LE(0);
  need(4, count * (1 + 8 + 8 + HASH_BYTES + 4));
  const flagsAt = 4;
  const leafAt = flagsAt + count;
  const timeAt = leafAt + 8 * count;
  const hashAt = timeAt + 8 * count;
  const endsAt = hashAt + HASH_BYTES * count;
  const stringsAt = endsAt + 4 * count;
  // Where each entry string starts and ends, in the order they were written (at most five per
  // entry).
  const bounds = new Int32Array(10 * count);
  let strings = 0;
  let at = stringsAt;
  const skip = () => {
    need(at, 4);
    const length = bytes.readUInt32LE(at);
    need(at + 4, length);
    bounds[strings++] = at + 4;
    bounds[strings++] = at + 4 + length;
    at += 4 + length;
  };
  for (let k = 0; k < count; k++) {
    const flags = bytes[flagsAt + k] as number;
    skip();
    skip();
    if (flags & NAMESPACE) {
      skip();
    }
    if (flags & SUPERSEDES) {
      skip();
    }
    if (flags & API_KEY) {
      skip();
    }
  }
  const stringsEnd = at;
  let string: (b: number) => string;
  const stringsAscii = isAscii(bytes.subarray(stringsAt, stringsEnd));
  if (stringsAscii) {
    // Decoded in chunks of at most PIECE_CHARS (strings are cut in ascending order).
    let chunk = "";
    let chunkAt = 0;
    let chunkEnd = 0;
    string = (b) => {
      const from = bounds[b] as number;
      const to = bounds[b + 1] as number;
      if (from < chunkAt || to > chunkEnd) {
        chunkAt = from;
        chunkEnd = Math.min(stringsEnd, Math.max(to, from + PIECE_CHARS));
        chunk = bytes.toString("latin1", chunkAt, chunkEnd);
      }
      return chunk.slice(from - chunkAt, to - chunkAt);
    };
  } else {
    string = (b) => bytes.toString("utf8", bounds[b], bounds[b + 1]);
  }
  const ids: string[] = new Array(count);
  const metadataJson: string[] = new Array(count);
  const namespaces: (string | null)[] = new Array(count);
  const supersedes: (string | null)[] = new Array(count);
  const writerKinds: ("session" | "api_key" | null)[] = new Array(count);
  const writerKeyIds: (string | null)[] = new Array(count);
  const leafIndexes = new Float64Array(count);
  const createdMs = new Float64Array(count);
  const ends = new Int32Array(count);
  let ascii = true;
  let b = 0;
  /** The next optional string, when present. */
  const next = (present: boolean): string | null => {
    if (!present) {
      return null;
    }
    b += 2;
    return string(b - 2);
  };
  for (let k = 0; k < count; k++) {
    const flags = bytes[flagsAt + k] as number;
    ascii &&= (flags & ASCII) !== 0;
    leafIndexes[k] = bytes.readDoubleLE(leafAt + 8 * k);
    createdMs[k] = bytes.readDoubleLE(timeAt + 8 * k);
    ends[k] = bytes.readUInt32LE(endsAt + 4 * k);
    ids[k] = string(b);
    metadataJson[k] = string(b + 2);
    b += 4;
    namespaces[k] = next((flags & NAMESPACE) !== 0);
    supersedes[k] = next((flags & SUPERSEDES) !== 0);
    writerKinds[k] = flags & API_KEY ? "api_key" : flags & SESSION ? "session" : null;
    writerKeyIds[k] = next((flags & API_KEY) !== 0);
  }
  need(at, 4);
  const textLength = bytes.readUInt32LE(at);
  need(at + 4, textLength);
  if (at + 4 + textLength !== bytes.length) {
    throw new RangeError("recall segment plaintext has trailing bytes");
  }
  const textAt = at + 4;
  let cut: (from: number, to: number) => string;
  let textChars = textLength;
  if (ascii) {
    cut = (from, to) => bytes.toString("latin1", textAt + from, textAt + to);
  } else {
    const text = bytes.toString("utf8", textAt, textAt + textLength);
    textChars = text.length;
    cut = (from, to) => text.slice(from, to);
  }
  return {
    count,
    ids,
    leafIndexes,
    createdMs,
    leafHashes: bytes.subarray(hashAt, endsAt),
    metadataJson,
    namespaces,
    supersedes,
    writerKinds,
    writerKeyIds,
    pieces: piecesOf(count, ends, textChars, cut),
    ascii,
    stringsAscii,
  };
}

/**
 * The contents cut into pieces of at most {@link PIECE_ENTRIES} contents and
 * {@link PIECE_CHARS} characters (a longer content alone is one piece), each made by `cut`
 * (UTF-16 offsets into the joined contents, `textChars` long).
 * @throws RangeError when the content ends do not delimit the joined contents.
 */
function piecesOf(
  count: number,
  ends: Int32Array,
  textChars: number,
  cut: (from: number, to: number) => string,
): SegmentPiece[] {
  for (let k = 0; k < count; k++) {
    if ((ends[k] as number) < (k === 0 ? 0 : (ends[k - 1] as number) + 1)) {
      throw new RangeError("recall segment content ends are out of order");
    }
  }
  if (count > 0 && ends[count - 1] !== textChars) {
    throw new RangeError("recall segment content ends do not match its text");
  }
  const pieces: SegmentPiece[] = [];
  let first = 0;
  while (first < count) {
    const from = first === 0 ? 0 : (ends[first - 1] as number) + 1;
    let last = first;
    while (
      last + 1 < count &&
      last + 1 - first < PIECE_ENTRIES &&
      (ends[last + 1] as number) - from <= PIECE_CHARS
    ) {
      last++;
    }
    const local = ends.slice(first, last + 1);
    for (let k = 0; k < local.length; k++) {
      local[k] = (local[k] as number) - from;
    }
    pieces.push({
      first,
      count: last + 1 - first,
      text: cut(from, ends[last] as number),
      ends: local,
    });
    first = last + 1;
  }
  return pieces;
}

/** Entry `k` of a decoded segment (its leaf hash a view into the segment's). */
export function segmentEntry(segment: DecodedSegment, k: number): SegmentEntry {
  return {
    id: segment.ids[k] as string,
    leafIndex: segment.leafIndexes[k] as number,
    createdAtMs: segment.createdMs[k] as number,
    metadataJson: segment.metadataJson[k] as string,
    leafHash: segment.leafHashes.subarray(HASH_BYTES * k, HASH_BYTES * (k + 1)),
    namespace: segment.namespaces[k] ?? null,
    supersedes: segment.supersedes[k] ?? null,
    writerKind: segment.writerKinds[k] ?? null,
    writerKeyId: segment.writerKeyIds[k] ?? null,
  };
}

/** Content `k` of a decoded segment (a binary search over its pieces). */
export function segmentContent(segment: DecodedSegment, k: number): string {
  const { pieces } = segment;
  let low = 0;
  let high = pieces.length - 1;
  while (low < high) {
    const middle = (low + high + 1) >>> 1;
    if ((pieces[middle] as SegmentPiece).first <= k) {
      low = middle;
    } else {
      high = middle - 1;
    }
  }
  const piece = pieces[low] as SegmentPiece;
  const j = k - piece.first;
  return piece.text.slice(j === 0 ? 0 : (piece.ends[j - 1] as number) + 1, piece.ends[j]);
}
