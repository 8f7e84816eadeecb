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
import { runAt } from "./runs.js";

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
 * Characters per content piece, at most (unless one content alone is longer): a full segment of
 * ~200-character memories is one piece, one string in V8's large-object space, which no scavenge
 * copies (docs/performance.md "Cold recall at 1 000 000 memories: one piece per segment").
 */
export const PIECE_CHARS = 1 << 22;
/** Contents per piece, at most (a piece becomes one recall text block). */
export const PIECE_ENTRIES = 4096;

/** Consecutive contents of a decoded segment, joined by U+0000 into one string. */
export interface SegmentPiece {
  /** The entry index of its first content. */
  readonly start: number;
  readonly count: number;
  readonly text: string;
  /** UTF-16 offset just past each of its contents in `text` (the next starts one further). */
  readonly ends: Int32Array;
}

/**
 * The strings of a decoded segment's entries (ids, metadata JSON, namespaces, supersedes, key
 * ids), held as one string and offsets rather than one string each: entry `k`'s id is string
 * `first[k]`, its metadata JSON the next, then its namespace, supersedes and writer key id, each
 * when its flag is set. Read them with {@link entryId} and the functions beside it.
 */
export interface EntryStrings {
  /** Every entry string's characters (with other characters between them). */
  readonly text: string;
  /** String `s` spans [bounds[2s], bounds[2s + 1]) of `text`. */
  readonly bounds: Int32Array;
  /** Entry `k`'s first string (its id). */
  readonly first: Int32Array;
  /** Entry `k`'s flags (which optional strings it has, its writer kind). */
  readonly flags: Uint8Array;
  /** True when every entry string is ASCII (as they nearly always are; false: some may not be). */
  readonly ascii: boolean;
}

/**
 * A decoded segment, column by column (position k of each column is entry k, in leaf order), its
 * entries' strings in one {@link EntryStrings}, and its contents joined in pieces of at most
 * {@link PIECE_CHARS} characters, each one recall text block.
 */
export interface DecodedSegment {
  readonly count: number;
  readonly leafIndexes: Float64Array;
  readonly createdMs: Float64Array;
  /** The leaf hashes, 32 bytes each, back to back. */
  readonly leafHashes: Uint8Array;
  readonly strings: EntryStrings;
  /** The contents in order, in pieces. */
  readonly pieces: readonly SegmentPiece[];
  /** True when every content is ASCII. */
  readonly ascii: boolean;
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
 * `plaintext`; the entries' strings (ids, metadata, namespaces…) are one {@link EntryStrings}.
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
  // Each entry's first string, and where each string starts and ends (byte offsets from
  // `stringsAt`), in the order they were written.
  const first = new Int32Array(count);
  let ascii = true;
  let strings = 0;
  for (let k = 0; k < count; k++) {
    const flags = bytes[flagsAt + k] as number;
    ascii &&= (flags & ASCII) !== 0;
    first[k] = strings;
    strings +=
      2 + (flags & NAMESPACE ? 1 : 0) + (flags & SUPERSEDES ? 1 : 0) + (flags & API_KEY ? 1 : 0);
  }
  const bounds = new Int32Array(2 * strings);
  let at = stringsAt;
  for (let b = 0; b < bounds.length; b += 2) {
    need(at, 4);
    const length = bytes.readUInt32LE(at);
    need(at + 4, length);
    bounds[b] = at + 4 - stringsAt;
    bounds[b + 1] = at + 4 + length - stringsAt;
    at += 4 + length;
  }
  const leafIndexes = new Float64Array(count);
  const createdMs = new Float64Array(count);
  const ends = new Int32Array(count);
  copyLittleEndian(bytes, leafAt, leafIndexes);
  copyLittleEndian(bytes, timeAt, createdMs);
  copyLittleEndian(bytes, endsAt, ends);
  const entryStrings = stringsOf(bytes, stringsAt, at, bounds);
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
    leafIndexes,
    createdMs,
    leafHashes: bytes.subarray(hashAt, endsAt),
    // A copy (Buffer's own `slice` is a view): the cached log keeps the flags, not the plaintext.
    strings: {
      ...entryStrings,
      first,
      flags: new Uint8Array(bytes.subarray(flagsAt, flagsAt + count)),
    },
    pieces: piecesOf(count, ends, textChars, cut),
    ascii,
  };
}

/** Whether this host stores numbers little-endian, as the segment format does. */
const LITTLE_ENDIAN_HOST = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/**
 * Fills `column` from the little-endian values at `at` of `bytes`: one copy on a little-endian
 * host, value by value otherwise.
 */
function copyLittleEndian(bytes: Buffer, at: number, column: Float64Array | Int32Array): void {
  const size = column.BYTES_PER_ELEMENT;
  if (LITTLE_ENDIAN_HOST) {
    new Uint8Array(column.buffer).set(bytes.subarray(at, at + size * column.length));
    return;
  }
  for (let k = 0; k < column.length; k++) {
    column[k] = size === 8 ? bytes.readDoubleLE(at + 8 * k) : bytes.readInt32LE(at + 4 * k);
  }
}

