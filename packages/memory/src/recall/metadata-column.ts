/**
 * The metadata column of a user's cached log: each memory's metadata held as its stored JSON
 * text until first used (by a match, or for every memory by a metadata filter), then parsed and
 * kept parsed. Memories without metadata share one frozen `{}`.
 * @module
 */
import { METADATA_BYTES } from "./sizes.js";
import type { Metadata } from "./types.js";

/** A memory's metadata as held: parsed, or still its JSON text (parsed on first use). */
type HeldMetadata = Metadata | string;

/** Metadata `{}` of every memory without metadata: one shared, frozen object. */
const EMPTY_METADATA: Metadata = Object.freeze({});

/** Metadata by position (0, 1, …). */
export class MetadataColumn {
  private values: HeldMetadata[] = [];
  /** Entries of `values` still held as JSON text. */
  private unparsed = 0;

  /** Appends a memory's metadata given as its stored JSON text (an object's). */
  pushJson(json: string): void {
    if (json === "{}") {
      this.values.push(EMPTY_METADATA);
    } else {
      this.values.push(json);
      this.unparsed++;
    }
  }

  /** Appends the metadata held at `position` of `other` (as held: parsed or not). */
  pushFrom(other: MetadataColumn, position: number): void {
    const held = other.values[position] as HeldMetadata;
    if (typeof held === "string") {
      this.unparsed++;
    }
    this.values.push(held);
  }

  /** The metadata at `position`, parsed (and kept parsed) on first use. */
  at(position: number): Metadata {
    const held = this.values[position] as HeldMetadata;
    if (typeof held !== "string") {
      return held;
    }
    const parsed = parseMetadata(held);
    this.values[position] = parsed;
    this.unparsed--;
    return parsed;
  }

  /** The metadata at `position` as JSON text. */
  json(position: number): string {
    const held = this.values[position] as HeldMetadata;
    if (typeof held === "string") {
      return held;
    }
    return held === EMPTY_METADATA ? "{}" : JSON.stringify(held);
  }

  /** Estimated bytes of the metadata at `position`, as sizes.ts `metadataBytes` counts its JSON text. */
  bytesAt(position: number): number {
    const held = this.values[position] as HeldMetadata;
    return held === EMPTY_METADATA
      ? 0
      : METADATA_BYTES + 2 * (typeof held === "string" ? held : JSON.stringify(held)).length;
  }

  /** Every memory's metadata, parsed (the ones still JSON text are parsed now). */
  parsed(): Metadata[] {
    for (let position = 0; position < this.values.length && this.unparsed > 0; position++) {
      if (typeof this.values[position] === "string") {
        this.at(position);
      }
    }
    return this.values as Metadata[];
  }

  /**
   * Every memory's metadata, parsed when `parse` is true; otherwise as held (entries still JSON
   * text are strings: only for readers that do not read metadata).
   */
  held(parse: boolean): Metadata[] {
    return parse && this.unparsed > 0 ? this.parsed() : (this.values as Metadata[]);
  }

  /** Drops the metadata at `position` (a deleted memory): it becomes the shared `{}`. */
  clear(position: number): void {
    if (typeof this.values[position] === "string") {
      this.unparsed--;
    }
    this.values[position] = EMPTY_METADATA;
  }
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
