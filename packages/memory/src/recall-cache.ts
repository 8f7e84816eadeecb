/**
 * The recall cache (issue 5 item 3): a per-process, memory-bounded cache of each user's decrypted
 * log, so that `POST /memories/search` runs at the speed of an in-memory substring scan without
 * any plaintext at rest. Because the log is append-only, a refresh reads only the leaves newer than
 * the newest one held plus the deletions since the last check, both in ONE statement
 * (`readRecallPage`); when neither exists the refresh changes nothing. The first (cold) load
 * streams pages of the few columns it needs and decrypts each row as it arrives, while PostgreSQL
 * is still producing the next ones.
 *
 * A user's log is kept column-wise (ids, leaf indices, times, metadata, the leaf hashes packed
 * into byte chunks) and its texts in blocks: up to {@link BLOCK_ENTRIES} contents joined by NUL
 * into one string (and their lower-cased forms into another), so that a search is a few `indexOf`
 * calls over contiguous memory instead of one `includes` per memory; the newest memories wait in
 * a short tail of separate strings until they fill a block. A filter-only search with an
 * equality condition (a metadata key equal to a scalar, or the exact namespace) reads only the
 * positions an equality index lists for it, built on first use and extended as memories arrive;
 * relevance ranking reads an inverted index the same way. Deleted memories become tombstones
 * until compaction. Users are evicted least recently used first once the estimated size passes
 * the cap; a log larger than the cap alone is searched and dropped. Plaintext lives only in this
 * process's memory; data keys are never kept here.
 * @module
 */

import { isAscii } from "node:buffer";
import type { Clock } from "@verifiable-memory/auth";
import {
  type Database,
  listSupersededBefore,
  type RecallRow,
  readRecallPage,
  sealRecallSegment,
  streamRecallSegments,
} from "@verifiable-memory/db-schema";
import { decryptBody } from "@verifiable-memory/envelope-crypto";
import type { LeafWriter } from "@verifiable-memory/verifier";
import { SALT_BYTES } from "./memory-body.js";
import {
  compileFilter,
  type EqualityCondition,
  equalityConditions,
  type FilterColumns,
  type IndexedField,
  type MemoryFilter,
  type MemoryPredicate,
} from "./memory-filter.js";
import { writerFromColumns } from "./memory-leaf.js";
import { inverseDocumentFrequency, queryTerms, termScore } from "./relevance.js";
import {
  type DecodedSegment,
  type SegmentEntry,
  segmentContent,
  segmentEntry,
} from "./segment-format.js";
import { openSegment, sealSegment } from "./segments.js";

/** One recall match: the memory's stored fields and its decrypted content. */
export interface RecallEntry {
  readonly id: string;
  readonly leafIndex: number;
  readonly content: string;
  /** The stored metadata (shared with the cache: do not mutate). */
  readonly metadata: Readonly<Record<string, unknown>>;
  readonly createdAt: Date;
  /** The leaf hash (a copy). */
  readonly leafHash: Uint8Array;
  readonly namespace: string | null;
  readonly supersedes: string | null;
  /** The later version that superseded this one, or null while it is current. */
  readonly supersededBy: string | null;
  /** Who wrote it; null on version-1 leaves. */
  readonly writtenBy: MemoryWriter | null;
  /** BM25 score (relevance ranking only). */
  readonly score?: number;
}

/** Who wrote a memory (leaf version 2). */
export type MemoryWriter = LeafWriter;

/** Where a recall page starts: after this match of the previous page. */
export type RecallCursor =
  | { readonly rank: "recency"; readonly leafIndex: number }
  | { readonly rank: "relevance"; readonly score: number; readonly leafIndex: number };

/** A recall query (docs/protocol.md §4 `POST /memories/search`). */
export interface RecallQuery {
  /**
   * Recency: a substring every match holds. Relevance: the terms to score (matches hold at least
   * one). Absent: every memory passing the filter, newest first.
   */
  readonly query?: string | undefined;
  /** Default false: compare lower-cased (recency substring only). */
  readonly caseSensitive: boolean;
  /** Conditions on the clear fields. */
  readonly filter: MemoryFilter;
  /** `recency` (newest first) or `relevance` (BM25 score, then newest first). */
  readonly rank: "recency" | "relevance";
  /** At most this many results (1–200). */
  readonly limit: number;
  /** Continue after this match of a previous page. */
  readonly after?: RecallCursor | undefined;
}

/** A recall answer: one page of matches, how many live memories were examined, and whether more match. */
export interface RecallResult {
  readonly items: readonly RecallEntry[];
  readonly scanned: number;
  /** True when matches follow the last item (ask again with it as the cursor). */
  readonly more: boolean;
}

/** Options of {@link RecallCache}. */
export interface RecallCacheOptions {
  readonly db: Database;
  readonly clock: Clock;
  /** Cap of the estimated cached bytes over all users (RECALL_CACHE_MAX_BYTES); 0 disables caching. */
  readonly maxBytes: number;
  /**
   * Leaves per recall segment (docs/data-model.md "Recall segments"): once a user's log holds a
   * full aligned range, it is sealed in the background, and cold loads read segments first.
   * Default 4 096; 0 turns segments off (neither sealed nor read).
   */
  readonly segmentLeaves?: number;
  /** Rows per page of a load; default 10 000. */
  readonly pageSize?: number;
  /**
   * Deletions are re-read from this long before the previous check, so that a deletion whose
   * transaction committed late (or another process's clock) is never missed; default 300 000 ms.
   */
  readonly deletionOverlapMs?: number;
}

/** Cache statistics (tests and metrics). */
export interface RecallCacheStats {
  readonly users: number;
  readonly bytes: number;
  readonly evictions: number;
  /** Segments this process sealed, and background seals that failed (retried later). */
  readonly segmentsSealed: number;
  readonly sealFailures: number;
}

type Metadata = Readonly<Record<string, unknown>>;
/** A memory's metadata as held: parsed, or still its JSON text (parsed on first use). */
type HeldMetadata = Metadata | string;

/** Memories per text block, at most. */
const BLOCK_ENTRIES = 4096;
/** A block is sealed once its texts reach this many characters. */
const BLOCK_CHARS = 1 << 20;
/** A refresh seals the tail when it holds at least this many memories. */
const TAIL_ENTRIES = 512;
/** Joins the texts of a block (any character would do: matches across two texts are skipped). */
const SEPARATOR = "\u0000";
const HASH_BYTES = 32;
/**
 * Leaf hashes are packed into chunks of this many (128 KiB each; a log's last chunk starts at
 * {@link FIRST_HASH_CHUNK} and doubles), counted at their allocated size.
 */
const HASH_CHUNK = 4096;
const FIRST_HASH_CHUNK = 64;
/**
 * Estimated bytes of one memory besides its texts, id, metadata and leaf hash: five array slots
 * of 8 bytes with up to 50% growth slack, two 4-byte text offsets.
 */