/**
 * The entry strings at `bounds` (byte offsets from `from`, string by string, up to `to`) as one
 * string with character offsets into it: the bytes between `from` and `to` decoded once when
 * they are all ASCII (as they nearly always are; `bounds` then serve as they are), else each
 * string decoded and the strings joined.
 */
function stringsOf(
  bytes: Buffer,
  from: number,
  to: number,
  bounds: Int32Array,
): Pick<EntryStrings, "text" | "bounds" | "ascii"> {
  if (isAscii(bytes.subarray(from, to))) {
    return { text: bytes.toString("latin1", from, to), bounds, ascii: true };
  }
  const chars = new Int32Array(bounds.length);
  const parts: string[] = [];
  let length = 0;
  for (let i = 0; i < bounds.length; i += 2) {
    const part = bytes.toString(
      "utf8",
      from + (bounds[i] as number),
      from + (bounds[i + 1] as number),
    );
    parts.push(part);
    chars[i] = length;
    length += part.length;
    chars[i + 1] = length;
  }
  return { text: parts.join(""), bounds: chars, ascii: false };
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
      start: first,
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
  const { strings } = segment;
  const writer = entryWriterKind(strings, k);
  return {
    id: entryId(strings, k),
    leafIndex: segment.leafIndexes[k] as number,
    createdAtMs: segment.createdMs[k] as number,
    metadataJson: entryMetadataJson(strings, k),
    leafHash: segment.leafHashes.subarray(HASH_BYTES * k, HASH_BYTES * (k + 1)),
    namespace: entryNamespace(strings, k),
    supersedes: entrySupersedes(strings, k),
    writerKind: writer,
    writerKeyId: writer === "api_key" ? entryWriterKeyId(strings, k) : null,
  };
}

/** String `s` of `strings`. */
function stringAt(strings: EntryStrings, s: number): string {
  return strings.text.slice(strings.bounds[2 * s], strings.bounds[2 * s + 1]);
}

/** Entry `k`'s id. */
export function entryId(strings: EntryStrings, k: number): string {
  return stringAt(strings, strings.first[k] as number);
}

/** Entry `k`'s metadata JSON text (`"{}"` when empty). */
export function entryMetadataJson(strings: EntryStrings, k: number): string {
  return stringAt(strings, (strings.first[k] as number) + 1);
}

/** Characters of entry `k`'s metadata JSON text (2: `"{}"`, empty). */
export function entryMetadataLength(strings: EntryStrings, k: number): number {
  const s = (strings.first[k] as number) + 1;
  return (strings.bounds[2 * s + 1] as number) - (strings.bounds[2 * s] as number);
}

/** Characters of entry `k`'s id. */
export function entryIdLength(strings: EntryStrings, k: number): number {
  const s = strings.first[k] as number;
  return (strings.bounds[2 * s + 1] as number) - (strings.bounds[2 * s] as number);
}

/** Entry `k`'s namespace, or null. */
export function entryNamespace(strings: EntryStrings, k: number): string | null {
  const flags = strings.flags[k] as number;
  return flags & NAMESPACE ? stringAt(strings, (strings.first[k] as number) + 2) : null;
}

/** The id entry `k` supersedes, or null. */
export function entrySupersedes(strings: EntryStrings, k: number): string | null {
  const flags = strings.flags[k] as number;
  return flags & SUPERSEDES
    ? stringAt(strings, (strings.first[k] as number) + 2 + (flags & NAMESPACE ? 1 : 0))
    : null;
}

/** Entry `k`'s writer kind (null: a version-1 leaf). */
export function entryWriterKind(strings: EntryStrings, k: number): "session" | "api_key" | null {
  const flags = strings.flags[k] as number;
  return flags & API_KEY ? "api_key" : flags & SESSION ? "session" : null;
}

/** Entry `k`'s writer key id (its writer an API key), or null. */
export function entryWriterKeyId(strings: EntryStrings, k: number): string | null {
  const flags = strings.flags[k] as number;
  if (!(flags & API_KEY)) {
    return null;
  }
  const s =
    (strings.first[k] as number) + 2 + (flags & NAMESPACE ? 1 : 0) + (flags & SUPERSEDES ? 1 : 0);
  return stringAt(strings, s);
}

/**
 * The index of the entry whose id is `id`, searching from entry `from` down (-1: none): one
 * character compared per entry before the rest, nothing allocated.
 */
export function lastEntryWithId(strings: EntryStrings, id: string, from: number): number {
  const { text, bounds, first } = strings;
  const head = id.charCodeAt(0);
  for (let k = from; k >= 0; k--) {
    const s = first[k] as number;
    const at = bounds[2 * s] as number;
    if (
      text.charCodeAt(at) === head &&
      (bounds[2 * s + 1] as number) - at === id.length &&
      text.startsWith(id, at)
    ) {
      return k;
    }
  }
  return -1;
}

/** Content `k` of a decoded segment (a binary search over its pieces). */
export function segmentContent(segment: DecodedSegment, k: number): string {
  const piece = runAt(segment.pieces, k);
  const j = k - piece.start;
  return piece.text.slice(j === 0 ? 0 : (piece.ends[j - 1] as number) + 1, piece.ends[j]);
}
