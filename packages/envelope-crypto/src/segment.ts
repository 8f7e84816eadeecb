/**
 * Sealing recall segments (docs/data-model.md "Recall segments"): many memories' bodies and clear
 * fields, encoded by `@verifiable-memory/memory` into one plaintext, sealed under the user's data key as one
 * AES-256-GCM message. Sealed segment = `iv` (12 fresh random bytes) and `ciphertext` =
 * version(1) ‖ AES-256-GCM ciphertext ‖ tag(16), with AAD = "svc/envelope/segment" ‖ 0x00 ‖
 * version ‖ u32be(len) ‖ userId ‖ u32be(len) ‖ "<firstLeaf>-<endLeaf>" (decimal). A segment moved
 * to another user or another leaf range does not open. Same IV bound as the bodies (body.ts).
 * @module
 */
import { checkField, encodeAad, SEGMENT_AAD, SEGMENT_VERSION } from "./_format.js";
import { leafRangeField, leafRangeKind, openLeafRange, sealLeafRange } from "./_leaf-range-seal.js";
import { pooledRandom, type RandomSource } from "./_random.js";
import type { SealedBody } from "./body.js";

/** What a segment is bound to: its owner and the leaf range [firstLeaf, endLeaf) it covers. */
export interface SegmentContext {
  userId: string;
  firstLeaf: number;
  endLeaf: number;
}

const SEGMENT = leafRangeKind(SEGMENT_VERSION, "segment");

/**
 * Seals a segment plaintext under the user's data key with a fresh random IV.
 * @returns `{ ciphertext, iv }`; `ciphertext.length === plaintext.length + 17`.
 * @throws TypeError when `dataKey` is not 32 bytes, `plaintext` is not a Uint8Array, the user id
 *   is not a well-formed string, or the leaf range is not 0 ≤ firstLeaf < endLeaf (safe integers).
 */
export function encryptSegment(
  dataKey: Uint8Array,
  plaintext: Uint8Array,
  context: SegmentContext,
  random: RandomSource = pooledRandom,
): SealedBody {
  return sealLeafRange(SEGMENT, dataKey, plaintext, () => segmentAad(context), random);
}

/**
 * Opens a segment sealed by {@link encryptSegment} under the same key, user and leaf range.
 * @returns the plaintext (a view of node's output buffer).
 * @throws DecryptionError `malformed`, `unsupported_version` or `authentication_failed`;
 *   TypeError on malformed arguments (as {@link encryptSegment}).
 */
export function decryptSegment(
  dataKey: Uint8Array,
  sealed: SealedBody,
  context: SegmentContext,
): Uint8Array {
  return openLeafRange(SEGMENT, dataKey, sealed, () => segmentAad(context));
}

function segmentAad(context: SegmentContext): Uint8Array {
  const range = leafRangeField(context.firstLeaf, context.endLeaf);
  return encodeAad(SEGMENT_AAD, checkField(context.userId, "context.userId"), range);
}
