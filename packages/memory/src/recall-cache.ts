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
 * a short tail of separate strings until they fill a block. Deleted memories become tombstones
 * until compaction. Users are evicted least recently used first once the estimated size passes
 * the cap; a log larger than the cap alone is searched and dropped. Plaintext lives only in this
 * process's memory; data keys are never kept here.
 * @module
 */
import { isAscii } from "node:buffer";
import type { Clock } from "@svc/auth";
import { type Database, type RecallRow, readRecallPage } from "@svc/db-schema";
import { decryptBody } from "@svc/envelope-crypto";
import { SALT_BYTES } from "./memory-body.js";
import { compileFilter, type FilterableMemory, type MemoryFilter } from "./memory-filter.js";
import { inverseDocumentFrequency, isWordCharAt, queryTerms, termScore } from "./relevance.js";

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
export type MemoryWriter =
  | { readonly kind: "session" }
  | { readonly kind: "api_key"; readonly keyId: string };

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
}

type Metadata = Readonly<Record<string, unknown>>;

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
/** The writer of every memory written by a wallet session: one shared, frozen object. */
const SESSION_WRITER: MemoryWriter = Object.freeze({ kind: "session" });

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

/** One user's decrypted log in ascending leaf index; deleted memories are tombstones. */
class UserLog {
  ids: string[] = [];
  leafIndexes: number[] = [];
  createdMs: number[] = [];
  metadata: Metadata[] = [];
  namespaces: (string | null)[] = [];
  supersedes: (string | null)[] = [];
  supersededBy: (string | null)[] = [];
  writers: (MemoryWriter | null)[] = [];
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
  /** Estimated bytes of the whole log. */
  bytes = LOG_BYTES;
  /** The newest leaf index ever added (deletions do not lower it). */
  lastLeafIndex = -1;

  constructor(public deletionsCheckedAt: Date) {}

  /**
   * Appends a decrypted memory (its leaf index above every one held); a memory that supersedes
   * one held marks that one superseded.
   */
  add(row: RecallRow, content: string, ascii: boolean): void {
    const metadata = row.metadataJson === "{}" ? EMPTY_METADATA : parseMetadata(row.metadataJson);
    const metadataBytes =
      metadata === EMPTY_METADATA ? 0 : METADATA_BYTES + 2 * row.metadataJson.length;
    const writer: MemoryWriter | null =
      row.writerKind === "api_key"
        ? { kind: "api_key", keyId: row.writerKeyId ?? "" }
        : row.writerKind === "session"
          ? SESSION_WRITER
          : null;
    this.push(
      row.id,
      row.leafIndex,
      row.createdAtMs,
      metadata,
      metadataBytes,
      row.leafHash,
      0,
      { content, ascii },
      {
        namespace: row.namespace,
        supersedes: row.supersedes,
        supersededBy: row.supersededBy,
        writer,
      },
    );
    if (row.supersedes !== null) {
      const older = this.ids.lastIndexOf(row.supersedes);
      if (older >= 0) {
        this.supersededBy[older] = row.id;
      }
    }
    this.lastLeafIndex = row.leafIndex;
  }

  /** The clear fields of the memory at `position`, as filters see them. */
  filterable(position: number): FilterableMemory {
    return {
      metadata: this.metadata[position] as Metadata,
      namespace: this.namespaces[position] ?? null,
      createdAtMs: this.createdMs[position] as number,
      superseded: this.supersededBy[position] != null,
    };
  }

  /** Appends one memory to the columns and the tail; seals the tail when it is full. */
  private push(
    id: string,
    leafIndex: number,
    createdMs: number,
    metadata: Metadata,
    metadataBytes: number,
    hashes: Uint8Array,
    hashOffset: number,
    text: { content: string; ascii: boolean; folded?: string },
    attrs: EntryAttributes,
  ): void {
    const position = this.ids.length;
    const folded = text.folded ?? text.content.toLowerCase();
    const textBytes =
      stringBytes(text.content, text.ascii) +
      (folded === text.content ? 0 : stringBytes(folded, text.ascii));
    const size = ENTRY_BYTES + stringBytes(id, oneByte(id)) + metadataBytes + textBytes;
    const chunk = this.hashRoom(position);
    const to = (position % HASH_CHUNK) * HASH_BYTES;
    for (let i = 0; i < HASH_BYTES; i++) {
      chunk[to + i] = hashes[hashOffset + i] as number;
    }
    this.ids.push(id);
    this.leafIndexes.push(leafIndex);
    this.createdMs.push(createdMs);
    this.metadata.push(metadata);
    this.namespaces.push(attrs.namespace);
    this.supersedes.push(attrs.supersedes);
    this.supersededBy.push(attrs.supersededBy);
    this.writers.push(attrs.writer);
    this.sizes.push(size);
    this.bytes += size;
    this.tailTexts.push(text.content);
    this.tailFolded.push(folded);
    this.tailAscii.push(text.ascii);
    this.tailTextBytes.push(textBytes);
    this.tailChars += text.content.length;
    if (this.tailTexts.length >= BLOCK_ENTRIES || this.tailChars >= BLOCK_CHARS) {
      this.seal();
    }
  }

