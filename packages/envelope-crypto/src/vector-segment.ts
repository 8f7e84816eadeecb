/**
 * Sealing recall vector segments (docs/protocol.md §4.5 "Recall", docs/data-model.md "Recall
 * segments"): the vectors of one model for the live memories of one leaf range, encoded by
 * `@verifiable-memory/memory` into one plaintext, sealed under the user's data key as one
 * AES-256-GCM message. Sealed vector segment = `iv` (12 fresh random bytes) and `ciphertext` =
 * version(1) ‖ AES-256-GCM ciphertext ‖ tag(16), with AAD = "svc/envelope/vector-segment" ‖ 0x00
 * ‖ version ‖ u32be(len) ‖ userId ‖ u32be(len) ‖ "<firstLeaf>-<endLeaf>" (decimal) ‖ u32be(len) ‖
 * modelId, in the style of docs/protocol.md §4.3 "The sealed body". A vector segment moved to
 * another user, leaf range or model does not open. Same IV bound as the bodies (body.ts).
 * @module
 */
import { checkField, encodeAad, VECTOR_SEGMENT_AAD, VECTOR_SEGMENT_VERSION } from "./_format.js";
import { leafRangeField, leafRangeKind, openLeafRange, sealLeafRange } from "./_leaf-range-seal.js";
import { pooledRandom, type RandomSource } from "./_random.js";
import type { SealedBody } from "./body.js";

/** What a vector segment is bound to: its owner, its leaf range [firstLeaf, endLeaf), its model. */
export interface VectorSegmentContext {
  userId: string;
  firstLeaf: number;
  endLeaf: number;
  /** The model id (provider|origin|model|dimensions). */
  modelId: string;
}

const VECTOR_SEGMENT = leafRangeKind(VECTOR_SEGMENT_VERSION, "vector segment");

/**
 * Seals a vector segment plaintext under the user's data key with a fresh random IV.
 * @returns `{ ciphertext, iv }`; `ciphertext.length === plaintext.length + 17`.
 * @throws TypeError when `dataKey` is not 32 bytes, `plaintext` is not a Uint8Array, the user or
 *   model id is not a well-formed string, or the leaf range is not 0 ≤ firstLeaf < endLeaf (safe
 *   integers).
 */
export function encryptVectorSegment(
  dataKey: Uint8Array,
  plaintext: Uint8Array,
  context: VectorSegmentContext,
  random: RandomSource = pooledRandom,
): SealedBody {
  return sealLeafRange(VECTOR_SEGMENT, dataKey, plaintext, () => vectorSegmentAad(context), random);
}

/**
 * Opens a vector segment sealed by {@link encryptVectorSegment} under the same key, user, leaf
 * range and model.
 * @returns the plaintext (a view of node's output buffer).
 * @throws DecryptionError `malformed`, `unsupported_version` or `authentication_failed`;
 *   TypeError on malformed arguments (as {@link encryptVectorSegment}).
 */
export function decryptVectorSegment(
  dataKey: Uint8Array,
  sealed: SealedBody,
  context: VectorSegmentContext,
): Uint8Array {
  return openLeafRange(VECTOR_SEGMENT, dataKey, sealed, () => vectorSegmentAad(context));
}

function vectorSegmentAad(context: VectorSegmentContext): Uint8Array {
  const range = leafRangeField(context.firstLeaf, context.endLeaf);
  return encodeAad(
    VECTOR_SEGMENT_AAD,
    checkField(context.userId, "context.userId"),
    range,
    checkField(context.modelId, "context.modelId"),
  );
}
