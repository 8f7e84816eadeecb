/**
 * The in-memory indexes of a user's cached log, each built on first use and extended as memories
 * arrive: the inverted index of relevance ranking (term → postings, and each memory's BM25
 * length), the stop-word index a query of stop words only reads, and equality indexes over one
 * clear field each (scalar value → positions). Positions of deleted memories stay until the log
 * compacts (which drops every index): readers check {@link IndexedLog.isLive}. Plaintext terms
 * live in this process's memory only, like the texts they come from.
 * @module
 */
import type { EqualityCondition, IndexedField } from "../memory-filter.js";
import type { LexicalAnalyser } from "./lexical-analyser.js";
import { STRING_BYTES } from "./sizes.js";
import type { Metadata } from "./types.js";

/** One term's postings: the positions holding it (ascending) and how often each holds it. */
export class Postings {
  positions = new Int32Array(4);
  counts = new Uint16Array(4);
  length = 0;

  /**
   * Counts one more occurrence at `position` (≥ every position added before).
   * @returns the bytes the postings grew by (0 unless they had to reallocate).
   */
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
 * An inverted index of one user's log: term → postings, the terms of each memory as an analyser
 * gives them (lexical-analyser.ts), with each memory's BM25 document length (its terms, counted
 * with repeats) and their sum over the live memories.
 */
export class TermIndex {
  readonly terms = new Map<string, Postings>();
  /** Document length of each indexed position (0 once deleted). */
  lengths: number[] = [];
  /** Document lengths of the live indexed memories, together. */
  liveLength = 0;
  /** Positions below this one are indexed. */
  indexed = 0;
  /** Estimated bytes (map entries, term strings, postings, lengths). */
  bytes = 0;

  /** @param analyse calls `term` for each term of a text and returns its document length. */
  constructor(private readonly analyse: (text: string, term: (term: string) => void) => number) {}

  /** Indexes the `text` of the memory at `position` (above every one indexed before). */
  add(position: number, text: string): void {
    const length = this.analyse(text, (term) => {
      let postings = this.terms.get(term);
      if (!postings) {
        postings = new Postings();
        this.terms.set(term, postings);
        this.bytes += 64 + STRING_BYTES + 2 * term.length + 4 * 6;
      }
      this.bytes += postings.add(position);
    });
    while (this.lengths.length < position) {
      this.lengths.push(0);
    }
    this.lengths.push(length);
    this.liveLength += length;
    this.bytes += 8;
  }

  /** Takes the deleted memory at `position` out of {@link liveLength}. */
  forget(position: number): void {
    if (position < this.lengths.length) {
      this.liveLength -= this.lengths[position] as number;
      this.lengths[position] = 0;
    }
  }
}

/** Positions in ascending order, in a growing typed array. */
export class PositionList {
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

/**
 * An equality index over one clear field of a user's log: scalar value → the positions holding it
 * (ascending). Values are Map keys, so equal under SameValueZero, which agrees with `===` on the
 * JSON scalars a filter can ask for (equalityConditions).
 */
export class ValueIndex {
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

/** Equality indexes kept per user's log, at most (further fields are scanned). */
export const MAX_VALUE_INDEXES = 16;
/** The positions of a value no memory holds. */
const EMPTY_POSITIONS = new PositionList();

/** What the indexes read of a user's log. */
export interface IndexedLog {
  /** Memories held, tombstones included. */
  readonly count: number;
  /** The namespace of the memory at `position`, or null. */
  namespaceAt(position: number): string | null;
  /** Whether the memory at `position` is live (not a tombstone). */
  isLive(position: number): boolean;
  /** The content of the memory at `position`. */
  content(position: number): string;
  /** Every memory's metadata, parsed. */
  parsedMetadata(): readonly Metadata[];
}

/** The indexes of one user's log. */
export class LogIndexes {
  /** The inverted index of relevance ranking; null until first used. */
  private terms: TermIndex | null = null;
  /** The stop words' postings (a query of stop words only); null until first used. */
  private stops: TermIndex | null = null;
  /** Equality indexes by field ("namespace" or "metadata:" + key). */
  private readonly values = new Map<string, ValueIndex>();

  /** Estimated bytes of every index held. */
  bytes = 0;

  /** @param analyser makes the terms of the inverted and stop-word indexes. */
  constructor(private readonly analyser: LexicalAnalyser) {}

  /** The inverted index of the analyser's terms, brought up to date with every memory of `log`. */
  termIndex(log: IndexedLog): TermIndex {
    this.terms ??= new TermIndex((text, term) => this.analyser.terms(text, term));
    return this.extend(this.terms, log);
  }

  /** The index of the analyser's stop-word terms, brought up to date with every memory of `log`. */
  stopIndex(log: IndexedLog): TermIndex {
    this.stops ??= new TermIndex((text, term) => {
      this.analyser.stopTerms(text, term);
      return 0;
    });
    return this.extend(this.stops, log);
  }

  /** Takes the deleted memory at `position` out of the inverted index's live length. */
  forget(position: number): void {
    this.terms?.forget(position);
  }

  private extend(index: TermIndex, log: IndexedLog): TermIndex {
    const before = index.bytes;
    for (let position = index.indexed; position < log.count; position++) {
      if (log.isLive(position)) {
        index.add(position, log.content(position));
      }
    }
    index.indexed = log.count;
    this.bytes += index.bytes - before;
    return index;
  }

  /**
   * The positions (ascending) where `condition`'s field holds its value, from the field's
   * equality index, brought up to date with every memory of `log`; the smallest list when several
   * conditions are given.
   * @returns null when there is no condition, or when a new index would pass
   *   {@link MAX_VALUE_INDEXES} (scan instead).
   */
  positionsWhere(log: IndexedLog, conditions: readonly EqualityCondition[]): PositionList | null {
    let best: PositionList | null = null;
    for (const { field, value } of conditions) {
      const index = this.valueIndex(log, field);
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

  private valueIndex(log: IndexedLog, field: IndexedField): ValueIndex | null {
    const name = field.kind === "namespace" ? "namespace" : `metadata:${field.key}`;
    let index = this.values.get(name);
    if (index === undefined) {
      if (this.values.size >= MAX_VALUE_INDEXES) {
        return null;
      }
      index = new ValueIndex();
      this.values.set(name, index);
    }
    const before = index.bytes;
    if (field.kind === "namespace") {
      for (let position = index.indexed; position < log.count; position++) {
        if (log.isLive(position)) {
          index.add(position, log.namespaceAt(position));
        }
      }
    } else {
      const key = field.key;
      const metadata = log.parsedMetadata();
      for (let position = index.indexed; position < log.count; position++) {
        if (log.isLive(position)) {
          // The very read compileFilter's scalar equality makes.
          index.add(position, (metadata[position] as Record<string, unknown>)[key]);
        }
      }
    }
    index.indexed = log.count;
    this.bytes += index.bytes - before;
    return index;
  }
}
