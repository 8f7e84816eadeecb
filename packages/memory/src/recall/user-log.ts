/**
 * One user's decrypted log as the recall cache holds it, in ascending leaf index: kept
 * column-wise (ids and metadata in runs, entry-string-columns.ts; the other clear fields in
 * typed arrays and small tables, clear-columns.ts; the leaf hashes packed into byte chunks), its
 * texts in blocks and a tail (text-blocks.ts), its indexes built on first use (indexes.ts), its
 * size estimated as it changes (sizes.ts). Deleted memories become tombstones until compaction.
 * Plaintext lives only in this process's memory; data keys are never kept here.
 * @module
 */
import type { RecallRow } from "@verifiable-memory/db-schema";
import type { EqualityCondition, FilterColumns, MemoryFilter } from "../memory-filter.js";
import { writerFromColumns } from "../memory-leaf.js";
import {
  type DecodedSegment,
  type EntryStrings,
  entryId,
  entryIdLength,
  entryMetadataLength,
} from "../segment-format.js";
import { ClearColumns, type EntryAttributes } from "./clear-columns.js";
import { EntryStringColumns } from "./entry-string-columns.js";
import { LogIndexes, type PositionList, type TermIndex } from "./indexes.js";
import { LeafHashes } from "./leaf-hashes.js";
import type { LexicalAnalyser } from "./lexical-analyser.js";
import {
  blockTextBytes,
  ENTRY_BYTES,
  LOG_BYTES,
  metadataBytes,
  metadataBytesOfLength,
  oneByte,
  STRING_BYTES,
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
  segmentPieceBlock,
  TAIL_ENTRIES,
  type TextBlock,
} from "./text-blocks.js";
import type { MemoryWriter, Metadata, RecallEntry } from "./types.js";
import type { VectorStore } from "./vector-store.js";

/** What {@link UserLog.add} needs of a memory besides its content: a recall row's fields. */
export type LogEntryFields = Omit<RecallRow, "iv" | "ciphertext">;

/** One user's decrypted log in ascending leaf index; deleted memories are tombstones. */
export class UserLog {
  /** Memories held, tombstones included: positions 0 … count - 1. */
  count = 0;
  /** Ids and metadata, by position. */
  private strings = new EntryStringColumns();
  /** Leaf indices, times, size estimates, namespaces, writers, supersession, by position. */
  private columns = new ClearColumns();
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

  /** Leaf index by position (its length is room, not {@link count}). */
  get leafIndexes(): Float64Array {
    return this.columns.leafIndexes;
  }

  /** Creation time by position, epoch milliseconds (its length is room, not {@link count}). */
  get createdMs(): Float64Array {
    return this.columns.createdMs;
  }

  /** Estimated bytes of each memory; 0 marks a tombstone (its length is room, not {@link count}). */
  get sizes(): Float64Array {
    return this.columns.sizes;
  }

  /** Entries marked superseded (tombstones included until compaction). */
  get supersededCount(): number {
    return this.columns.supersededCount;
  }

  /**
   * Appends a decrypted memory (its leaf index above every one held); a memory that supersedes
   * one held marks that one superseded.
   */
  add(row: LogEntryFields, content: string, ascii: boolean): void {
    const json = row.metadataJson;
    this.strings.push(row.id, json);
    this.push(
      stringBytes(row.id, oneByte(row.id)) + metadataBytes(json),
      row.leafHash,
      { content, ascii },
      {
        leafIndex: row.leafIndex,
        createdMs: row.createdAtMs,
        namespace: row.namespace,
        supersedes: row.supersedes,
        supersededBy: row.supersededBy,
        writer: writerFromColumns(row.writerKind, row.writerKeyId),
      },
    );
    if (row.supersedes !== null) {
      this.markSuperseded(row.supersedes, row.id);
    }
    this.lastLeafIndex = row.leafIndex;
  }