const ENTRY_BYTES = 5 * 8 * 1.5 + 2 * 4;
/** Estimated fixed bytes of one user's log (its object, empty arrays, map entry). */
const LOG_BYTES = 4096;
/** Estimated bytes of a V8 string's header and alignment. */
const STRING_BYTES = 24;
/** Estimated bytes of a parsed non-empty metadata object besides twice its JSON length. */
const METADATA_BYTES = 64;

/** Metadata `{}` of every memory without metadata: one shared, frozen object. */
const EMPTY_METADATA: Metadata = Object.freeze({});

/** What {@link UserLog.add} needs of a memory besides its content: a recall row's fields. */
type LogEntryFields = Omit<RecallRow, "iv" | "ciphertext">;

/** A memory's clear fields besides its metadata, kept column-wise. */
interface EntryAttributes {
  readonly namespace: string | null;
  readonly supersedes: string | null;
  readonly supersededBy: string | null;
  readonly writer: MemoryWriter | null;
}

/**
 * The texts of `count` consecutive memories from position `start`: text k spans
 * [k === 0 ? 0 : ends[k - 1] + 1, ends[k]) of `text`, and the same for `folded`.
 */
interface TextBlock {
  readonly start: number;
  readonly count: number;
  readonly text: string;
  readonly ends: Int32Array;
  /** The lower-cased texts; the very `text` when lower-casing changed none of them. */
  readonly folded: string;
  readonly foldedEnds: Int32Array;
  /** Bytes per character: 1 when every text is ASCII, else 2 (estimate). */
  readonly width: number;
  /** Live memories among them. */
  live: number;
}

const TERM_RUN = /[\p{L}\p{N}]+/gu;

/** One term's postings: the positions holding it (ascending) and how often each holds it. */
class Postings {
  positions = new Int32Array(4);
  counts = new Uint16Array(4);
  length = 0;

  /** Counts one more occurrence at `position` (≥ every position added before). */
  add(position: number): number {
    const last = this.length - 1;
    if (last >= 0 && this.positions[last] === position) {
      const count = this.counts[last] as number;
      if (count < 0xffff) {
        this.counts[last] = count + 1;
      }
      return 0;
    }
    let grown = 0;
    if (this.length === this.positions.length) {
      const positions = new Int32Array(this.length * 2);
      positions.set(this.positions);
      const counts = new Uint16Array(this.length * 2);
      counts.set(this.counts);
      grown = this.length * 6;
      this.positions = positions;
      this.counts = counts;
    }
    this.positions[this.length] = position;
    this.counts[this.length] = 1;
    this.length++;
    return grown;
  }
}

/**
 * The inverted index of one user's log for relevance ranking: term → postings, over the
 * lower-cased texts, terms being maximal runs of letters and digits (relevance.ts). Plaintext
 * terms live in this process's memory only, like the texts they come from.
 */
class TermIndex {
  readonly terms = new Map<string, Postings>();
  /** Positions below this one are indexed. */
  indexed = 0;
  /** Estimated bytes (map entries, term strings, postings). */
  bytes = 0;

  /** Indexes the lower-cased `text` of the memory at `position`. */
  add(position: number, text: string): void {
    for (const match of text.matchAll(TERM_RUN)) {
      const term = match[0];
      let postings = this.terms.get(term);
      if (!postings) {
        postings = new Postings();
        this.terms.set(term, postings);
        this.bytes += 64 + STRING_BYTES + 2 * term.length + 4 * 6;
      }
      this.bytes += postings.add(position);
    }
  }
}

/**
 * An equality index over one clear field of a user's log: scalar value → the positions holding it
 * (ascending). Values are Map keys, so equal under SameValueZero, which agrees with `===` on the
 * JSON scalars a filter can ask for (equalityConditions). Positions of deleted memories stay until
 * compaction: readers check {@link UserLog.isLive}.
 */
class ValueIndex {
  readonly values = new Map<unknown, PositionList>();
  /** Positions below this one are indexed. */
  indexed = 0;
  /** Estimated bytes (map entries, value strings, position lists). */
  bytes = 0;

  /** Records that the memory at `position` (≥ every one added before) holds `value`. */
  add(position: number, value: unknown): void {
    if (
      value !== null &&
      typeof value !== "string" &&
      typeof value !== "number" &&
      typeof value !== "boolean"
    ) {
      return;
    }
    let list = this.values.get(value);
    if (!list) {
      list = new PositionList();
      this.values.set(value, list);
      this.bytes += 64 + 4 * 4 + (typeof value === "string" ? STRING_BYTES + 2 * value.length : 0);
    }
    this.bytes += list.add(position);
  }
}

/** Positions in ascending order, in a growing typed array. */
class PositionList {
  positions = new Int32Array(4);
  length = 0;

  /**
   * Appends `position`.
   * @returns the bytes the list grew by (0 unless it had to reallocate).
   */
  add(position: number): number {
    if (this.length === this.positions.length) {
      const positions = new Int32Array(this.length * 2);
      positions.set(this.positions);
      this.positions = positions;
      this.positions[this.length++] = position;
      return this.length * 4;
    }
    this.positions[this.length++] = position;
    return 0;
  }
}

/** Equality indexes kept per user's log, at most (further fields are scanned). */
const MAX_VALUE_INDEXES = 16;
/** The positions of a value no memory holds. */
const EMPTY_POSITIONS = new PositionList();

/** One user's decrypted log in ascending leaf index; deleted memories are tombstones. */
class UserLog {
  ids: string[] = [];
  leafIndexes: number[] = [];
  createdMs: number[] = [];
  /** Parsed on first use: by a match, or for every memory by a metadata filter. */
  metadata: HeldMetadata[] = [];
  /** Entries of `metadata` still held as JSON text. */
  private unparsed = 0;
  namespaces: (string | null)[] = [];
  supersedes: (string | null)[] = [];
  supersededBy: (string | null)[] = [];
  writers: (MemoryWriter | null)[] = [];
  /** Entries with a `supersededBy` (tombstones included until compaction). */
  supersededCount = 0;
  /** Estimated bytes of each memory; 0 marks a tombstone. */
  sizes: number[] = [];
  hashChunks: Uint8Array[] = [];
  blocks: TextBlock[] = [];
  /** Position of the first memory of the tail (the ones not in a block yet). */
  tailStart = 0;
  tailTexts: string[] = [];
  tailFolded: string[] = [];
  tailAscii: boolean[] = [];
  /** Estimated bytes of each tail text (and its lower-cased form) as separate strings. */
  private tailTextBytes: number[] = [];
  private tailChars = 0;
  private tombstones = 0;
  /** Characters of each memory's lower-cased text (BM25 document length). */
  lengths: number[] = [];
  /** Characters of the live memories' lower-cased texts, together. */
  liveChars = 0;
  /** The inverted index of relevance ranking, built on first use; null until then. */
  private terms: TermIndex | null = null;
  /** Equality indexes by field ("namespace" or "metadata:" + key), each built on first use. */
  private valueIndexes = new Map<string, ValueIndex>();
  /** Estimated bytes of the whole log. */
  bytes = LOG_BYTES;
  /** The newest leaf index ever added (deletions do not lower it). */
  lastLeafIndex = -1;
  /** Leaves [0, sealedEnd) are sealed in recall segments (as far as this log knows). */
  sealedEnd = 0;
  /**
   * Counts the changes that can alter an answer (memories added, removed, marked superseded):
   * an answer computed while it did not move still stands.
   */
  changes = 0;

