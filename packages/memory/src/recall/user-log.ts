/**
 * One user's decrypted log as the recall cache holds it, in ascending leaf index: kept
 * column-wise (ids, leaf indices, times, metadata, the leaf hashes packed into byte chunks), its
 * texts in blocks and a tail (text-blocks.ts), its indexes built on first use (indexes.ts), its
 * size estimated as it changes (sizes.ts). Deleted memories become tombstones until compaction.
 * Plaintext lives only in this process's memory; data keys are never kept here.
 * @module
 */
import type { RecallRow } from "@verifiable-memory/db-schema";
import type { EqualityCondition, FilterColumns, MemoryFilter } from "../memory-filter.js";
import { writerFromColumns } from "../memory-leaf.js";
import type { DecodedSegment, SegmentPiece } from "../segment-format.js";
import { LogIndexes, type PositionList, type TermIndex } from "./indexes.js";
import { LeafHashes } from "./leaf-hashes.js";
import type { LexicalAnalyser } from "./lexical-analyser.js";
import { MetadataColumn } from "./metadata-column.js";
import {
  blockTextBytes,
  ENTRY_BYTES,
  LOG_BYTES,
  metadataBytes,
  oneByte,
  stringBytes,
} from "./sizes.js";
import {
  BLOCK_CHARS,
  BLOCK_ENTRIES,
  blockAt,
  blockFolded,
  blockText,
  endsOf,
  SEPARATOR,
  TAIL_ENTRIES,
  type TextBlock,
} from "./text-blocks.js";
import type { MemoryWriter, Metadata, RecallEntry } from "./types.js";
import type { VectorStore } from "./vector-store.js";

/** What {@link UserLog.add} needs of a memory besides its content: a recall row's fields. */
export type LogEntryFields = Omit<RecallRow, "iv" | "ciphertext">;

/** A memory's clear fields besides its metadata, kept column-wise. */
interface EntryAttributes {
  readonly namespace: string | null;
  readonly supersedes: string | null;
  readonly supersededBy: string | null;
  readonly writer: MemoryWriter | null;
}

/** One user's decrypted log in ascending leaf index; deleted memories are tombstones. */
export class UserLog {
  ids: string[] = [];
  leafIndexes: number[] = [];
  createdMs: number[] = [];
  /** Parsed on first use: by a match, or for every memory by a metadata filter. */
  private metadata = new MetadataColumn();
  namespaces: (string | null)[] = [];
  supersedes: (string | null)[] = [];
  supersededBy: (string | null)[] = [];
  writers: (MemoryWriter | null)[] = [];
  /** Entries with a `supersededBy` (tombstones included until compaction). */
  supersededCount = 0;
  /** Estimated bytes of each memory; 0 marks a tombstone. */
  sizes: number[] = [];
  private hashes = new LeafHashes();
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
  /** The inverted, stop-word and equality indexes, each built on first use. */
  private indexes: LogIndexes;
  /** Estimated bytes of the whole log. */
  bytes = LOG_BYTES;
  /** The newest leaf index ever added (deletions do not lower it). */
  lastLeafIndex = -1;
  /**
   * The vectors of one model (quantised), loaded by the first semantic or hybrid search; null
   * until then. Counted in {@link bytes}.
   */
  vectors: VectorStore | null = null;
  /** Vectors stored before this time are held (re-read from it on; null: none read yet). */
  vectorsCheckedAt: Date | null = null;
  /** Leaves [0, sealedEnd) are sealed in full recall segments (as far as this log knows). */
  sealedEnd = 0;
  /** The end of the tail segment sealed after them (≤ sealedEnd: none known). */
  tailSealedEnd = 0;
  /**
   * Counts the changes that can alter an answer (memories added, removed, marked superseded):
   * an answer computed while it did not move still stands.
   */
  changes = 0;

  /**
   * @param deletionsCheckedAt deletions before this time are applied.
   * @param analyser makes the terms of relevance ranking.
   */
  constructor(
    public deletionsCheckedAt: Date,
    readonly analyser: LexicalAnalyser,
  ) {
    this.indexes = new LogIndexes(analyser);
  }