  /**
   * Appends one memory (its id and metadata already pushed; `size` their estimated bytes) to the
   * columns and the tail; seals the tail when it is full.
   */
  private push(
    size: number,
    leafHash: Uint8Array,
    text: { content: string; ascii: boolean; folded?: string },
    attrs: EntryAttributes,
  ): void {
    const folded = text.folded ?? text.content.toLowerCase();
    const textBytes =
      stringBytes(text.content, text.ascii) +
      (folded === text.content ? 0 : stringBytes(folded, text.ascii));
    const position = this.count;
    this.bytes += this.columns.room(position + 1);
    this.bytes += this.hashes.put(position, leafHash, 1);
    this.bytes += this.columns.set(position, attrs);
    const total = ENTRY_BYTES + size + textBytes;
    this.sizes[position] = total;
    this.bytes += total;
    this.count++;
    this.changes++;
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
   * Appends a decoded recall segment (its leaf indices above every one held): its ids and
   * metadata kept as the segment's strings, each piece of its contents one block as it is (one
   * lower-casing per piece).
   */
  addSegment(segment: DecodedSegment): void {
    const { count, strings } = segment;
    if (count === 0) {
      return;
    }
    this.sealTail(1);
    const start = this.count;
    this.bytes += this.columns.room(start + count);
    this.bytes += this.hashes.put(start, segment.leafHashes, count);
    this.strings.pushSegment(strings, count);
    const { grown, marks } = this.columns.setSegment(start, segment);
    this.bytes += grown;
    for (const piece of segment.pieces) {
      const block = segmentPieceBlock(start + piece.start, piece, segment.ascii);
      for (let j = 0; j < piece.count; j++) {
        const k = piece.start + j;
        const size =
          ENTRY_BYTES +
          (strings.ascii ? STRING_BYTES + entryIdLength(strings, k) : idBytes(strings, k)) +
          metadataBytesOfLength(entryMetadataLength(strings, k)) +
          blockTextBytes(block, j);
        this.sizes[start + k] = size;
        this.bytes += size;
      }
      this.blocks.push(block);
    }
    this.count += count;
    this.changes += count;
    for (const [supersedes, position] of marks) {
      this.markSuperseded(supersedes, this.idAt(position));
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
      id: this.idAt(position),
      leafIndex: this.leafIndexes[position] as number,
      content: this.content(position),
      metadata: this.metadataAt(position),
      createdAt: new Date(this.createdMs[position] as number),
      leafHash: this.hashes.at(position),
      namespace: this.namespaceAt(position),
      supersedes: this.supersedesAt(position),
      supersededBy: this.supersededByAt(position),
      writtenBy: this.writerAt(position),
    };
  }

  /** The id of the memory at `position`. */
  idAt(position: number): string {
    return this.strings.id(position);
  }

  /** The namespace of the memory at `position`, or null. */
  namespaceAt(position: number): string | null {
    return this.columns.namespaceAt(position);
  }

  /** The id the memory at `position` supersedes, or null. */
  supersedesAt(position: number): string | null {
    return this.columns.supersedesAt(position);
  }

  /** The id of the memory that superseded the one at `position`, or null. */
  supersededByAt(position: number): string | null {
    return this.columns.supersededByAt(position);
  }

  /** Who wrote the memory at `position` (null: a version-1 leaf). */
  writerAt(position: number): MemoryWriter | null {
    return this.columns.writerAt(position);
  }

  /** The leaf hash of the memory at `position` (a copy). */
  leafHashAt(position: number): Uint8Array {
    return this.hashes.at(position);
  }

  /** The metadata of the memory at `position`, parsed (and kept parsed) on first use. */
  metadataAt(position: number): Metadata {
    return this.strings.metadataAt(position);
  }

  /** The metadata of the memory at `position` as JSON text. */
  metadataJson(position: number): string {
    return this.strings.metadataJson(position);
  }

  /**
   * The clear-field columns `filter` reads (compileFilter): every metadata parsed first when the
   * filter has metadata conditions (none handed over otherwise).
   */
  filterColumns(filter: MemoryFilter): FilterColumns {
    const parse = Object.keys(filter.metadata ?? {}).length > 0;
    return this.columns.filterColumns(parse ? this.strings.parsedMetadata() : []);
  }

  /** Every memory's metadata, parsed (the ones not parsed yet are parsed now). */
  parsedMetadata(): Metadata[] {
    return this.strings.parsedMetadata();
  }

