/**
 * The clear fields of a user's cached log, column-wise by position: leaf indices, times and size
 * estimates in typed arrays, namespaces and writers as codes into small tables (code-table.ts),
 * the superseded mark as a flag, and the few superseding and superseded ids in maps. All grown by
 * doubling (typed-columns.ts), filled from a decoded segment with one copy per column.
 * @module
 */
import type { FilterColumns } from "../memory-filter.js";
import { writerFromColumns } from "../memory-leaf.js";
import {
  type DecodedSegment,
  entryNamespace,
  entrySupersedes,
  entryWriterKeyId,
  entryWriterKind,
} from "../segment-format.js";
import { CodeTable } from "./code-table.js";
import { COLUMN_BYTES } from "./sizes.js";
import { withRoom } from "./typed-columns.js";
import type { MemoryWriter, Metadata } from "./types.js";

/** A memory's clear fields besides its id and metadata. */
export interface EntryAttributes {
  readonly leafIndex: number;
  readonly createdMs: number;
  readonly namespace: string | null;
  readonly supersedes: string | null;
  readonly supersededBy: string | null;
  readonly writer: MemoryWriter | null;
}

/** Clear fields by position (0, 1, …); each array's length is room, not the count held. */
export class ClearColumns {
  /** Leaf indices. */
  leafIndexes = new Float64Array(0);
  /** Creation times, epoch milliseconds. */
  createdMs = new Float64Array(0);
  /** Estimated bytes of each memory; 0 marks a tombstone (written by the log). */
  sizes = new Float64Array(0);
  /** Namespaces, as codes of {@link namespaceTable} (0: none). */
  private namespaceCodes = new Int32Array(0);
  private readonly namespaceTable = new CodeTable<string>();
  /** Writers, as codes of {@link writerTable} (0: none, a version-1 leaf). */
  private writerCodes = new Int32Array(0);
  private readonly writerTable = new CodeTable<MemoryWriter>();
  /** 1 where the memory is marked superseded. */
  private superseded = new Uint8Array(0);
  private readonly supersededBy = new Map<number, string>();
  /** The id each memory supersedes, by position (only those that supersede one). */
  private readonly supersedes = new Map<number, string>();
  /** Entries marked superseded. */
  supersededCount = 0;

  /**
   * Grows the columns to hold at least `count` memories (doubling).
   * @returns the estimated bytes they grew by.
   */
  room(count: number): number {
    if (count <= this.sizes.length) {
      return 0;
    }
    const before = this.sizes.length;
    this.leafIndexes = withRoom(this.leafIndexes, count);
    this.createdMs = withRoom(this.createdMs, count);
    this.namespaceCodes = withRoom(this.namespaceCodes, count);
    this.writerCodes = withRoom(this.writerCodes, count);
    this.superseded = withRoom(this.superseded, count);
    this.sizes = withRoom(this.sizes, count);
    return (this.sizes.length - before) * COLUMN_BYTES;
  }

  /**
   * Sets the fields of the memory at `position` (within {@link room}).
   * @returns the estimated bytes the code tables grew by.
   */
  set(position: number, attrs: EntryAttributes): number {
    this.leafIndexes[position] = attrs.leafIndex;
    this.createdMs[position] = attrs.createdMs;
    const namespace = this.namespaceCode(attrs.namespace);
    const writer = this.writerCode(attrs.writer);
    this.namespaceCodes[position] = namespace.code;
    this.writerCodes[position] = writer.code;
    if (attrs.supersedes !== null) {
      this.supersedes.set(position, attrs.supersedes);
    }
    if (attrs.supersededBy !== null) {
      this.mark(position, attrs.supersededBy);
    }
    return namespace.grown + writer.grown;
  }

  /**
   * Sets the fields of a decoded segment's entries at `start`… (within {@link room}).
   * @returns the estimated bytes the code tables grew by, and what each entry that supersedes
   *   another supersedes (`[id, position]`), for the log to mark.
   */
  setSegment(
    start: number,
    segment: DecodedSegment,
  ): { grown: number; marks: [id: string, position: number][] } {
    const { count, strings } = segment;
    this.leafIndexes.set(segment.leafIndexes, start);
    this.createdMs.set(segment.createdMs, start);
    const marks: [id: string, position: number][] = [];
    let grown = 0;
    let session: number | undefined;
    for (let k = 0; k < count; k++) {
      const namespace = entryNamespace(strings, k);
      if (namespace !== null) {
        const { code, grown: more } = this.namespaceCode(namespace);
        this.namespaceCodes[start + k] = code;
        grown += more;
      }
      const kind = entryWriterKind(strings, k);
      if (kind === "session" && session !== undefined) {
        // Nearly every memory of a wallet-session writer: its code looked up once.
        this.writerCodes[start + k] = session;
      } else if (kind !== null) {
        const { code, grown: more } = this.writerCode(
          writerFromColumns(kind, entryWriterKeyId(strings, k)),
        );
        this.writerCodes[start + k] = code;
        grown += more;
        if (kind === "session") {
          session = code;
        }
      }
      const supersedes = entrySupersedes(strings, k);
      if (supersedes !== null) {
        this.supersedes.set(start + k, supersedes);
        marks.push([supersedes, start + k]);
      }
    }
    return { grown, marks };
  }

  /** Marks the memory at `position` superseded by `supersededBy`, unless it is already. */
  mark(position: number, supersededBy: string): boolean {
    if (this.superseded[position] !== 0) {
      return false;
    }
    this.superseded[position] = 1;
    this.supersededBy.set(position, supersededBy);
    this.supersededCount++;
    return true;
  }

  /** The fields of the memory at `position`. */
  attributesAt(position: number): EntryAttributes {
    return {
      leafIndex: this.leafIndexes[position] as number,
      createdMs: this.createdMs[position] as number,
      namespace: this.namespaceAt(position),
      supersedes: this.supersedesAt(position),
      supersededBy: this.supersededByAt(position),
      writer: this.writerAt(position),
    };
  }

  /** The namespace of the memory at `position`, or null. */
  namespaceAt(position: number): string | null {
    return this.namespaceTable.at(this.namespaceCodes[position] as number);
  }

  /** Who wrote the memory at `position` (null: a version-1 leaf). */
  writerAt(position: number): MemoryWriter | null {
    return this.writerTable.at(this.writerCodes[position] as number);
  }

  /** The id the memory at `position` supersedes, or null. */
  supersedesAt(position: number): string | null {
    return this.supersedes.get(position) ?? null;
  }

  /** The id of the memory that superseded the one at `position`, or null. */
  supersededByAt(position: number): string | null {
    return this.supersededBy.get(position) ?? null;
  }

  /** The columns a compiled filter reads (memory-filter.ts), with `metadata` as given. */
  filterColumns(metadata: readonly Metadata[]): FilterColumns {
    return {
      metadata,
      namespaceCodes: this.namespaceCodes,
      namespaceNames: this.namespaceTable.values,
      createdMs: this.createdMs,
      superseded: this.superseded,
      supersededCount: this.supersededCount,
    };
  }

  /** The code of `namespace` (added when new) and the bytes the table grew by. */
  private namespaceCode(namespace: string | null): { code: number; grown: number } {
    return this.namespaceTable.code(namespace ?? "", namespace);
  }

  /** The code of `writer` (added when new) and the bytes the table grew by. */
  private writerCode(writer: MemoryWriter | null): { code: number; grown: number } {
    const key = writer?.kind === "api_key" ? `api_key:${writer.keyId}` : (writer?.kind ?? "");
    return this.writerTable.code(key, writer);
  }
}
