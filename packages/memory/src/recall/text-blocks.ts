/**
 * How a user's cached log holds its texts: in blocks of up to {@link BLOCK_ENTRIES} contents
 * joined by {@link SEPARATOR} into one string (and their lower-cased forms into another), so that
 * a search is a few `indexOf` calls over contiguous memory instead of one `includes` per memory.
 * The newest memories wait in a short tail of separate strings until they fill a block.
 * @module
 */

import { runAt } from "../runs.js";
import { PIECE_CHARS, type SegmentPiece } from "../segment-format.js";

/** Memories per text block, at most. */
export const BLOCK_ENTRIES = 4096;
/**
 * A block is sealed once its texts reach this many characters: the size of a segment's pieces,
 * so that no block's string lands in V8's large-object space (segment-format.ts).
 */
export const BLOCK_CHARS = PIECE_CHARS;
/** A refresh seals the tail when it holds at least this many memories. */
export const TAIL_ENTRIES = 512;
/** Joins the texts of a block (any character would do: matches across two texts are skipped). */
export const SEPARATOR = "\u0000";

/**
 * The texts of `count` consecutive memories from position `start`: text k spans
 * [k === 0 ? 0 : ends[k - 1] + 1, ends[k]) of `text`, and the same for `folded`.
 */
export interface TextBlock {
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

/** End offsets of `texts` joined by one separator character. */
export function endsOf(texts: readonly string[]): Int32Array {
  const ends = new Int32Array(texts.length);
  let offset = 0;
  for (let k = 0; k < texts.length; k++) {
    offset += (texts[k] as string).length;
    ends[k] = offset;
    offset++;
  }
  return ends;
}

/**
 * The block holding `position` (`blocks` ascending by start; `position` is below the tail, so
 * some block holds it).
 */
export function blockAt(blocks: readonly TextBlock[], position: number): TextBlock {
  return runAt(blocks, position);
}

/** Text `k` of `block` (its original case). */
export function blockText(block: TextBlock, k: number): string {
  return block.text.slice(k === 0 ? 0 : (block.ends[k - 1] as number) + 1, block.ends[k]);
}

/** Text `k` of `block`, lower-cased. */
export function blockFolded(block: TextBlock, k: number): string {
  const ends = block.foldedEnds;
  return block.folded.slice(k === 0 ? 0 : (ends[k - 1] as number) + 1, ends[k]);
}

/**
 * Indices (ascending) of the block's texts that contain `needle` and pass `accept`: `indexOf`
 * over the joined text; an occurrence that runs across a separator belongs to no text.
 */
export function blockMatches(
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

/**
 * A segment piece as the text block at `start`: lower-cased once (per content when that changed
 * lengths) when some window of it holds a capital.
 */
export function segmentPieceBlock(start: number, piece: SegmentPiece, ascii: boolean): TextBlock {
  const { text, ends, count } = piece;
  let folded = hasCapital(text) ? text.toLowerCase() : text;
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

/** Characters of `text` lower-cased at a time by {@link hasCapital}. */
const CAPITAL_WINDOW = 60_000;

/**
 * Whether lower-casing changes `text`, asked of windows of {@link CAPITAL_WINDOW} characters: for
 * one-byte text without a capital V8's `toLowerCase` returns its input after a word-at-a-time
 * scan, but its scratch string is as long as the input, which past 128 KiB is freshly mapped
 * memory each time (4× slower than the windows over a 1 000 000-memory load; docs/performance.md
 * "Cold recall at 1 000 000 memories: one piece per segment").
 */
function hasCapital(text: string): boolean {
  for (let at = 0; at < text.length; at += CAPITAL_WINDOW) {
    const window = text.slice(at, at + CAPITAL_WINDOW);
    if (window.toLowerCase() !== window) {
      return true;
    }
  }
  return false;
}
