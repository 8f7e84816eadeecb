/**
 * The ids and metadata of a user's cached log, by position, in runs: a run of memories added one
 * by one holds a string per id and per metadata, a run loaded from a recall segment keeps the
 * segment's {@link EntryStrings} (one string and offsets) and cuts an id or a metadata out of it
 * when asked. A cold load of a million memories thus keeps a few hundred strings instead of two
 * million (docs/performance.md "Cold recall at 1 000 000 memories: one piece per segment").
 * Metadata is parsed on first use (by a match, or for every memory by a metadata filter) and kept
 * parsed; memories without metadata share one frozen `{}`.
 * @module
 */

import { runAt } from "../runs.js";
import {
  type EntryStrings,
  entryId,
  entryMetadataJson,
  entryMetadataLength,
  lastEntryWithId,
} from "../segment-format.js";
import { metadataBytes, metadataBytesOfLength } from "./sizes.js";
import type { Metadata } from "./types.js";

/** A memory's metadata as held: parsed, or still its JSON text (parsed on first use). */
type HeldMetadata = Metadata | string;

/** Metadata `{}` of every memory without metadata: one shared, frozen object. */
const EMPTY_METADATA: Metadata = Object.freeze({});

/** Memories added one by one from `start` on. */
interface OwnRun {
  readonly start: number;
  readonly ids: string[];
  readonly metadata: HeldMetadata[];
}

/** The memories of one segment from `start` on. */
interface SegmentRun {
  readonly start: number;
  readonly strings: EntryStrings;
  /** Metadata parsed so far, by index in the run (null until the first). */
  parsed: (Metadata | undefined)[] | null;
}

type Run = OwnRun | SegmentRun;

/** Ids and metadata by position (0, 1, …). */
export class EntryStringColumns {
  private runs: Run[] = [];
  /** Positions held. */
  length = 0;
  /** Every position's metadata parsed, for positions [0, allParsed.length) (filters read it). */
  private allParsed: Metadata[] = [];

  /** Appends a memory's id and metadata (its stored JSON text, an object's, or parsed). */
  push(id: string, metadata: HeldMetadata): void {
    let run = this.runs[this.runs.length - 1];
    if (run === undefined || "strings" in run) {
      run = { start: this.length, ids: [], metadata: [] };
      this.runs.push(run);
    }
    run.ids.push(id);
    run.metadata.push(metadata === "{}" ? EMPTY_METADATA : metadata);
    this.length++;
  }

  /** Appends the `count` entries of a decoded segment's strings, as they are. */
  pushSegment(strings: EntryStrings, count: number): void {
    this.runs.push({ start: this.length, strings, parsed: null });
    this.length += count;
  }

  /** The id at `position` (a tombstone's may be ""). */
  id(position: number): string {
    const run = this.runOf(position);
    const k = position - run.start;
    return "strings" in run ? entryId(run.strings, k) : (run.ids[k] as string);
  }

  /**
   * The last position whose id is `id` and which `live` accepts, or -1: a scan from the newest,
   * comparing one character before the rest.
   */
  lastPositionOf(id: string, live: (position: number) => boolean): number {
    for (let r = this.runs.length - 1; r >= 0; r--) {
      const run = this.runs[r] as Run;
      if (!("strings" in run)) {
        const k = run.ids.lastIndexOf(id);
        if (k >= 0 && live(run.start + k)) {
          return run.start + k;
        }
        continue;
      }
      let from = this.runEnd(r) - run.start - 1;
      while (from >= 0) {
        const k = lastEntryWithId(run.strings, id, from);
        if (k < 0) {
          break;
        }
        if (live(run.start + k)) {
          return run.start + k;
        }
        from = k - 1;
      }
    }
    return -1;
  }

