/**
 * What the two kinds of recall segment rows share (recall-segments.ts, recall-vector-segments.ts;
 * docs/data-model.md "Recall segments"): the sealed columns a cold load's binary COPY reads and
 * their decoding, and the check of a leaf range to seal.
 * @module
 */
import { copyField } from "./_copy-binary.js";

/** A segment's columns in a cold load's COPY: range, format, count, seal, time of sealing. */
export interface SegmentCopyFields {
  readonly firstLeaf: number;
  readonly endLeaf: number;
  readonly format: number;
  readonly entries: number;
  /** A view of the received bytes. */
  readonly iv: Buffer;
  /** A view of the received bytes. */
  readonly ciphertext: Buffer;
  readonly sealedAt: Date;
}

/** The select list of a segment COPY, in the order {@link segmentCopyFields} reads it. */
export const SEGMENT_COPY_COLUMNS = `first_leaf::int8, end_leaf::int8, format::int4, entries::int4,
      iv, ciphertext, (extract(epoch from sealed_at) * 1000)::int8`;

/**
 * Decodes one COPY row of {@link SEGMENT_COPY_COLUMNS}; `what` names the row in errors.
 * @throws TypeError when a field is NULL or missing (copyField).
 */
export function segmentCopyFields(
  fields: readonly (Buffer | null)[],
  what: string,
): SegmentCopyFields {
  return {
    firstLeaf: Number(copyField(fields, 0, what).readBigInt64BE(0)),
    endLeaf: Number(copyField(fields, 1, what).readBigInt64BE(0)),
    format: copyField(fields, 2, what).readInt32BE(0),
    entries: copyField(fields, 3, what).readInt32BE(0),
    iv: copyField(fields, 4, what),
    ciphertext: copyField(fields, 5, what),
    sealedAt: new Date(Number(copyField(fields, 6, what).readBigInt64BE(0))),
  };
}

/**
 * Checks a leaf range to seal.
 * @throws RangeError unless 0 ≤ firstLeaf < endLeaf, firstLeaf a safe integer.
 */
export function checkSegmentRange(firstLeaf: number, endLeaf: number): void {
  if (!Number.isSafeInteger(firstLeaf) || firstLeaf < 0 || !(endLeaf > firstLeaf)) {
    throw new RangeError(`need 0 <= firstLeaf < endLeaf, got [${firstLeaf}, ${endLeaf})`);
  }
}
