/**
 * Recall vector segments (docs/data-model.md "Recall segments", docs/protocol.md §4.5 "Recall"):
 * the vectors of one model for the live memories of one leaf range, encoded column-wise and
 * sealed under the user's data key (`@verifiable-memory/envelope-crypto` encryptVectorSegment,
 * AAD binding the user, the range and the model id). Plaintext, format 1, little-endian:
 *
 *     u32 count
 *     u32 dimensions
 *     f64[count]               leaf indices, ascending
 *     f32[count × dimensions]  the vectors as stored (float32, not quantised)
 *     count × str              memory ids; str = u32 byte length ‖ UTF-8 bytes
 *
 * @module
 */
import type { RecallVectorSegmentRow, SealedSegment } from "@verifiable-memory/db-schema";
import { decryptVectorSegment, encryptVectorSegment } from "@verifiable-memory/envelope-crypto";
import type { LeafRange } from "./segments.js";

/** The vector segment format this code writes and reads. */
export const VECTOR_SEGMENT_FORMAT = 1;

/** One memory's vector inside a vector segment. */
export interface SegmentVector {
  readonly memoryId: string;
  readonly leafIndex: number;
  readonly values: Float32Array;
}

/**
 * Encodes `vectors` (in leaf order, all of one length) as a format-1 vector segment plaintext.
 * @throws RangeError when the vectors differ in length or one is empty.
 */
export function encodeVectorSegment(vectors: readonly SegmentVector[]): Uint8Array {
  const count = vectors.length;
  const dimensions = vectors[0]?.values.length ?? 0;
  let size = 8 + count * (8 + 4 * dimensions);
  for (const v of vectors) {
    if (v.values.length !== dimensions || dimensions === 0) {
      throw new RangeError("every vector of a segment has the same, non-zero dimensions");
    }
    size += 4 + Buffer.byteLength(v.memoryId);
  }
  const out = Buffer.allocUnsafe(size);
  let at = out.writeUInt32LE(count, 0);
  at = out.writeUInt32LE(dimensions, at);
  for (const v of vectors) {
    at = out.writeDoubleLE(v.leafIndex, at);
  }
  for (const v of vectors) {
    for (let i = 0; i < dimensions; i++) {
      at = out.writeFloatLE(v.values[i] as number, at);
    }
  }
  for (const v of vectors) {
    const length = out.write(v.memoryId, at + 4, "utf8");
    out.writeUInt32LE(length, at);
    at += 4 + length;
  }
  return out;
}

/**
 * Decodes a format-1 vector segment plaintext (each vector a fresh Float32Array).
 * @throws RangeError when the plaintext is truncated or holds trailing bytes.
 */
export function decodeVectorSegment(plaintext: Uint8Array): SegmentVector[] {
  const bytes = Buffer.from(plaintext.buffer, plaintext.byteOffset, plaintext.byteLength);
  const need = (at: number, n: number) => {
    if (at + n > bytes.length) {
      throw new RangeError("recall vector segment plaintext is truncated");
    }
  };
  need(0, 8);
  const count = bytes.readUInt32LE(0);
  const dimensions = bytes.readUInt32LE(4);
  need(8, count * (8 + 4 * dimensions));
  const valuesAt = 8 + 8 * count;
  let at = valuesAt + 4 * dimensions * count;
  const vectors: SegmentVector[] = [];
  for (let k = 0; k < count; k++) {
    need(at, 4);
    const length = bytes.readUInt32LE(at);
    need(at + 4, length);
    const values = new Float32Array(dimensions);
    const from = valuesAt + 4 * dimensions * k;
    for (let i = 0; i < dimensions; i++) {
      values[i] = bytes.readFloatLE(from + 4 * i);
    }
    vectors.push({
      memoryId: bytes.toString("utf8", at + 4, at + 4 + length),
      leafIndex: bytes.readDoubleLE(8 + 8 * k),
      values,
    });
    at += 4 + length;
  }
  if (at !== bytes.length) {
    throw new RangeError("recall vector segment plaintext has trailing bytes");
  }
  return vectors;
}

/**
 * Seals `vectors` (in leaf order, inside `range`) as the user's vector segment of `range` for
 * `modelId`.
 * @throws TypeError from encryptVectorSegment on a bad key, range or model id; RangeError as
 *   {@link encodeVectorSegment}.
 */
export function sealVectorSegment(
  dataKey: Uint8Array,
  userId: string,
  modelId: string,
  range: LeafRange,
  vectors: readonly SegmentVector[],
): SealedSegment {
  const sealed = encryptVectorSegment(dataKey, encodeVectorSegment(vectors), {
    userId,
    modelId,
    firstLeaf: range.firstLeaf,
    endLeaf: range.endLeaf,
  });
  return { format: VECTOR_SEGMENT_FORMAT, entries: vectors.length, ...sealed };
}

/**
 * Opens and decodes the user's vector segment row.
 * @throws RangeError for a format this code does not read or a malformed plaintext;
 *   DecryptionError when it does not open (another key, user, range or model).
 */
export function openVectorSegment(
  dataKey: Uint8Array,
  segment: RecallVectorSegmentRow,
): SegmentVector[] {
  if (segment.format !== VECTOR_SEGMENT_FORMAT) {
    throw new RangeError(`recall vector segment format ${segment.format} is not readable here`);
  }
  const plaintext = decryptVectorSegment(
    dataKey,
    { iv: segment.iv, ciphertext: segment.ciphertext },
    {
      userId: segment.userId,
      modelId: segment.modelId,
      firstLeaf: segment.firstLeaf,
      endLeaf: segment.endLeaf,
    },
  );
  return decodeVectorSegment(plaintext);
}

/**
 * The vector segment again without the vector of `memoryId` (a deletion's re-seal), under a
 * fresh IV.
 * @throws as {@link openVectorSegment} and {@link sealVectorSegment}.
 */
export function resealVectorsWithout(
  dataKey: Uint8Array,
  segment: RecallVectorSegmentRow,
  memoryId: string,
): SealedSegment {
  const vectors = openVectorSegment(dataKey, segment).filter((v) => v.memoryId !== memoryId);
  return sealVectorSegment(dataKey, segment.userId, segment.modelId, segment, vectors);
}