  /** The hash chunk of `position`, grown (and counted) so that it holds that position. */
  private hashRoom(position: number): Uint8Array {
    const index = Math.floor(position / HASH_CHUNK);
    const chunk = this.hashChunks[index];
    if (chunk && chunk.length >= ((position % HASH_CHUNK) + 1) * HASH_BYTES) {
      return chunk;
    }
    const length = chunk
      ? Math.min(2 * chunk.length, HASH_CHUNK * HASH_BYTES)
      : FIRST_HASH_CHUNK * HASH_BYTES;
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
    const chunk = this.hashChunks[Math.floor(position / HASH_CHUNK)] as Uint8Array;
    const offset = (position % HASH_CHUNK) * HASH_BYTES;
    return {
      id: this.ids[position] as string,
      leafIndex: this.leafIndexes[position] as number,
      content: this.content(position),
      metadata: this.metadata[position] as Metadata,
      createdAt: new Date(this.createdMs[position] as number),
      leafHash: chunk.slice(offset, offset + HASH_BYTES),
      namespace: this.namespaces[position] ?? null,
      supersedes: this.supersedes[position] ?? null,
      supersededBy: this.supersededBy[position] ?? null,
      writtenBy: this.writers[position] ?? null,
    };
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
    this.ids[position] = "";
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
    this.namespaces = [];
    this.supersedes = [];
    this.supersededBy = [];
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
    let next = 0;
    for (let position = 0; position < old.ids.length; position++) {
      if (old.sizes[position] === 0) {
        continue;
      }
      const { content, folded } = texts[next++] as { content: string; folded: string };
      const metadata = old.metadata[position] as Metadata;
      this.push(
        old.ids[position] as string,
        old.leafIndexes[position] as number,
        old.createdMs[position] as number,
        metadata,
        metadata === EMPTY_METADATA ? 0 : METADATA_BYTES + 2 * JSON.stringify(metadata).length,
        old.hashChunks[Math.floor(position / HASH_CHUNK)] as Uint8Array,
        (position % HASH_CHUNK) * HASH_BYTES,
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

  constructor(options: RecallCacheOptions) {
    this.db = options.db;
    this.clock = options.clock;
    this.maxBytes = options.maxBytes;
    this.pageSize = options.pageSize ?? 10_000;
    this.overlapMs = options.deletionOverlapMs ?? 300_000;
    if (!Number.isSafeInteger(this.maxBytes) || this.maxBytes < 0) {
      throw new RangeError(`maxBytes must be a non-negative integer, got ${this.maxBytes}`);
    }
    if (!Number.isInteger(this.pageSize) || this.pageSize < 1 || this.pageSize > 10_000) {
      throw new RangeError(`pageSize must be an integer in [1, 10000], got ${this.pageSize}`);
    }
  }

  /**
   * Searches the user's live memories: brings the cached log up to date (new leaves, deletions),
   * then scans it newest first until `limit` matches.
   * @param dataKey the user's unwrapped data key (used to decrypt new leaves; not kept).
   * @throws DecryptionError when a stored body does not open (a damaged row); database errors.
   */
  search(userId: string, dataKey: Uint8Array, query: RecallQuery): Promise<RecallResult> {
    return this.exclusive(userId, async () => {
      const log = await this.refresh(userId, dataKey);
      const result = scan(log, query);
      this.keep(userId, log);
      return result;
    });
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
    return { users: this.logs.size, bytes, evictions: this.evictions };
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
  const filter = compileFilter(query.filter);
  const verdicts = new Uint8Array(log.ids.length);
  const accept = (position: number): boolean => {
    const known = verdicts[position] as number;
    if (known !== 0) {
      return known === 1;
    }
    const ok = log.isLive(position) && filter(log.filterable(position));
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
  const { found, scanned } =
    query.query === undefined
      ? newestMatching(log, acceptBefore, want)
      : substringMatches(log, query.query, query.caseSensitive, acceptBefore, want);
  const page = found.slice(0, query.limit);
  return { items: page.map((p) => log.entry(p)), scanned, more: found.length > query.limit };
}

/** Positions of the newest `want` memories passing `accept`, newest first. */
function newestMatching(
  log: UserLog,
  accept: (position: number) => boolean,
  want: number,
): { found: number[]; scanned: number } {
  const found: number[] = [];
  let scanned = 0;
  for (let position = log.ids.length - 1; position >= 0 && found.length < want; position--) {
    if (!log.isLive(position)) {
      continue;
    }
    scanned++;
    if (accept(position)) {
      found.push(position);
    }
  }
  return { found, scanned };
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
 * Relevance ranking (relevance.ts): per query term, its word-bounded occurrences in every live
 * text (one `indexOf` pass over each block's lower-cased texts), document frequencies over the
 * live memories, then the BM25 score of each memory passing `accept` that holds a term; sorted by
 * score, then leaf index, both descending, and cut after the cursor.
 */
function rankByRelevance(
  log: UserLog,
  query: RecallQuery,
  accept: (position: number) => boolean,
): RecallResult {
  const terms = queryTerms(query.query ?? "");
  const count = log.ids.length;
  const lengths = new Float64Array(count);
  let live = 0;
  let totalLength = 0;
  for (const block of log.blocks) {
    for (let k = 0; k < block.count; k++) {
      if (log.isLive(block.start + k)) {
        const length =
          (block.foldedEnds[k] as number) - (k === 0 ? 0 : (block.foldedEnds[k - 1] as number) + 1);
        lengths[block.start + k] = length;
        live++;
        totalLength += length;
      }
    }
  }
  log.tailFolded.forEach((text, k) => {
    if (log.isLive(log.tailStart + k)) {
      lengths[log.tailStart + k] = text.length;
      live++;
      totalLength += text.length;
    }
  });
  const averageLength = live === 0 ? 0 : totalLength / live;
  const frequencies = terms.map((term) => termFrequencies(log, term));
  const scores: { position: number; score: number }[] = [];
  const idfs = frequencies.map(({ documents }) => inverseDocumentFrequency(live, documents));
  for (let position = 0; position < count; position++) {
    let score = 0;
    for (let t = 0; t < terms.length; t++) {
      const tf = (frequencies[t] as { counts: Uint32Array }).counts[position] as number;
      if (tf > 0) {
        score += termScore(idfs[t] as number, tf, lengths[position] as number, averageLength);
      }
    }
    if (score > 0 && accept(position)) {
      scores.push({ position, score });
    }
  }
  const leafOf = (position: number) => log.leafIndexes[position] as number;
  scores.sort((a, b) => b.score - a.score || leafOf(b.position) - leafOf(a.position));
  const after = query.after;
  const from =
    after?.rank === "relevance"
      ? scores.findIndex(
          ({ position, score }) =>
            score < after.score || (score === after.score && leafOf(position) < after.leafIndex),
        )
      : 0;
  const rest = from < 0 ? [] : scores.slice(from);
  const page = rest.slice(0, query.limit);
  return {
    items: page.map(({ position, score }) => ({ ...log.entry(position), score })),
    scanned: live,
    more: rest.length > query.limit,
  };
}

/**
 * Occurrences of `term` (lower-cased, word-bounded) in each live memory's lower-cased text, by
 * position, and how many live memories hold it.
 */
function termFrequencies(log: UserLog, term: string): { counts: Uint32Array; documents: number } {
  const counts = new Uint32Array(log.ids.length);
  let documents = 0;
  const count = (position: number) => {
    if (counts[position] === 0 && log.isLive(position)) {
      documents++;
    }
    if (log.isLive(position)) {
      counts[position] = (counts[position] as number) + 1;
    }
  };
  for (const block of log.blocks) {
    const text = block.folded;
    const ends = block.foldedEnds;
    let k = 0;
    for (let at = text.indexOf(term); at !== -1; at = text.indexOf(term, at + term.length)) {
      while ((ends[k] as number) < at) {
        k++;
      }
      const end = at + term.length;
      if (end <= (ends[k] as number) && !isWordCharAt(text, at - 1) && !isWordCharAt(text, end)) {
        count(block.start + k);
      }
    }
  }
  log.tailFolded.forEach((text, k) => {
    for (let at = text.indexOf(term); at !== -1; at = text.indexOf(term, at + term.length)) {
      if (!isWordCharAt(text, at - 1) && !isWordCharAt(text, at + term.length)) {
        count(log.tailStart + k);
      }
    }
  });
  return { counts, documents };
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
