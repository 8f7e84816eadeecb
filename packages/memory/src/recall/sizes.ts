/**
 * Size accounting of the recall cache: the estimated bytes of a user's cached log, which the
 * cache's cap (RECALL_CACHE_MAX_BYTES) bounds. Estimates of V8's layout (string headers, one or
 * two bytes per character, array slots with growth slack), not measurements.
 * @module
 */
import type { TextBlock } from "./text-blocks.js";

/**
 * Bytes of one memory's slot in the typed columns (leaf index, time and size estimate 8 each,
 * namespace and writer codes 4 each, superseded flag 1), counted as the columns grow.
 */
export const COLUMN_BYTES = 3 * 8 + 2 * 4 + 1;
/** Estimated bytes of one memory besides its columns, texts, id, metadata and leaf hash: two 4-byte text offsets. */
export const ENTRY_BYTES = 2 * 4;
/** Estimated fixed bytes of one user's log (its object, empty arrays, map entry). */
export const LOG_BYTES = 4096;
/** Estimated bytes of a V8 string's header and alignment. */
export const STRING_BYTES = 24;
/** Estimated bytes of a parsed non-empty metadata object besides twice its JSON length. */
export const METADATA_BYTES = 64;

/** Estimated bytes of a memory's metadata given as JSON text: 0 for `{}` (one shared object). */
export function metadataBytes(json: string): number {
  return metadataBytesOfLength(json.length);
}

/**
 * Estimated bytes of a memory's metadata given the length of its JSON text (an object's): 0 for
 * 2 (`{}`, one shared object).
 */
export function metadataBytesOfLength(length: number): number {
  return length === 2 ? 0 : METADATA_BYTES + 2 * length;
}

/** Estimated bytes of a string: header plus one byte per character, or two. */
export function stringBytes(value: string, oneByteChars: boolean): number {
  return STRING_BYTES + (oneByteChars ? value.length : 2 * value.length);
}

/** Estimated bytes of text `k` of `block` (its characters, separator, and lower-cased copy). */
export function blockTextBytes(block: TextBlock, k: number): number {
  const start = k === 0 ? 0 : (block.ends[k - 1] as number) + 1;
  let chars = (block.ends[k] as number) - start + 1;
  if (block.folded !== block.text) {
    const foldedStart = k === 0 ? 0 : (block.foldedEnds[k - 1] as number) + 1;
    chars += (block.foldedEnds[k] as number) - foldedStart + 1;
  }
  return block.width * chars;
}

/** Whether every character of `value` is ASCII (V8 then keeps it one byte per character). */
export function oneByte(value: string): boolean {
  for (let i = 0; i < value.length; i++) {
    if (value.charCodeAt(i) > 0x7f) {
      return false;
    }
  }
  return true;
}