  constructor(public deletionsCheckedAt: Date) {}

  /**
   * Appends a decrypted memory (its leaf index above every one held); a memory that supersedes
   * one held marks that one superseded.
   */
  add(row: LogEntryFields, content: string, ascii: boolean): void {
    const json = row.metadataJson;
    const writer = writerFromColumns(row.writerKind, row.writerKeyId);
    this.push(
      row.id,
      row.leafIndex,
      row.createdAtMs,
      json === "{}" ? EMPTY_METADATA : json,
      json === "{}" ? 0 : METADATA_BYTES + 2 * json.length,
      row.leafHash,
      { content, ascii },
      {
        namespace: row.namespace,
        supersedes: row.supersedes,
        supersededBy: row.supersededBy,
        writer,
      },
    );
    if (row.supersedes !== null) {
      this.markSuperseded(row.supersedes, row.id);
    }
    this.lastLeafIndex = row.leafIndex;
  }

  /** Appends one memory to the columns and the tail; seals the tail when it is full. */
  private push(
    id: string,
    leafIndex: number,
    createdMs: number,
    metadata: HeldMetadata,
    metadataBytes: number,
    leafHash: Uint8Array,
    text: { content: string; ascii: boolean; folded?: string },
    attrs: EntryAttributes,
  ): void {
    const folded = text.folded ?? text.content.toLowerCase();
    const textBytes =
      stringBytes(text.content, text.ascii) +
      (folded === text.content ? 0 : stringBytes(folded, text.ascii));
    this.putHashes(this.ids.length, leafHash, 1);
    this.pushColumns(
      id,
      leafIndex,
      createdMs,
      metadata,
      metadataBytes + textBytes,
      folded.length,
      attrs,
    );
    this.tailTexts.push(text.content);
    this.tailFolded.push(folded);
    this.tailAscii.push(text.ascii);
    this.tailTextBytes.push(textBytes);
    this.tailChars += text.content.length;
    if (this.tailTexts.length >= BLOCK_ENTRIES || this.tailChars >= BLOCK_CHARS) {
      this.seal();
    }
  }

  /**
   * Appends one memory's columns (not its text, nor its leaf hash: {@link putHashes}): `size` is
   * its estimated bytes so far, `foldedLength` the length of its lower-cased text.
   */
  private pushColumns(
    id: string,
    leafIndex: number,
    createdMs: number,
    metadata: HeldMetadata,
    size: number,
    foldedLength: number,
    attrs: EntryAttributes,
  ): void {
    const total = ENTRY_BYTES + stringBytes(id, oneByte(id)) + size;
    if (typeof metadata === "string") {
      this.unparsed++;
    }
    this.ids.push(id);
    this.lengths.push(foldedLength);
    this.liveChars += foldedLength;
    this.leafIndexes.push(leafIndex);
    this.createdMs.push(createdMs);
    this.metadata.push(metadata);
    this.namespaces.push(attrs.namespace);
    this.supersedes.push(attrs.supersedes);
    this.supersededBy.push(attrs.supersededBy);
    if (attrs.supersededBy !== null) {
      this.supersededCount++;
    }
    this.writers.push(attrs.writer);
    this.sizes.push(total);
    this.bytes += total;
    this.changes++;
  }

  /**
   * Appends a decoded recall segment (its leaf indices above every one held): when its texts fit
   * one block, the segment's joined text becomes that block as is (one lower-casing for all);
   * otherwise memory by memory, as {@link add}.
   */
  addSegment(segment: DecodedSegment): void {
    const { count } = segment;
    if (count === 0) {
      return;
    }
    if (count > BLOCK_ENTRIES || segment.text.length >= BLOCK_CHARS) {
      for (let k = 0; k < count; k++) {
        const content = segmentContent(segment, k);
        this.add({ ...segmentEntry(segment, k), supersededBy: null }, content, oneByte(content));
      }
      return;
    }
    this.sealTail(1);
    const { text, ends } = segment;
    let folded = text.toLowerCase();
    let foldedEnds = ends;
    if (folded.length !== text.length) {
      // Lower-casing changed some lengths: fold each content on its own.
      const texts: string[] = [];
      for (let k = 0; k < count; k++) {
        texts.push(segmentContent(segment, k).toLowerCase());
      }
      folded = texts.join(SEPARATOR);
      foldedEnds = endsOf(texts);
    }
    const start = this.ids.length;
    const block: TextBlock = {
      start,
      count,
      text,
      ends,
      folded: folded === text ? text : folded,
      foldedEnds,
      width: segment.ascii ? 1 : 2,
      live: count,
    };
    // What pushColumns does, in one loop over the segment's columns.
    this.putHashes(start, segment.leafHashes, count);
    for (let k = 0; k < count; k++) {
      const json = segment.metadataJson[k] as string;
      const id = segment.ids[k] as string;
      const foldedLength =
        (foldedEnds[k] as number) - (k === 0 ? 0 : (foldedEnds[k - 1] as number) + 1);
      const size =
        ENTRY_BYTES +
        stringBytes(id, oneByte(id)) +
        (json === "{}" ? 0 : METADATA_BYTES + 2 * json.length) +
        blockTextBytes(block, k);
      this.ids.push(id);
      this.leafIndexes.push(segment.leafIndexes[k] as number);
      this.createdMs.push(segment.createdMs[k] as number);
      this.namespaces.push(segment.namespaces[k] ?? null);
      this.supersedes.push(segment.supersedes[k] ?? null);
      if (json === "{}") {
        this.metadata.push(EMPTY_METADATA);
      } else {
        this.metadata.push(json);
        this.unparsed++;
      }
      this.lengths.push(foldedLength);
      this.liveChars += foldedLength;
      this.supersededBy.push(null);
      this.writers.push(
        writerFromColumns(segment.writerKinds[k] ?? null, segment.writerKeyIds[k] ?? null),
      );
      this.sizes.push(size);
      this.bytes += size;
    }
    this.changes += count;
    for (let k = 0; k < count; k++) {
      const supersedes = segment.supersedes[k];
      if (supersedes != null) {
        this.markSuperseded(supersedes, segment.ids[k] as string);
      }
    }
    this.blocks.push(block);
    this.tailStart += count;
    this.lastLeafIndex = Math.max(this.lastLeafIndex, segment.leafIndexes[count - 1] as number);
  }

  /**
   * Copies `count` leaf hashes (32 bytes each, back to back in `source`) to positions
   * `position`… of the hash chunks, one `set` per chunk they fall in.
   */
  private putHashes(position: number, source: Uint8Array, count: number): void {
    for (let done = 0; done < count; ) {
      const at = position + done;
      const run = Math.min(count - done, HASH_CHUNK - (at % HASH_CHUNK));
      this.hashRoom(at + run - 1).set(
        source.subarray(done * HASH_BYTES, (done + run) * HASH_BYTES),
        (at % HASH_CHUNK) * HASH_BYTES,
      );
      done += run;
    }
  }

