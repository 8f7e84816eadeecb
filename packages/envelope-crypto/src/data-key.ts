/**
 * Per-user data keys (DEKs) and their wrapping under the master key (the key-encryption key,
 * KEK): spec §1 and §2 "User: wrapped data key".
 *
 * Wrapped key (61 bytes) = version(1) ‖ iv(12) ‖ AES-256-GCM ciphertext(32) ‖ tag(16), with
 * AAD = "svc/envelope/data-key" ‖ 0x00 ‖ version ‖ u32be(len) ‖ userId (see _format.ts).
 *
 * Why AES-256-GCM and not AES Key Wrap (RFC 3394 / RFC 5649): the same primitive as the
 * bodies (one construction to review and test), and GCM takes associated data where AES-KW
 * takes none. The AAD binds the wrapped key to its userId, so a wrapped key copied onto
 * another user's row does not open. GCM's random IV makes wrapping non-deterministic, which
 * AES-KW does not need but does no harm here.
 * @module
 */

import {
  checkBytes,
  checkField,
  checkVersion,
  DATA_KEY_AAD,
  ENVELOPE_VERSION,
  encodeAad,
} from "./_format.js";
import { gcmOpen, gcmSeal, IV_BYTES, KEY_BYTES, TAG_BYTES } from "./_gcm.js";
import { pooledRandom, type RandomSource, secureRandom } from "./_random.js";
import { DecryptionError } from "./errors.js";

const WRAPPED_BYTES = 1 + IV_BYTES + KEY_BYTES + TAG_BYTES;

/**
 * A fresh data key: 32 bytes from node:crypto's CSPRNG.
 * @param random injectable byte source for tests; its output must be 32 bytes.
 * @throws TypeError when `random` returns anything but 32 bytes.
 * @example const dek = generateDataKey(); // Uint8Array(32)
 */
export function generateDataKey(random: RandomSource = secureRandom): Uint8Array {
  return checkBytes(random(KEY_BYTES), KEY_BYTES, "random(32) output");
}

/**
 * Wraps a data key under the master key with a fresh random IV, bound to `userId`.
 * @param masterKey the 32-byte KEK (from `parseMasterKey`).
 * @param dataKey the 32-byte DEK.
 * @param userId the owner; the same string must be given to `unwrapDataKey`.
 * @param random injectable IV source for tests; its output must be 12 bytes.
 * @returns 61 bytes: version ‖ iv ‖ ciphertext ‖ tag.
 * @throws TypeError when a key is not 32 bytes, `userId` is not a well-formed string, or
 *   `random` returns anything but 12 bytes.
 * @example const wrapped = wrapDataKey(kek, generateDataKey(), userId); // stored on the user row
 */
export function wrapDataKey(
  masterKey: Uint8Array,
  dataKey: Uint8Array,
  userId: string,
  random: RandomSource = pooledRandom,
): Uint8Array {
  checkBytes(masterKey, KEY_BYTES, "masterKey");
  checkBytes(dataKey, KEY_BYTES, "dataKey");
  checkField(userId, "userId");
  const iv = checkBytes(random(IV_BYTES), IV_BYTES, "random(12) output");
  const prefix = new Uint8Array(1 + IV_BYTES);
  prefix[0] = ENVELOPE_VERSION;
  prefix.set(iv, 1);
  const aad = encodeAad(DATA_KEY_AAD, userId);
  return gcmSeal(masterKey, iv, dataKey, aad, prefix);
}

/**
 * Unwraps a data key wrapped by `wrapDataKey` for the same `userId` under the same master key.
 * @returns the 32-byte data key.
 * @throws DecryptionError: `malformed` (empty, or not 61 bytes), `unsupported_version` (first
 *   byte is not 1), `authentication_failed` (another master key, another user, any changed bit).
 * @throws TypeError when `masterKey` is not 32 bytes, `wrapped` is not a Uint8Array, or
 *   `userId` is not a well-formed string.
 * @example const dek = unwrapDataKey(kek, user.wrappedDataKey, user.id);
 */
export function unwrapDataKey(
  masterKey: Uint8Array,
  wrapped: Uint8Array,
  userId: string,
): Uint8Array {
  checkBytes(masterKey, KEY_BYTES, "masterKey");
  checkField(userId, "userId");
  if (!(wrapped instanceof Uint8Array)) {
    throw new TypeError("wrapped must be a Uint8Array");
  }
  if (wrapped.length === 0) {
    throw new DecryptionError("malformed", "wrapped data key is empty");
  }
  checkVersion(wrapped[0]);
  if (wrapped.length !== WRAPPED_BYTES) {
    throw new DecryptionError("malformed", `wrapped data key must be ${WRAPPED_BYTES} bytes`);
  }
  const aad = encodeAad(DATA_KEY_AAD, userId);
  return gcmOpen(masterKey, wrapped.subarray(1, 1 + IV_BYTES), wrapped, aad, 1 + IV_BYTES);
}
