/**
 * Sealing recall segments (docs/data-model.md "Recall segments"): many memories' bodies and clear
 * fields, encoded by `@verifiable-memory/memory` into one plaintext, sealed under the user's data key as one
 * AES-256-GCM message. Sealed segment = `iv` (12 fresh random bytes) and `ciphertext` =
 * version(1) ‖ AES-256-GCM ciphertext ‖ tag(16), with AAD = "svc/envelope/segment" ‖ 0x00 ‖
 * version ‖ u32be(len) ‖ userId ‖ u32be(len) ‖ "<firstLeaf>-<endLeaf>" (decimal). A segment moved
 * to another user or another leaf range does not open. Same IV bound as the bodies (body.ts).
 * @module
 */
import { checkBytes, checkField, encodeAad, SEGMENT_AAD, SEGMENT_VERSION } from "./_format.js";
import { gcmOpen, gcmSeal, IV_BYTES, KEY_BYTES, TAG_BYTES } from "./_gcm.js";
import { pooledRandom, type RandomSource } from "./_random.js";
import type { SealedBody } from "./body.js";
import { DecryptionError } from "./errors.js";

/** What a segment is bound to: its owner and the leaf range [firstLeaf, endLeaf) it covers. */
export interface SegmentContext {
  userId: string;
  firstLeaf: number;
  endLeaf: number;
}

const VERSION_PREFIX = Uint8Array.of(SEGMENT_VERSION);

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
  checkBytes(dataKey, KEY_BYTES, "dataKey");
  if (!(plaintext instanceof Uint8Array)) {
    throw new TypeError("plaintext must be a Uint8Array");
  }
  const aad = segmentAad(context);
  const iv = checkBytes(random(IV_BYTES), IV_BYTES, "random(12) output");
  return { ciphertext: gcmSeal(dataKey, iv, plaintext, aad, VERSION_PREFIX), iv };
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
  checkBytes(dataKey, KEY_BYTES, "dataKey");
  const { ciphertext, iv } = sealed;
  if (!(ciphertext instanceof Uint8Array) || !(iv instanceof Uint8Array)) {
    throw new TypeError("sealed.ciphertext and sealed.iv must be Uint8Arrays");
  }
  if (ciphertext.length < 1 + TAG_BYTES || iv.length !== IV_BYTES) {
    throw new DecryptionError("malformed", "sealed segment is truncated or its IV is not 12 bytes");
  }
  if (ciphertext[0] !== SEGMENT_VERSION) {
    throw new DecryptionError("unsupported_version", `segment version ${ciphertext[0]}`);
  }
  return gcmOpen(dataKey, iv, ciphertext, segmentAad(context), 1);
}

function segmentAad(context: SegmentContext): Uint8Array {
  const { firstLeaf, endLeaf } = context;
  if (
    !Number.isSafeInteger(firstLeaf) ||
    !Number.isSafeInteger(endLeaf) ||
    firstLeaf < 0 ||
    endLeaf <= firstLeaf
  ) {
    throw new TypeError(
      `leaf range must be 0 <= firstLeaf < endLeaf, got [${firstLeaf}, ${endLeaf})`,
    );
  }
  return encodeAad(
    SEGMENT_AAD,
    checkField(context.userId, "context.userId"),
    `${firstLeaf}-${endLeaf}`,
  );
}