  /** The hash chunk of `position`, grown (and counted) so that it holds that position. */
  private hashRoom(position: number): Uint8Array {
    const index = Math.floor(position / HASH_CHUNK);
    const chunk = this.hashChunks[index];
    if (chunk && chunk.length >= ((position % HASH_CHUNK) + 1) * HASH_BYTES) {
      return chunk;
    }
    const needed = ((position % HASH_CHUNK) + 1) * HASH_BYTES;
    let length = chunk
      ? Math.min(2 * chunk.length, HASH_CHUNK * HASH_BYTES)
      : FIRST_HASH_CHUNK * HASH_BYTES;
    while (length < needed) {
      length = Math.min(2 * length, HASH_CHUNK * HASH_BYTES);
    }
    const grown = new Uint8Array(length);
    if (chunk) {
      grown.set(chunk);
    }
    this.hashChunks[index] = grown;
    this.bytes += length - (chunk?.length ?? 0);
    return grown;
  }

  /** Seals the tail into a block when it holds at least `min` memories. */
  sealTail(min: number): void {
    if (this.tailTexts.length >= Math.max(1, min)) {
      this.seal();
    }
  }

  /** Moves the tail into a new block and re-estimates its memories' sizes. */
  private seal(): void {
    const texts = this.tailTexts;
    const folded = this.tailFolded;
    const width = this.tailAscii.every((ascii) => ascii) ? 1 : 2;
    const text = texts.join(SEPARATOR);
    const ends = endsOf(texts);
    const sameFolded = folded.every((f, k) => f === texts[k]);
    const block: TextBlock = {
      start: this.tailStart,
      count: texts.length,
      text,
      ends,
      folded: sameFolded ? text : folded.join(SEPARATOR),
      foldedEnds: sameFolded ? ends : endsOf(folded),
      width,
      live: 0,
    };
    for (let k = 0; k < texts.length; k++) {
      const position = block.start + k;
      const size = this.sizes[position] as number;
      if (size === 0) {
        continue;
      }
      block.live++;
      const before = this.tailTextBytes[k] as number;
      const after = blockTextBytes(block, k);
      this.sizes[position] = size - before + after;
      this.bytes += after - before;
    }
    this.blocks.push(block);
    this.tailStart += texts.length;
    this.tailTexts = [];
    this.tailFolded = [];
    this.tailAscii = [];
    this.tailTextBytes = [];
    this.tailChars = 0;
  }

  /** Whether the memory at `position` is live (not a tombstone). */
  isLive(position: number): boolean {
    return (this.sizes[position] as number) > 0;
  }

  /** The content of the memory at `position` (live or not). */
  content(position: number): string {
    if (position >= this.tailStart) {
      return this.tailTexts[position - this.tailStart] as string;
    }
    const block = this.blockOf(position);
    const k = position - block.start;
    return block.text.slice(k === 0 ? 0 : (block.ends[k - 1] as number) + 1, block.ends[k]);
  }

  /** The lower-cased content of the memory at `position`. */
  folded(position: number): string {
    if (position >= this.tailStart) {
      return this.tailFolded[position - this.tailStart] as string;
    }
    const block = this.blockOf(position);
    const k = position - block.start;
    const ends = block.foldedEnds;
    return block.folded.slice(k === 0 ? 0 : (ends[k - 1] as number) + 1, ends[k]);
  }

  /** The memory at `position` as a recall match. */
  entry(position: number): RecallEntry {
    return {
      id: this.ids[position] as string,
      leafIndex: this.leafIndexes[position] as number,
      content: this.content(position),
      metadata: this.metadataAt(position),
      createdAt: new Date(this.createdMs[position] as number),
      leafHash: this.leafHashAt(position),
      namespace: this.namespaces[position] ?? null,
      supersedes: this.supersedes[position] ?? null,
      supersededBy: this.supersededBy[position] ?? null,
      writtenBy: this.writers[position] ?? null,
    };
  }

  /** The leaf hash of the memory at `position` (a copy). */
  leafHashAt(position: number): Uint8Array {
    const chunk = this.hashChunks[Math.floor(position / HASH_CHUNK)] as Uint8Array;
    const offset = (position % HASH_CHUNK) * HASH_BYTES;
    return chunk.slice(offset, offset + HASH_BYTES);
  }

  /** The metadata of the memory at `position`, parsed (and kept parsed) on first use. */
  metadataAt(position: number): Metadata {
    const held = this.metadata[position] as HeldMetadata;
    if (typeof held !== "string") {
      return held;
    }
    const parsed = parseMetadata(held);
    this.metadata[position] = parsed;
    this.unparsed--;
    return parsed;
  }

  /** The metadata of the memory at `position` as JSON text. */
  metadataJson(position: number): string {
    const held = this.metadata[position] as HeldMetadata;
    if (typeof held === "string") {
      return held;
    }
    return held === EMPTY_METADATA ? "{}" : JSON.stringify(held);
  }

  /**
   * The clear-field columns `filter` reads ({@link compileFilter}): every metadata parsed first
   * when the filter has metadata conditions.
   */
  filterColumns(filter: MemoryFilter): FilterColumns {
    if (this.unparsed > 0 && Object.keys(filter.metadata ?? {}).length > 0) {
      this.parseAllMetadata();
    }
    return {
      metadata: this.metadata as Metadata[],
      namespaces: this.namespaces,
      createdMs: this.createdMs,
      supersededBy: this.supersededBy,
      supersededCount: this.supersededCount,
    };
  }

  private parseAllMetadata(): void {
    for (let position = 0; position < this.metadata.length && this.unparsed > 0; position++) {
      if (typeof this.metadata[position] === "string") {
        this.metadataAt(position);
      }
    }
  }

  /** Drops the memory with this id (this process's own deletes); a linear search. */
  removeId(id: string): void {
    const position = this.ids.lastIndexOf(id);
    if (position >= 0) {
      this.removeAt(position);
    }
  }

  /** Drops the memory with this leaf index (deletions read back); a binary search. */
  removeLeaf(leafIndex: number): void {
    let low = 0;
    let high = this.leafIndexes.length - 1;
    while (low <= high) {
      const middle = (low + high) >>> 1;
      const found = this.leafIndexes[middle] as number;
      if (found === leafIndex) {
        this.removeAt(middle);
        return;
      }
      if (found < leafIndex) {
        low = middle + 1;
      } else {
        high = middle - 1;
      }
    }
  }

  private removeAt(position: number): void {
    const size = this.sizes[position] as number;
    if (size === 0) {
      return;
    }
    if (position >= this.tailStart) {
      // Tail texts are separate strings: drop them now.
      this.tailTexts[position - this.tailStart] = "";
      this.tailFolded[position - this.tailStart] = "";
      this.bytes -= size;
    } else {
      // A block's text stays until compaction: keep counting it.
      const block = this.blockOf(position);
      this.bytes -= size - blockTextBytes(block, position - block.start);
      block.live--;
    }
    this.sizes[position] = 0;
    this.changes++;
    this.liveChars -= this.lengths[position] as number;
    this.ids[position] = "";
    if (typeof this.metadata[position] === "string") {
      this.unparsed--;
    }
    this.metadata[position] = EMPTY_METADATA;
    this.tombstones++;
    if (this.tombstones > 1024 && this.tombstones * 2 > this.ids.length) {
      this.compact();
    }
  }

