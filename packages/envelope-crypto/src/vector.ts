/**
 * Sealing memory vectors (docs/protocol.md §4.5 "Recall"): an embedding of a memory's content is
 * as sensitive as the content (vectors can be inverted towards their text), so it is stored only
 * sealed under the user's data key. Plaintext = the vector's float32 values, little-endian.
 * Sealed vector = `iv` (12 fresh random bytes) and `ciphertext` = version(1) ‖ AES-256-GCM
 * ciphertext ‖ tag(16), with AAD = "svc/envelope/vector" ‖ 0x00 ‖ 0x01 ‖ u32be(len) ‖ userId ‖
 * u32be(len) ‖ memoryId ‖ u32be(len) ‖ modelId, in the style of §4.3 "The sealed body". A vector
 * moved to another user, memory or model does not open. Same IV bound as the bodies (body.ts).
 * @module
 */
import { checkBytes, checkField, encodeAad, VECTOR_AAD, VECTOR_VERSION } from "./_format.js";
import { gcmOpen, gcmSeal, IV_BYTES, KEY_BYTES, TAG_BYTES } from "./_gcm.js";
import { pooledRandom, type RandomSource } from "./_random.js";
import type { SealedBody } from "./body.js";
import { DecryptionError } from "./errors.js";

/** What a vector is bound to: its owner, its memory and the model that computed it. */
export interface VectorContext {
  userId: string;
  memoryId: string;
  /** The model id (provider|origin|model|dimensions). */
  modelId: string;
}

const VERSION_PREFIX = Uint8Array.of(VECTOR_VERSION);

/**
 * Seals a vector under the user's data key with a fresh random IV.
 * @param vector the float32 values (at least one, finite or not: stored as given).
 * @returns `{ ciphertext, iv }`; `ciphertext.length === 4 · vector.length + 17`.
 * @throws TypeError when `dataKey` is not 32 bytes, `vector` is not a non-empty Float32Array or a
 *   context field is not a well-formed string.
 */
export function encryptVector(
  dataKey: Uint8Array,
  vector: Float32Array,
  context: VectorContext,
  random: RandomSource = pooledRandom,
): SealedBody {
  checkBytes(dataKey, KEY_BYTES, "dataKey");
  if (!(vector instanceof Float32Array) || vector.length === 0) {
    throw new TypeError("vector must be a non-empty Float32Array");
  }
  const plaintext = Buffer.allocUnsafe(vector.length * 4);
  for (let i = 0; i < vector.length; i++) {
    plaintext.writeFloatLE(vector[i] as number, i * 4);
  }
  const iv = checkBytes(random(IV_BYTES), IV_BYTES, "random(12) output");
  return { ciphertext: gcmSeal(dataKey, iv, plaintext, vectorAad(context), VERSION_PREFIX), iv };
}

/**
 * Opens a vector sealed by {@link encryptVector} under the same key, user, memory and model.
 * @returns the float32 values (a fresh array).
 * @throws DecryptionError `malformed` (truncated, a length not a multiple of 4, IV not 12 bytes),
 *   `unsupported_version` or `authentication_failed`; TypeError on malformed arguments.
 */
export function decryptVector(
  dataKey: Uint8Array,
  sealed: SealedBody,
  context: VectorContext,
): Float32Array {
  checkBytes(dataKey, KEY_BYTES, "dataKey");
  const { ciphertext, iv } = sealed;
  if (!(ciphertext instanceof Uint8Array) || !(iv instanceof Uint8Array)) {
    throw new TypeError("sealed.ciphertext and sealed.iv must be Uint8Arrays");
  }
  const bytes = ciphertext.length - 1 - TAG_BYTES;
  if (bytes < 4 || bytes % 4 !== 0 || iv.length !== IV_BYTES) {
    throw new DecryptionError("malformed", "sealed vector is truncated or its IV is not 12 bytes");
  }
  if (ciphertext[0] !== VECTOR_VERSION) {
    throw new DecryptionError("unsupported_version", `vector version ${ciphertext[0]}`);
  }
  const plaintext = gcmOpen(dataKey, iv, ciphertext, vectorAad(context), 1);
  const vector = new Float32Array(bytes / 4);
  const view = new DataView(plaintext.buffer, plaintext.byteOffset, plaintext.byteLength);
  for (let i = 0; i < vector.length; i++) {
    vector[i] = view.getFloat32(i * 4, true);
  }
  return vector;
}

function vectorAad(context: VectorContext): Uint8Array {
  return encodeAad(
    VECTOR_AAD,
    checkField(context.userId, "context.userId"),
    checkField(context.memoryId, "context.memoryId"),
    checkField(context.modelId, "context.modelId"),
  );
}
