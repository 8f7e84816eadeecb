/**
 * Sealing memory bodies under the user's data key: docs/protocol.md §4 ("memory bodies are encrypted at
 * rest under a per-user data key") and §4.3 "The sealed body".
 *
 * Sealed body = two columns: `iv` (12 fresh random bytes) and `ciphertext` =
 * version(1) ‖ AES-256-GCM ciphertext ‖ tag(16), with AAD = "svc/envelope/body" ‖ 0x00 ‖
 * version ‖ u32be(len) ‖ userId ‖ u32be(len) ‖ memoryId (see _format.ts). A body moved to
 * another memory row or another user does not open.
 *
 * Random-IV bound (NIST SP 800-38D §8.3): with 96-bit random IVs, at most 2^32 encryptions
 * under one key keep the probability of an IV collision (which would break GCM for that key)
 * at or below 2^-32. Keys are per user; a user would need over four billion memories.
 * @module
 */

import {
  BODY_AAD,
  checkBytes,
  checkField,
  checkVersion,
  ENVELOPE_VERSION,
  encodeAad,
} from "./_format.js";
import { gcmOpen, gcmSeal, IV_BYTES, KEY_BYTES, TAG_BYTES } from "./_gcm.js";
import { pooledRandom, type RandomSource } from "./_random.js";
import { DecryptionError } from "./errors.js";

/** A sealed memory body: the two columns stored for it. */
export interface SealedBody {
  /** version(1) ‖ AES-256-GCM ciphertext (as long as the plaintext) ‖ 16-byte tag. */
  ciphertext: Uint8Array;
  /** The fresh random 12-byte IV. */
  iv: Uint8Array;
}

/** What a body is bound to through the associated data: its owner and its memory id. */
export interface BodyContext {
  userId: string;
  memoryId: string;
}

const VERSION_PREFIX = Uint8Array.of(ENVELOPE_VERSION);

/**
 * Seals a memory body under the user's data key with a fresh random IV; the associated data
 * binds the version, `context.userId` and `context.memoryId`.
 * @param dataKey the user's 32-byte data key (from `unwrapDataKey`).
 * @param plaintext the body bytes (any length, including 0).
 * @param random injectable IV source for tests; its output must be 12 bytes.
 * @returns `{ ciphertext, iv }`; `ciphertext.length === plaintext.length + 17`.
 * @throws TypeError when `dataKey` is not 32 bytes, `plaintext` is not a Uint8Array, a context
 *   field is not a well-formed string, or `random` returns anything but 12 bytes.
 * @example const sealed = encryptBody(dek, utf8(content), { userId, memoryId });
 */
export function encryptBody(
  dataKey: Uint8Array,
  plaintext: Uint8Array,
  context: BodyContext,
  random: RandomSource = pooledRandom,
): SealedBody {
  checkBytes(dataKey, KEY_BYTES, "dataKey");
  if (!(plaintext instanceof Uint8Array)) {
    throw new TypeError("plaintext must be a Uint8Array");
  }
  const aad = bodyAad(context);
  const iv = checkBytes(random(IV_BYTES), IV_BYTES, "random(12) output");
  return { ciphertext: gcmSeal(dataKey, iv, plaintext, aad, VERSION_PREFIX), iv };
}

/**
 * Opens a body sealed by `encryptBody` under the same data key and context.
 * @returns the plaintext (a view of node's output buffer; no extra copy).
 * @throws DecryptionError: `malformed` (empty or truncated ciphertext, IV not 12 bytes),
 *   `unsupported_version` (first byte is not 1), `authentication_failed` (another key, user or
 *   memory id, or any changed bit).
 * @throws TypeError when `dataKey` is not 32 bytes, a column is not a Uint8Array, or a context
 *   field is not a well-formed string.
 * @example const plaintext = decryptBody(dek, { ciphertext: row.ciphertext, iv: row.iv }, { userId, memoryId: row.id });
 */
export function decryptBody(
  dataKey: Uint8Array,
  sealed: SealedBody,
  context: BodyContext,
): Uint8Array {
  checkBytes(dataKey, KEY_BYTES, "dataKey");
  const { ciphertext, iv } = sealed;
  if (!(ciphertext instanceof Uint8Array) || !(iv instanceof Uint8Array)) {
    throw new TypeError("sealed.ciphertext and sealed.iv must be Uint8Arrays");
  }
  if (ciphertext.length === 0) {
    throw new DecryptionError("malformed", "sealed body is empty");
  }
  checkVersion(ciphertext[0]);
  if (ciphertext.length < 1 + TAG_BYTES) {
    throw new DecryptionError("malformed", "sealed body is truncated");
  }
  if (iv.length !== IV_BYTES) {
    throw new DecryptionError("malformed", `iv must be ${IV_BYTES} bytes`);
  }
  return gcmOpen(dataKey, iv, ciphertext, bodyAad(context), 1);
}

function bodyAad(context: BodyContext): Uint8Array {
  return encodeAad(
    BODY_AAD,
    checkField(context.userId, "context.userId"),
    checkField(context.memoryId, "context.memoryId"),
  );
}