  private blockOf(position: number): TextBlock {
    let low = 0;
    let high = this.blocks.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >>> 1;
      if ((this.blocks[middle] as TextBlock).start <= position) {
        low = middle;
      } else {
        high = middle - 1;
      }
    }
    return this.blocks[low] as TextBlock;
  }

  /** Records that `id` (held or not) was superseded by `supersededBy`. */
  markSuperseded(id: string, supersededBy: string): void {
    const position = this.ids.lastIndexOf(id);
    if (position >= 0 && this.supersededBy[position] == null) {
      this.supersededBy[position] = supersededBy;
      this.supersededCount++;
      this.changes++;
    }
  }

  /**
   * The live memories of `range` whose ids are in `liveIds`, in leaf order, as segment entries.
   * @throws Error when a live id of the range is not held (the log does not cover the range).
   */
  segmentEntries(
    range: { readonly firstLeaf: number; readonly endLeaf: number },
    liveIds: ReadonlySet<string>,
  ): { entries: SegmentEntry[]; contents: string[] } {
    const entries: SegmentEntry[] = [];
    const contents: string[] = [];
    for (
      let position = this.positionOfLeaf(range.firstLeaf);
      position < this.ids.length;
      position++
    ) {
      const leafIndex = this.leafIndexes[position] as number;
      if (leafIndex >= range.endLeaf) {
        break;
      }
      const id = this.ids[position] as string;
      if (!this.isLive(position) || !liveIds.has(id)) {
        continue;
      }
      const writer = this.writers[position] ?? null;
      entries.push({
        id,
        leafIndex,
        createdAtMs: this.createdMs[position] as number,
        metadataJson: this.metadataJson(position),
        leafHash: this.leafHashAt(position),
        namespace: this.namespaces[position] ?? null,
        supersedes: this.supersedes[position] ?? null,
        writerKind: writer?.kind ?? null,
        writerKeyId: writer?.kind === "api_key" ? writer.keyId : null,
      });
      contents.push(this.content(position));
    }
    if (entries.length !== liveIds.size) {
      throw new Error(
        `the cached log holds ${entries.length} of the ${liveIds.size} live memories of leaves [${range.firstLeaf}, ${range.endLeaf})`,
      );
    }
    return { entries, contents };
  }

  /** The first position whose leaf index is ≥ `leafIndex` (binary search). */
  private positionOfLeaf(leafIndex: number): number {
    let low = 0;
    let high = this.leafIndexes.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if ((this.leafIndexes[middle] as number) < leafIndex) {
        low = middle + 1;
      } else {
        high = middle;
      }
    }
    return low;
  }

  /** Live memories held. */
  get liveCount(): number {
    return this.ids.length - this.tombstones;
  }

  /**
   * The inverted index over the lower-cased texts, brought up to date with every memory held
   * (built on the first relevance query, then extended as memories arrive; counted in `bytes`).
   * Postings of deleted memories stay until compaction: readers check {@link isLive}.
   */
  termIndex(): TermIndex {
    if (this.terms === null) {
      this.terms = new TermIndex();
    }
    const before = this.terms.bytes;
    for (let position = this.terms.indexed; position < this.ids.length; position++) {
      if (this.isLive(position)) {
        this.terms.add(position, this.folded(position));
      }
    }
    this.terms.indexed = this.ids.length;
    this.bytes += this.terms.bytes - before;
    return this.terms;
  }

  /**
   * The positions (ascending) where `condition`'s field holds its value, from the field's
   * equality index, built on first use and brought up to date with every memory held (counted in
   * `bytes`); the smallest list when several conditions are given. Deleted memories may be among
   * them: readers check {@link isLive}.
   * @returns null when there is no condition, or when a new index would pass
   *   {@link MAX_VALUE_INDEXES} (scan instead).
   */
  positionsWhere(conditions: readonly EqualityCondition[]): PositionList | null {
    let best: PositionList | null = null;
    for (const { field, value } of conditions) {
      const index = this.valueIndex(field);
      if (index === null) {
        continue;
      }
      const list = index.values.get(value) ?? EMPTY_POSITIONS;
      if (best === null || list.length < best.length) {
        best = list;
      }
    }
    return best;
  }

  private valueIndex(field: IndexedField): ValueIndex | null {
    const name = field.kind === "namespace" ? "namespace" : `metadata:${field.key}`;
    let index = this.valueIndexes.get(name);
    if (index === undefined) {
      if (this.valueIndexes.size >= MAX_VALUE_INDEXES) {
        return null;
      }
      index = new ValueIndex();
      this.valueIndexes.set(name, index);
    }
    const before = index.bytes;
    if (field.kind === "namespace") {
      for (let position = index.indexed; position < this.ids.length; position++) {
        if (this.isLive(position)) {
          index.add(position, this.namespaces[position]);
        }
      }
    } else {
      const key = field.key;
      this.parseAllMetadata();
      for (let position = index.indexed; position < this.ids.length; position++) {
        if (this.isLive(position)) {
          // The very read compileFilter's scalar equality makes.
          index.add(position, (this.metadata[position] as Record<string, unknown>)[key]);
        }
      }
    }
    index.indexed = this.ids.length;
    this.bytes += index.bytes - before;
    return index;
  }

  /** Live memories at positions `from` and above. */
  liveFrom(from: number): number {
    if (this.tombstones === 0) {
      return this.ids.length - from;
    }
    let live = 0;
    for (let position = from; position < this.ids.length; position++) {
      if ((this.sizes[position] as number) > 0) {
        live++;
      }
    }
    return live;
  }

  /** Rebuilds the log without its tombstones. */
  private compact(): void {
    const old = {
      ids: this.ids,
      leafIndexes: this.leafIndexes,
      createdMs: this.createdMs,
      metadata: this.metadata,
      namespaces: this.namespaces,
      supersedes: this.supersedes,
      supersededBy: this.supersededBy,
      writers: this.writers,
      sizes: this.sizes,
      hashChunks: this.hashChunks,
    };
    const texts: { content: string; folded: string }[] = [];
    for (let position = 0; position < old.ids.length; position++) {
      if (this.isLive(position)) {
        texts.push({ content: this.content(position), folded: this.folded(position) });
      }
    }
    this.ids = [];
    this.leafIndexes = [];
    this.createdMs = [];
    this.metadata = [];
    this.unparsed = 0;
    this.namespaces = [];
    this.supersedes = [];
    this.supersededBy = [];
    this.supersededCount = 0;
    this.writers = [];
    this.sizes = [];
    this.hashChunks = [];
    this.blocks = [];
    this.tailStart = 0;
    this.tailTexts = [];
    this.tailFolded = [];
    this.tailAscii = [];
    this.tailTextBytes = [];
    this.tailChars = 0;
    this.tombstones = 0;
    this.bytes = LOG_BYTES;
    this.lengths = [];
    this.liveChars = 0;
    this.terms = null;
    this.valueIndexes = new Map();
    let next = 0;
    for (let position = 0; position < old.ids.length; position++) {
      if (old.sizes[position] === 0) {
        continue;
      }
      const { content, folded } = texts[next++] as { content: string; folded: string };
      const metadata = old.metadata[position] as HeldMetadata;
      const hashOffset = (position % HASH_CHUNK) * HASH_BYTES;
      this.push(
        old.ids[position] as string,
        old.leafIndexes[position] as number,
        old.createdMs[position] as number,
        metadata,
        metadata === EMPTY_METADATA
          ? 0
          : METADATA_BYTES +
              2 * (typeof metadata === "string" ? metadata : JSON.stringify(metadata)).length,
        (old.hashChunks[Math.floor(position / HASH_CHUNK)] as Uint8Array).subarray(
          hashOffset,
          hashOffset + HASH_BYTES,
        ),
        { content, folded, ascii: oneByte(content) && oneByte(folded) },
        {
          namespace: old.namespaces[position] ?? null,
          supersedes: old.supersedes[position] ?? null,
          supersededBy: old.supersededBy[position] ?? null,
          writer: old.writers[position] ?? null,
        },
      );
    }
    this.sealTail(TAIL_ENTRIES);
  }
}