  /**
   * Appends a decrypted memory (its leaf index above every one held); a memory that supersedes
   * one held marks that one superseded.
   */
  add(row: LogEntryFields, content: string, ascii: boolean): void {
    const json = row.metadataJson;
    const writer = writerFromColumns(row.writerKind, row.writerKeyId);
    this.metadata.pushJson(json);
    this.push(
      row.id,
      row.leafIndex,
      row.createdAtMs,
      metadataBytes(json),
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

  /**
   * Appends one memory (its metadata already pushed) to the columns and the tail; seals the tail
   * when it is full.
   */
  private push(
    id: string,
    leafIndex: number,
    createdMs: number,
    metadataSize: number,
    leafHash: Uint8Array,
    text: { content: string; ascii: boolean; folded?: string },
    attrs: EntryAttributes,
  ): void {
    const folded = text.folded ?? text.content.toLowerCase();
    const textBytes =
      stringBytes(text.content, text.ascii) +
      (folded === text.content ? 0 : stringBytes(folded, text.ascii));
    this.bytes += this.hashes.put(this.ids.length, leafHash, 1);
    this.pushColumns(id, leafIndex, createdMs, metadataSize + textBytes, attrs);
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
   * Appends one memory's columns (not its text, leaf hash or metadata): `size` is its estimated
   * bytes so far.
   */
  private pushColumns(
    id: string,
    leafIndex: number,
    createdMs: number,
    size: number,
    attrs: EntryAttributes,
  ): void {
    const total = ENTRY_BYTES + stringBytes(id, oneByte(id)) + size;
    this.ids.push(id);
    this.leafIndexes.push(leafIndex);
    this.createdMs.push(createdMs);
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
   * Appends a decoded recall segment (its leaf indices above every one held): each piece of its
   * contents becomes one block as it is (one lower-casing per piece).
   */
  addSegment(segment: DecodedSegment): void {
    const { count } = segment;
    if (count === 0) {
      return;
    }
    this.sealTail(1);
    const start = this.ids.length;
    // What pushColumns does, in one loop over the segment's columns.
    this.bytes += this.hashes.put(start, segment.leafHashes, count);
    for (const piece of segment.pieces) {
      const block = pieceBlock(start + piece.first, piece, segment.ascii);
      for (let j = 0; j < piece.count; j++) {
        const k = piece.first + j;
        const json = segment.metadataJson[k] as string;
        const id = segment.ids[k] as string;
        const size =
          ENTRY_BYTES +
          stringBytes(id, segment.stringsAscii || oneByte(id)) +
          metadataBytes(json) +
          blockTextBytes(block, j);
        this.ids.push(id);
        this.leafIndexes.push(segment.leafIndexes[k] as number);
        this.createdMs.push(segment.createdMs[k] as number);
        this.namespaces.push(segment.namespaces[k] ?? null);
        this.supersedes.push(segment.supersedes[k] ?? null);
        this.metadata.pushJson(json);
        this.supersededBy.push(null);
        this.writers.push(
          writerFromColumns(segment.writerKinds[k] ?? null, segment.writerKeyIds[k] ?? null),
        );
        this.sizes.push(size);
        this.bytes += size;
      }
      this.blocks.push(block);
    }
    this.changes += count;
    for (let k = 0; k < count; k++) {
      const supersedes = segment.supersedes[k];
      if (supersedes != null) {
        this.markSuperseded(supersedes, segment.ids[k] as string);
      }
    }
    this.tailStart += count;
    this.lastLeafIndex = Math.max(this.lastLeafIndex, segment.leafIndexes[count - 1] as number);
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
    const block = blockAt(this.blocks, position);
    return blockText(block, position - block.start);
  }

  /** The lower-cased content of the memory at `position`. */
  folded(position: number): string {
    if (position >= this.tailStart) {
      return this.tailFolded[position - this.tailStart] as string;
    }
    const block = blockAt(this.blocks, position);
    return blockFolded(block, position - block.start);
  }

  /** The memory at `position` as a recall match. */
  entry(position: number): RecallEntry {
    return {
      id: this.ids[position] as string,
      leafIndex: this.leafIndexes[position] as number,
      content: this.content(position),
      metadata: this.metadataAt(position),
      createdAt: new Date(this.createdMs[position] as number),
      leafHash: this.hashes.at(position),
      namespace: this.namespaces[position] ?? null,
      supersedes: this.supersedes[position] ?? null,
      supersededBy: this.supersededBy[position] ?? null,
      writtenBy: this.writers[position] ?? null,
    };
  }

  /** The leaf hash of the memory at `position` (a copy). */
  leafHashAt(position: number): Uint8Array {
    return this.hashes.at(position);
  }

  /** The metadata of the memory at `position`, parsed (and kept parsed) on first use. */
  metadataAt(position: number): Metadata {
    return this.metadata.at(position);
  }

  /** The metadata of the memory at `position` as JSON text. */
  metadataJson(position: number): string {
    return this.metadata.json(position);
  }

  /**
   * The clear-field columns `filter` reads (compileFilter): every metadata parsed first when the
   * filter has metadata conditions.
   */
  filterColumns(filter: MemoryFilter): FilterColumns {
    return {
      metadata: this.metadata.held(Object.keys(filter.metadata ?? {}).length > 0),
      namespaces: this.namespaces,
      createdMs: this.createdMs,
      supersededBy: this.supersededBy,
      supersededCount: this.supersededCount,
    };
  }

  /** Every memory's metadata, parsed (the ones still JSON text are parsed now). */
  parsedMetadata(): Metadata[] {
    return this.metadata.parsed();
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
    const position = this.positionOfLeaf(leafIndex);
    if (this.leafIndexes[position] === leafIndex) {
      this.removeAt(position);
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
      const block = blockAt(this.blocks, position);
      this.bytes -= size - blockTextBytes(block, position - block.start);
      block.live--;
    }
    this.sizes[position] = 0;
    this.changes++;
    this.indexes.forget(position);
    this.ids[position] = "";
    this.metadata.clear(position);
    this.tombstones++;
    if (this.tombstones > 1024 && this.tombstones * 2 > this.ids.length) {
      this.compact();
    }
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

  /** The first position whose leaf index is ≥ `leafIndex` (binary search). */
  positionOfLeaf(leafIndex: number): number {
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
   * The inverted index of the analyser's terms, brought up to date with every memory held (built
   * on the first relevance query, then extended as memories arrive; counted in `bytes`).
   * Postings of deleted memories stay until compaction: readers check {@link isLive}.
   */
  termIndex(): TermIndex {
    const before = this.indexes.bytes;
    const index = this.indexes.termIndex(this);
    this.bytes += this.indexes.bytes - before;
    return index;
  }

  /**
   * The index of the analyser's stop-word terms (a query of stop words only), built on first use
   * as {@link termIndex}.
   */
  stopIndex(): TermIndex {
    const before = this.indexes.bytes;
    const index = this.indexes.stopIndex(this);
    this.bytes += this.indexes.bytes - before;
    return index;
  }

  /**
   * The positions (ascending) where a condition's field holds its value, from the field's
   * equality index (built on first use, counted in `bytes`); the smallest list when several
   * conditions are given. Deleted memories may be among them: readers check {@link isLive}.
   * @returns null when there is no condition, or when no index may be built (scan instead).
   */
  positionsWhere(conditions: readonly EqualityCondition[]): PositionList | null {
    const before = this.indexes.bytes;
    const positions = this.indexes.positionsWhere(this, conditions);
    this.bytes += this.indexes.bytes - before;
    return positions;
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
      hashes: this.hashes,
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
    this.metadata = new MetadataColumn();
    this.namespaces = [];
    this.supersedes = [];
    this.supersededBy = [];
    this.supersededCount = 0;
    this.writers = [];
    this.sizes = [];
    this.hashes = new LeafHashes();
    this.blocks = [];
    this.tailStart = 0;
    this.tailTexts = [];
    this.tailFolded = [];
    this.tailAscii = [];
    this.tailTextBytes = [];
    this.tailChars = 0;
    this.tombstones = 0;
    this.bytes = LOG_BYTES;
    this.indexes = new LogIndexes(this.analyser);
    const newPositions = new Int32Array(old.ids.length).fill(-1);
    let next = 0;
    for (let position = 0; position < old.ids.length; position++) {
      if (old.sizes[position] === 0) {
        continue;
      }
      newPositions[position] = next;
      const { content, folded } = texts[next++] as { content: string; folded: string };
      this.metadata.pushFrom(old.metadata, position);
      this.push(
        old.ids[position] as string,
        old.leafIndexes[position] as number,
        old.createdMs[position] as number,
        old.metadata.bytesAt(position),
        old.hashes.view(position),
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
    if (this.vectors !== null) {
      this.vectors = this.vectors.remap((position) => newPositions[position] as number);
      this.bytes += this.vectors.bytes;
    }
  }
}

/**
 * A segment piece as the text block at `start`: lower-cased once (per content when that changed
 * lengths). For one-byte text without a capital V8's `toLowerCase` returns the same string, found
 * by a word-at-a-time scan, allocating nothing (faster than a `/[A-Z]/` test of the piece).
 */
function pieceBlock(start: number, piece: SegmentPiece, ascii: boolean): TextBlock {
  const { text, ends, count } = piece;
  let folded = text.toLowerCase();
  let foldedEnds = ends;
  if (folded.length !== text.length) {
    const texts: string[] = [];
    for (let j = 0; j < count; j++) {
      texts.push(text.slice(j === 0 ? 0 : (ends[j - 1] as number) + 1, ends[j]).toLowerCase());
    }
    folded = texts.join(SEPARATOR);
    foldedEnds = endsOf(texts);
  }
  return {
    start,
    count,
    text,
    ends,
    folded: folded === text ? text : folded,
    foldedEnds,
    width: ascii ? 1 : 2,
    live: count,
  };
}