  /** The metadata at `position`, parsed (and kept parsed) on first use. */
  metadataAt(position: number): Metadata {
    if (position < this.allParsed.length) {
      return this.allParsed[position] as Metadata;
    }
    const run = this.runOf(position);
    const k = position - run.start;
    if ("strings" in run) {
      run.parsed ??= [];
      let parsed = run.parsed[k];
      if (parsed === undefined) {
        parsed = parseJson(entryMetadataJson(run.strings, k));
        run.parsed[k] = parsed;
      }
      return parsed;
    }
    const held = run.metadata[k] as HeldMetadata;
    if (typeof held !== "string") {
      return held;
    }
    const parsed = parseMetadata(held);
    run.metadata[k] = parsed;
    return parsed;
  }

  /** The metadata at `position` as JSON text. */
  metadataJson(position: number): string {
    const run = this.runOf(position);
    const k = position - run.start;
    const held = "strings" in run ? run.parsed?.[k] : run.metadata[k];
    if (typeof held === "string") {
      return held;
    }
    if (held === undefined && "strings" in run) {
      return entryMetadataJson(run.strings, k);
    }
    return held === EMPTY_METADATA ? "{}" : JSON.stringify(held);
  }

  /** Estimated bytes of the metadata at `position`, as sizes.ts `metadataBytes` counts its JSON. */
  metadataBytes(position: number): number {
    const run = this.runOf(position);
    if ("strings" in run && run.parsed?.[position - run.start] === undefined) {
      return metadataBytesOfLength(entryMetadataLength(run.strings, position - run.start));
    }
    return metadataBytes(this.metadataJson(position));
  }

  /**
   * Every position's metadata, parsed (the ones not parsed yet are parsed now, run by run; kept
   * here, not in their runs as well).
   */
  parsedMetadata(): Metadata[] {
    const { allParsed } = this;
    for (let r = 0; r < this.runs.length && allParsed.length < this.length; r++) {
      const run = this.runs[r] as Run;
      const end = this.runEnd(r);
      for (let position = Math.max(run.start, allParsed.length); position < end; position++) {
        const k = position - run.start;
        const held = "strings" in run ? run.parsed?.[k] : run.metadata[k];
        allParsed.push(
          held === undefined
            ? parseJson(entryMetadataJson((run as SegmentRun).strings, k))
            : typeof held === "string"
              ? parseJson(held)
              : held,
        );
      }
    }
    return allParsed;
  }

  /** Drops the metadata at `position` (a deleted memory): it becomes the shared `{}`. */
  clear(position: number): void {
    const run = this.runOf(position);
    const k = position - run.start;
    if ("strings" in run) {
      run.parsed ??= [];
      run.parsed[k] = EMPTY_METADATA;
    } else {
      run.ids[k] = "";
      run.metadata[k] = EMPTY_METADATA;
    }
    if (position < this.allParsed.length) {
      this.allParsed[position] = EMPTY_METADATA;
    }
  }

  /** The metadata at `position` as held, to append to another column: parsed, or its JSON. */
  heldMetadata(position: number): Metadata | string {
    const run = this.runOf(position);
    const k = position - run.start;
    const held = "strings" in run ? run.parsed?.[k] : run.metadata[k];
    return held ?? this.metadataJson(position);
  }

  /** The position after the last of run `r`. */
  private runEnd(r: number): number {
    return (this.runs[r + 1] as Run | undefined)?.start ?? this.length;
  }

  /** The run holding `position` (below {@link length}). */
  private runOf(position: number): Run {
    return runAt(this.runs, position);
  }
}

/** Stored metadata JSON parsed, `{}` as the shared frozen object. */
function parseJson(json: string): Metadata {
  return json === "{}" ? EMPTY_METADATA : parseMetadata(json);
}

/**
 * Parses stored metadata JSON.
 * @throws TypeError when it is not a JSON object; SyntaxError when it is not JSON.
 */
function parseMetadata(json: string): Metadata {
  const value: unknown = JSON.parse(json);
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new TypeError("stored metadata is not a JSON object");
  }
  return value as Metadata;
}