  /** Drops the live memory with this id (this process's own deletes); a linear search. */
  removeId(id: string): void {
    const position = this.strings.lastPositionOf(id, (p) => this.isLive(p));
    if (position >= 0) {
      this.removeAt(position);
    }
  }

  /** Drops the memory with this leaf index (deletions read back); a binary search. */
  removeLeaf(leafIndex: number): void {
    const position = this.positionOfLeaf(leafIndex);
    if (position < this.count && this.leafIndexes[position] === leafIndex) {
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
      // A block's text stays until compaction, and so do a segment's ids: keep counting them.
      const block = blockAt(this.blocks, position);
      this.bytes -= size - blockTextBytes(block, position - block.start);
      block.live--;
    }
    this.sizes[position] = 0;
    this.changes++;
    this.indexes.forget(position);
    this.strings.clear(position);
    this.tombstones++;
    if (this.tombstones > 1024 && this.tombstones * 2 > this.count) {
      this.compact();
    }
  }

  /** Records that `id` (held live or not held) was superseded by `supersededBy`; a linear search. */
  markSuperseded(id: string, supersededBy: string): void {
    this.markAt(
      this.strings.lastPositionOf(id, (p) => this.isLive(p)),
      supersededBy,
    );
  }

  /**
   * Records that the memory with this leaf index (held live or not held) was superseded by
   * `supersededBy`; a binary search.
   */
  markSupersededLeaf(leafIndex: number, supersededBy: string): void {
    const position = this.positionOfLeaf(leafIndex);
    if (
      position < this.count &&
      this.leafIndexes[position] === leafIndex &&
      this.isLive(position)
    ) {
      this.markAt(position, supersededBy);
    }
  }

  /** Marks the memory at `position` (-1: none) superseded, unless it is already. */
  private markAt(position: number, supersededBy: string): void {
    if (position >= 0 && this.columns.mark(position, supersededBy)) {
      this.changes++;
    }
  }

  /** The first position whose leaf index is ≥ `leafIndex` (binary search). */
  positionOfLeaf(leafIndex: number): number {
    let low = 0;
    let high = this.count;
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
    return this.count - this.tombstones;
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
      return this.count - from;
    }
    let live = 0;
    for (let position = from; position < this.count; position++) {
      if ((this.sizes[position] as number) > 0) {
        live++;
      }
    }
    return live;
  }

  /** Rebuilds the log without its tombstones. */
  private compact(): void {
    const old = {
      count: this.count,
      strings: this.strings,
      sizes: this.sizes,
      hashes: this.hashes,
    };
    const kept: { content: string; folded: string; attrs: EntryAttributes }[] = [];
    for (let position = 0; position < old.count; position++) {
      if (this.isLive(position)) {
        kept.push({
          content: this.content(position),
          folded: this.folded(position),
          attrs: this.columns.attributesAt(position),
        });
      }
    }
    this.count = 0;
    this.strings = new EntryStringColumns();
    this.columns = new ClearColumns();
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
    const newPositions = new Int32Array(old.count).fill(-1);
    let next = 0;
    for (let position = 0; position < old.count; position++) {
      if (old.sizes[position] === 0) {
        continue;
      }
      newPositions[position] = next;
      const { content, folded, attrs } = kept[next++] as (typeof kept)[number];
      const id = old.strings.id(position);
      this.strings.push(id, old.strings.heldMetadata(position));
      this.push(
        stringBytes(id, oneByte(id)) + old.strings.metadataBytes(position),
        old.hashes.view(position),
        { content, folded, ascii: oneByte(content) && oneByte(folded) },
        attrs,
      );
    }
    this.sealTail(TAIL_ENTRIES);
    if (this.vectors !== null) {
      this.vectors = this.vectors.remap((position) => newPositions[position] as number);
      this.bytes += this.vectors.bytes;
    }
  }
}

/** Estimated bytes of entry `k`'s id as a string of its own (sizes.ts `stringBytes`). */
function idBytes(strings: EntryStrings, k: number): number {
  const id = entryId(strings, k);
  return stringBytes(id, oneByte(id));
}