/** The per-process recall cache. One instance per app. */
export class RecallCache {
  private readonly logs = new Map<string, UserLog>();
  private readonly locks = new Map<string, Promise<unknown>>();
  private readonly db: Database;
  private readonly clock: Clock;
  private readonly maxBytes: number;
  private readonly pageSize: number;
  private readonly overlapMs: number;
  private evictions = 0;
  private readonly segmentLeaves: number;
  private segmentsSealed = 0;
  private sealFailures = 0;
  /** Users whose segments are being sealed by this process. */
  private readonly sealing = new Set<string>();

  constructor(options: RecallCacheOptions) {
    this.db = options.db;
    this.clock = options.clock;
    this.maxBytes = options.maxBytes;
    this.pageSize = options.pageSize ?? 10_000;
    this.overlapMs = options.deletionOverlapMs ?? 300_000;
    this.segmentLeaves = options.segmentLeaves ?? 4096;
    if (!Number.isSafeInteger(this.segmentLeaves) || this.segmentLeaves < 0) {
      throw new RangeError(
        `segmentLeaves must be a non-negative integer, got ${this.segmentLeaves}`,
      );
    }
    if (!Number.isSafeInteger(this.maxBytes) || this.maxBytes < 0) {
      throw new RangeError(`maxBytes must be a non-negative integer, got ${this.maxBytes}`);
    }
    if (!Number.isInteger(this.pageSize) || this.pageSize < 1 || this.pageSize > 10_000) {
      throw new RangeError(`pageSize must be an integer in [1, 10000], got ${this.pageSize}`);
    }
  }

  /**
   * Searches the user's live memories: brings the cached log up to date (new leaves, deletions),
   * then scans it newest first until `limit` matches. A warm search scans the cached log while
   * the refresh's statement is at PostgreSQL, and keeps that answer when the refresh changed
   * nothing (otherwise it scans again): the round trip and the scan overlap instead of adding up.
   * @param dataKey the user's unwrapped data key (used to decrypt new leaves; not kept).
   * @throws DecryptionError when a stored body does not open (a damaged row); database errors.
   */
  search(userId: string, dataKey: Uint8Array, query: RecallQuery): Promise<RecallResult> {
    return this.exclusive(userId, async () => {
      const cached = this.logs.get(userId);
      const changesBefore = cached?.changes;
      const refreshing = this.refresh(userId, dataKey);
      let early: RecallResult | undefined;
      if (cached !== undefined) {
        // Handled below; this keeps a failed refresh from being reported unhandled meanwhile.
        refreshing.catch(() => undefined);
        await statementSent();
        early = scan(cached, query);
      }
      const log = await refreshing;
      const result =
        early !== undefined && log === cached && log.changes === changesBefore
          ? early
          : scan(log, query);
      this.keep(userId, log);
      if (this.fullRangesUnsealed(log) && !this.sealing.has(userId)) {
        // Off the request path: the answer does not wait; a failure is retried next time.
        void this.sealRanges(userId, dataKey, log).catch(() => {
          this.sealFailures++;
        });
      }
      return result;
    });
  }

  /**
   * Seals every full aligned range of the user's log not sealed yet (what searches start in the
   * background), and waits for it: tests, benchmarks and rebuilds.
   * @returns how many segments this call inserted (0 when another instance sealed them first).
   * @throws database errors; DecryptionError when a stored body does not open.
   */
  seal(userId: string, dataKey: Uint8Array): Promise<number> {
    return this.exclusive(userId, async () => {
      const log = await this.refresh(userId, dataKey);
      this.keep(userId, log);
      return this.sealRanges(userId, dataKey, log);
    });
  }

  private fullRangesUnsealed(log: UserLog): boolean {
    return this.segmentLeaves > 0 && log.sealedEnd + this.segmentLeaves <= log.lastLeafIndex + 1;
  }

  /**
   * Seals the log's full ranges from `log.sealedEnd` on, in order, each in its own transaction
   * (`sealRecallSegment`: the live ids read FOR SHARE, so a deleted memory is never sealed).
   * The entries come from `log`, which holds every live memory up to its last leaf.
   */
  private async sealRanges(userId: string, dataKey: Uint8Array, log: UserLog): Promise<number> {
    this.sealing.add(userId);
    let inserted = 0;
    try {
      while (this.fullRangesUnsealed(log)) {
        const range = { firstLeaf: log.sealedEnd, endLeaf: log.sealedEnd + this.segmentLeaves };
        const done = await sealRecallSegment(this.db, userId, range, (liveIds) => {
          const { entries, contents } = log.segmentEntries(range, liveIds);
          return sealSegment(dataKey, userId, range, entries, contents);
        });
        if (done) {
          inserted++;
          this.segmentsSealed++;
        }
        log.sealedEnd = Math.max(log.sealedEnd, range.endLeaf);
      }
    } finally {
      this.sealing.delete(userId);
    }
    return inserted;
  }

  /** Drops a deleted memory from the user's cached log at once (this process's own deletes). */
  forget(userId: string, memoryId: string): void {
    this.logs.get(userId)?.removeId(memoryId);
  }

  /** Users cached, estimated bytes, evictions so far. */
  stats(): RecallCacheStats {
    let bytes = 0;
    for (const log of this.logs.values()) {
      bytes += log.bytes;
    }
    return {
      users: this.logs.size,
      bytes,
      evictions: this.evictions,
      segmentsSealed: this.segmentsSealed,
      sealFailures: this.sealFailures,
    };
  }

  /** Runs `task` after every earlier task of the same user (refreshes never interleave). */
  private exclusive<T>(userId: string, task: () => Promise<T>): Promise<T> {
    const previous = this.locks.get(userId) ?? Promise.resolve();
    const run = previous.then(task, task);
    const settled = run.then(
      () => undefined,
      () => undefined,
    );
    this.locks.set(userId, settled);
    void settled.then(() => {
      if (this.locks.get(userId) === settled) {
        this.locks.delete(userId);
      }
    });
    return run;
  }

