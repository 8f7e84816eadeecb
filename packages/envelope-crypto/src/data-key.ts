/**
 * Per-user data keys (DEKs) and their wrapping under the master key (the key-encryption key,
 * KEK): docs/protocol.md §4.2 "Keys".
 *
 * Wrapped key, version 2 (69 bytes, written) = 0x02 ‖ master key id(8) ‖ iv(12) ‖ AES-256-GCM
 * ciphertext(32) ‖ tag(16), with AAD = "svc/envelope/data-key" ‖ 0x00 ‖ 0x02 ‖ u32be(len) ‖
 * userId ‖ u32be(16) ‖ the key id as 16 lowercase hex characters (see _format.ts). The key id
 * (`masterKeyId`) tells a service holding several master keys which one opens the wrap, so the
 * master key can be rotated by re-wrapping data keys alone (a self-describing
 * envelope that binds user id, key id and version).
 *
 * Wrapped key, version 1 (61 bytes, still read) = 0x01 ‖ iv(12) ‖ ciphertext(32) ‖ tag(16), with
 * AAD = "svc/envelope/data-key" ‖ 0x00 ‖ 0x01 ‖ u32be(len) ‖ userId: written before key ids
 * existed; it names no master key.
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
  DATA_KEY_AAD_V1,
  DATA_KEY_AAD_V2,
  encodeAad,
  WRAPPED_KEY_VERSION,
} from "./_format.js";
import { gcmOpen, gcmSeal, IV_BYTES, KEY_BYTES, TAG_BYTES } from "./_gcm.js";
import { pooledRandom, type RandomSource, secureRandom } from "./_random.js";
import { DecryptionError } from "./errors.js";
import { MASTER_KEY_ID_BYTES, masterKeyId } from "./master-key.js";

const V1_BYTES = 1 + IV_BYTES + KEY_BYTES + TAG_BYTES;
/** Offset of the IV in a version-2 wrapped key (after the version and the key id). */
const V2_IV = 1 + MASTER_KEY_ID_BYTES;
const V2_BYTES = V2_IV + IV_BYTES + KEY_BYTES + TAG_BYTES;

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
 * Wraps a data key under the master key with a fresh random IV, bound to `userId` and naming
 * the master key's id (format version 2).
 * @param masterKey the 32-byte KEK (from `parseMasterKey`).
 * @param dataKey the 32-byte DEK.
 * @param userId the owner; the same string must be given to `unwrapDataKey`.
 * @param random injectable IV source for tests; its output must be 12 bytes.
 * @returns 69 bytes: 0x02 ‖ key id ‖ iv ‖ ciphertext ‖ tag.
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
  const keyId = masterKeyId(masterKey);
  const prefix = new Uint8Array(V2_IV + IV_BYTES);
  prefix[0] = WRAPPED_KEY_VERSION;
  prefix.set(Buffer.from(keyId, "hex"), 1);
  prefix.set(iv, V2_IV);
  return gcmSeal(masterKey, iv, dataKey, encodeAad(DATA_KEY_AAD_V2, userId, keyId), prefix);
}

/**
 * The id of the master key a wrapped data key names: 16 lowercase hex characters for version 2,
 * null for version 1 (wrapped before key ids existed; it opens under whichever master key
 * wrapped it). Reads the header only; nothing is decrypted.
 * @throws DecryptionError: `malformed` (empty, or not 61 bytes for version 1 / 69 for version
 *   2), `unsupported_version` (first byte is neither 1 nor 2).
 * @throws TypeError when `wrapped` is not a Uint8Array.
 * @example wrappedKeyId(user.wrappedDataKey) // "3f1c0a9b5d2e7c41"
 */
export function wrappedKeyId(wrapped: Uint8Array): string | null {
  if (!(wrapped instanceof Uint8Array)) {
    throw new TypeError("wrapped must be a Uint8Array");
  }
  if (wrapped.length === 0) {
    throw new DecryptionError("malformed", "wrapped data key is empty");
  }
  const version = wrapped[0];
  if (version !== 1 && version !== WRAPPED_KEY_VERSION) {
    throw new DecryptionError("unsupported_version", `unsupported wrapped key version ${version}`);
  }
  const expected = version === 1 ? V1_BYTES : V2_BYTES;
  if (wrapped.length !== expected) {
    throw new DecryptionError(
      "malformed",
      `a version-${version} wrapped data key must be ${expected} bytes`,
    );
  }
  return version === 1 ? null : Buffer.from(wrapped.subarray(1, V2_IV)).toString("hex");
}

/**
 * Unwraps a data key wrapped by `wrapDataKey` (version 2, or version 1 from before key ids) for
 * the same `userId` under the same master key.
 * @returns the 32-byte data key.
 * @throws DecryptionError: `malformed` (empty, or not 61 / 69 bytes for its version),
 *   `unsupported_version` (first byte is neither 1 nor 2), `authentication_failed` (another
 *   master key, another user, any changed bit, the key id included).
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
  const keyId = wrappedKeyId(wrapped);
  if (keyId === null) {
    const aad = encodeAad(DATA_KEY_AAD_V1, userId);
    return gcmOpen(masterKey, wrapped.subarray(1, 1 + IV_BYTES), wrapped, aad, 1 + IV_BYTES);
  }
  const aad = encodeAad(DATA_KEY_AAD_V2, userId, keyId);
  return gcmOpen(
    masterKey,
    wrapped.subarray(V2_IV, V2_IV + IV_BYTES),
    wrapped,
    aad,
    V2_IV + IV_BYTES,
  );
}
