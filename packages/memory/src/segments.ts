/**
 * Sealing and re-sealing recall segments (docs/data-model.md "Recall segments"): the segment
 * plaintext of segment-format.ts under the user's data key (`@verifiable-memory/envelope-crypto`
 * encryptSegment, AAD binding the user and the leaf range).
 * @module
 */
import type { RecallSegmentRow, SealedSegment } from "@verifiable-memory/db-schema";
import { decryptSegment, encryptSegment } from "@verifiable-memory/envelope-crypto";
import {
  type DecodedSegment,
  decodeSegment,
  encodeSegment,
  entryId,
  SEGMENT_FORMAT,
  type SegmentEntry,
  segmentContent,
  segmentEntry,
} from "./segment-format.js";

/** A user's leaf range [firstLeaf, endLeaf). */
export interface LeafRange {
  readonly firstLeaf: number;
  readonly endLeaf: number;
}

/**
 * Seals `entries` (in leaf order, inside `range`) with their `contents` as the user's segment of
 * `range`.
 * @throws TypeError from encryptSegment on a bad key or range; RangeError when the lists differ.
 */
export function sealSegment(
  dataKey: Uint8Array,
  userId: string,
  range: LeafRange,
  entries: readonly SegmentEntry[],
  contents: readonly string[],
): SealedSegment {
  const sealed = encryptSegment(dataKey, encodeSegment(entries, contents), { userId, ...range });
  return { format: SEGMENT_FORMAT, entries: entries.length, ...sealed };
}

/**
 * Opens and decodes the user's segment row.
 * @throws RangeError for a format this code does not read or a malformed plaintext;
 *   DecryptionError when the segment does not open (another key, user or range).
 */
export function openSegment(dataKey: Uint8Array, segment: RecallSegmentRow): DecodedSegment {
  if (segment.format !== SEGMENT_FORMAT) {
    throw new RangeError(`recall segment format ${segment.format} is not readable here`);
  }
  const plaintext = decryptSegment(
    dataKey,
    { iv: segment.iv, ciphertext: segment.ciphertext },
    { userId: segment.userId, firstLeaf: segment.firstLeaf, endLeaf: segment.endLeaf },
  );
  return decodeSegment(plaintext);
}

/**
 * The segment again without the memory `memoryId` (a deletion's re-seal), under a fresh IV.
 * @throws as {@link openSegment} and {@link sealSegment}.
 */
export function resealWithout(
  dataKey: Uint8Array,
  segment: RecallSegmentRow,
  memoryId: string,
): SealedSegment {
  const decoded = openSegment(dataKey, segment);
  const entries: SegmentEntry[] = [];
  const contents: string[] = [];
  for (let k = 0; k < decoded.count; k++) {
    if (entryId(decoded.strings, k) !== memoryId) {
      entries.push(segmentEntry(decoded, k));
      contents.push(segmentContent(decoded, k));
    }
  }
  return sealSegment(dataKey, segment.userId, segment, entries, contents);
}