  /**
   * The user's log brought up to date: pages of new leaves, decrypted as they stream in; the
   * first page's statement also reads the deletions since the last check (a cold log has none
   * to apply: its pages hold live rows only).
   */
  private async refresh(userId: string, dataKey: Uint8Array): Promise<UserLog> {
    const checkStartedAt = this.clock.now().getTime();
    const cached = this.logs.get(userId);
    const log = cached ?? new UserLog(new Date(checkStartedAt - this.overlapMs));
    const context = { userId, memoryId: "" };
    const add = (row: RecallRow) => {
      context.memoryId = row.id;
      const plaintext = decryptBody(dataKey, row, context);
      if (plaintext.length < SALT_BYTES) {
        throw new RangeError(`memory ${row.id}: plaintext shorter than its salt`);
      }
      const body = plaintext.subarray(SALT_BYTES);
      log.add(row, decoder.decode(body), isAscii(body));
    };
    if (!cached && this.segmentLeaves > 0) {
      await this.loadSegments(userId, dataKey, log);
    }
    let deletedSince: Date | null = cached ? log.deletionsCheckedAt : null;
    for (;;) {
      const page = await readRecallPage(
        this.db,
        userId,
        { afterLeafIndex: log.lastLeafIndex, limit: this.pageSize, deletedSince },
        add,
      );
      for (const leafIndex of page.deletedLeafIndexes) {
        log.removeLeaf(leafIndex);
      }
      deletedSince = null;
      if (page.rows < this.pageSize) {
        break;
      }
    }
    log.sealTail(TAIL_ENTRIES);
    log.deletionsCheckedAt = new Date(checkStartedAt - this.overlapMs);
    return log;
  }

  /**
   * A cold load's first part: the user's segments, in one query, from leaf 0 while they follow
   * one another, each opened and decoded into the log; then the superseded marks of their
   * memories (segments do not keep that mutable field). The rows after them come next.
   */
  private async loadSegments(userId: string, dataKey: Uint8Array, log: UserLog): Promise<void> {
    let end = 0;
    let contiguous = true;
    await streamRecallSegments(this.db, userId, (segment) => {
      if (!contiguous || segment.firstLeaf !== end) {
        contiguous = false;
        return;
      }
      log.addSegment(openSegment(dataKey, segment));
      end = segment.endLeaf;
    });
    if (end === 0) {
      return;
    }
    for (const [id, supersededBy] of await listSupersededBefore(this.db, userId, end)) {
      log.markSuperseded(id, supersededBy);
    }
    log.lastLeafIndex = Math.max(log.lastLeafIndex, end - 1);
    log.sealedEnd = end;
  }

  /** Keeps `log` as the most recently used, then evicts least recently used users past the cap. */
  private keep(userId: string, log: UserLog): void {
    this.logs.delete(userId);
    if (log.bytes > this.maxBytes) {
      return;
    }
    this.logs.set(userId, log);
    let total = this.stats().bytes;
    for (const [otherId, other] of this.logs) {
      if (total <= this.maxBytes) {
        break;
      }
      this.logs.delete(otherId);
      total -= other.bytes;
      this.evictions++;
    }
  }
}

const decoder = new TextDecoder("utf-8", { fatal: true });

/**
 * Resolves once a statement started in the current turn has been written to its socket:
 * postgres.js starts a query after a microtask and writes a small one from a `setImmediate`, so
 * the second of two nested immediates runs after that write.
 */
function statementSent(): Promise<void> {
  return new Promise((resolve) => setImmediate(() => setImmediate(resolve)));
}

/** Estimated bytes of a string: header plus one byte per character, or two. */
function stringBytes(value: string, oneByteChars: boolean): number {
  return STRING_BYTES + (oneByteChars ? value.length : 2 * value.length);
}

/** Estimated bytes of text `k` of `block` (its characters, separator, and lower-cased copy). */
function blockTextBytes(block: TextBlock, k: number): number {
  const start = k === 0 ? 0 : (block.ends[k - 1] as number) + 1;
  let chars = (block.ends[k] as number) - start + 1;
  if (block.folded !== block.text) {
    const foldedStart = k === 0 ? 0 : (block.foldedEnds[k - 1] as number) + 1;
    chars += (block.foldedEnds[k] as number) - foldedStart + 1;
  }
  return block.width * chars;
}

/** Whether every character of `value` is ASCII. */
function oneByte(value: string): boolean {
  for (let i = 0; i < value.length; i++) {
    if (value.charCodeAt(i) > 0x7f) {
      return false;
    }
  }
  return true;
}

/** End offsets of `texts` joined by one separator character. */
function endsOf(texts: readonly string[]): Int32Array {
  const ends = new Int32Array(texts.length);
  let offset = 0;
  for (let k = 0; k < texts.length; k++) {
    offset += (texts[k] as string).length;
    ends[k] = offset;
    offset++;
  }
  return ends;
}

function parseMetadata(json: string): Metadata {
  const value: unknown = JSON.parse(json);
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new TypeError("stored metadata is not a JSON object");
  }
  return value as Metadata;
}

/**
 * One page of recall over a user's log: the filter and the cursor first, then the ranking —
 * recency (a substring when a query is given, every memory otherwise; newest first) or relevance
 * (BM25 over the query's terms; highest score first, ties newest first). Looks for one match more
 * than `limit` to tell whether more follow. `scanned` counts the live memories examined: from the
 * newest down to the last match looked at in recency order, every live memory in relevance order.
 */
function scan(log: UserLog, query: RecallQuery): RecallResult {
  if (query.limit < 1) {
    return { items: [], scanned: 0, more: false };
  }
  const filter = compileFilter(query.filter, log.filterColumns(query.filter));
  const verdicts = new Uint8Array(log.ids.length);
  const accept = (position: number): boolean => {
    const known = verdicts[position] as number;
    if (known !== 0) {
      return known === 1;
    }
    const ok = log.isLive(position) && filter(position);
    verdicts[position] = ok ? 1 : 2;
    return ok;
  };
  if (query.rank === "relevance") {
    return rankByRelevance(log, query, accept);
  }
  const before = query.after?.leafIndex;
  const acceptBefore =
    before === undefined
      ? accept
      : (position: number) => (log.leafIndexes[position] as number) < before && accept(position);
  const want = query.limit + 1;
  let matches: { found: number[]; scanned: number };
  if (query.query !== undefined) {
    matches = substringMatches(log, query.query, query.caseSensitive, acceptBefore, want);
  } else {
    const candidates = log.positionsWhere(equalityConditions(query.filter));
    matches =
      candidates === null
        ? newestMatching(log, filter, before ?? Number.POSITIVE_INFINITY, want)
        : newestAmong(log, candidates, filter, before ?? Number.POSITIVE_INFINITY, want);
  }
  const { found, scanned } = matches;
  const page = found.slice(0, query.limit);
  return { items: page.map((p) => log.entry(p)), scanned, more: found.length > query.limit };
}

/**
 * Positions of the newest `want` memories passing `filter` (and before the cursor's leaf index),
 * newest first: one pass over the columns, newest down.
 */
function newestMatching(
  log: UserLog,
  filter: MemoryPredicate,
  before: number,
  want: number,
): { found: number[]; scanned: number } {
  const found: number[] = [];
  let scanned = 0;
  const { sizes, leafIndexes } = log;
  let position = log.ids.length - 1;
  // Skip what the cursor already returned (leaf indices ascend with positions).
  while (position >= 0 && (leafIndexes[position] as number) >= before) {
    if (sizes[position] !== 0) {
      scanned++;
    }
    position--;
  }
  for (; position >= 0 && found.length < want; position--) {
    if (sizes[position] === 0) {
      continue;
    }
    scanned++;
    if (filter(position)) {
      found.push(position);
    }
  }
  return { found, scanned };
}

/**
 * {@link newestMatching} over the positions an equality index listed (every memory that can pass
 * `filter` is among them): the same matches, and the same `scanned` (the live memories from the
 * newest down to the last match taken, or all of them when fewer than `want` match), without
 * reading the others.
 */
function newestAmong(
  log: UserLog,
  candidates: PositionList,
  filter: MemoryPredicate,
  before: number,
  want: number,
): { found: number[]; scanned: number } {
  const found: number[] = [];
  const { positions } = candidates;
  for (let i = candidates.length - 1; i >= 0; i--) {
    const position = positions[i] as number;
    if (
      (log.leafIndexes[position] as number) < before &&
      log.isLive(position) &&
      filter(position)
    ) {
      found.push(position);
      if (found.length >= want) {
        return { found, scanned: log.liveFrom(position) };
      }
    }
  }
  return { found, scanned: log.liveFrom(0) };
}

/** Positions of the newest `want` memories holding `query` and passing `accept`, newest first. */
function substringMatches(
  log: UserLog,
  query: string,
  caseSensitive: boolean,
  accept: (position: number) => boolean,
  want: number,
): { found: number[]; scanned: number } {
  const needle = caseSensitive ? query : query.toLowerCase();
  const found: number[] = [];
  let scanned = 0;
  const tail = caseSensitive ? log.tailTexts : log.tailFolded;
  for (let k = tail.length - 1; k >= 0; k--) {
    const position = log.tailStart + k;
    if (!log.isLive(position)) {
      continue;
    }
    scanned++;
    if ((tail[k] as string).includes(needle) && accept(position)) {
      found.push(position);
      if (found.length >= want) {
        return { found, scanned };
      }
    }
  }
  for (let b = log.blocks.length - 1; b >= 0; b--) {
    const block = log.blocks[b] as TextBlock;
    const hits = blockMatches(block, needle, caseSensitive, accept);
    const wanted = want - found.length;
    if (hits.length < wanted) {
      for (let h = hits.length - 1; h >= 0; h--) {
        found.push(block.start + (hits[h] as number));
      }
      scanned += block.live;
      continue;
    }
    // The page fills in this block: its live memories from the oldest match taken on were
    // examined.
    const from = hits[hits.length - wanted] as number;
    for (let h = hits.length - 1; h >= hits.length - wanted; h--) {
      found.push(block.start + (hits[h] as number));
    }
    for (let k = from; k < block.count; k++) {
      if (log.isLive(block.start + k)) {
        scanned++;
      }
    }
    break;
  }
  return { found, scanned };
}

/**
 * Relevance ranking (relevance.ts) over the log's inverted index: each query term's postings
 * give its live document frequency and the BM25 contributions; the memories passing `accept` and
 * coming after the cursor are kept in a bounded sorted list of `limit + 1` (score, then leaf
 * index, both descending).
 */
function rankByRelevance(
  log: UserLog,
  query: RecallQuery,
  accept: (position: number) => boolean,
): RecallResult {
  const index = log.termIndex();
  const live = log.liveCount;
  const averageLength = live === 0 ? 0 : log.liveChars / live;
  const scores = new Float64Array(log.ids.length);
  const touched: number[] = [];
  for (const term of queryTerms(query.query ?? "")) {
    const postings = index.terms.get(term);
    if (!postings) {
      continue;
    }
    let documents = 0;
    for (let i = 0; i < postings.length; i++) {
      if (log.isLive(postings.positions[i] as number)) {
        documents++;
      }
    }
    const idf = inverseDocumentFrequency(live, documents);
    for (let i = 0; i < postings.length; i++) {
      const position = postings.positions[i] as number;
      if (!log.isLive(position)) {
        continue;
      }
      if (scores[position] === 0) {
        touched.push(position);
      }
      scores[position] =
        (scores[position] as number) +
        termScore(
          idf,
          postings.counts[i] as number,
          log.lengths[position] as number,
          averageLength,
        );
    }
  }
  const leafOf = (position: number) => log.leafIndexes[position] as number;
  const after = query.after?.rank === "relevance" ? query.after : undefined;
  const want = query.limit + 1;
  // best[0] is the best kept; a candidate enters when it beats the worst kept.
  const best: number[] = [];
  const ahead = (a: number, b: number) =>
    (scores[a] as number) > (scores[b] as number) ||
    (scores[a] === scores[b] && leafOf(a) > leafOf(b));
  for (const position of touched) {
    const score = scores[position] as number;
    if (
      after !== undefined &&
      !(score < after.score || (score === after.score && leafOf(position) < after.leafIndex))
    ) {
      continue;
    }
    if (best.length === want && !ahead(position, best[want - 1] as number)) {
      continue;
    }
    if (!accept(position)) {
      continue;
    }
    let low = 0;
    let high = best.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (ahead(best[middle] as number, position)) {
        low = middle + 1;
      } else {
        high = middle;
      }
    }
    best.splice(low, 0, position);
    if (best.length > want) {
      best.pop();
    }
  }
  const page = best.slice(0, query.limit);
  return {
    items: page.map((position) => ({ ...log.entry(position), score: scores[position] as number })),
    scanned: live,
    more: best.length > query.limit,
  };
}

/**
 * Indices (ascending) of the block's texts that contain `needle` and pass `accept`: `indexOf`
 * over the joined text; an occurrence that runs across a separator belongs to no text.
 */
function blockMatches(
  block: TextBlock,
  needle: string,
  caseSensitive: boolean,
  accept: (position: number) => boolean,
): number[] {
  const text = caseSensitive ? block.text : block.folded;
  const ends = caseSensitive ? block.ends : block.foldedEnds;
  const hits: number[] = [];
  let k = 0;
  let at = text.indexOf(needle);
  while (at !== -1) {
    while ((ends[k] as number) < at) {
      k++;
    }
    const end = ends[k] as number;
    if (at + needle.length <= end) {
      if (accept(block.start + k)) {
        hits.push(k);
      }
      k++;
      at = end + 1 < text.length ? text.indexOf(needle, end + 1) : -1;
    } else {
      at = text.indexOf(needle, at + 1);
    }
  }
  return hits;
}
