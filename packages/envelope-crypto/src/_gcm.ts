/**
 * AES-256-GCM on node:crypto (NIST SP 800-38D): 32-byte key, 12-byte IV, 16-byte tag,
 * associated data. Internal: callers check key and IV lengths before they get here, so node
 * never throws a raw error on our inputs; the public API is in data-key.ts and body.ts.
 * @module
 */
import { createCipheriv, createDecipheriv } from "node:crypto";
import { DecryptionError } from "./errors.js";

/** AES-256 key length in bytes. */
export const KEY_BYTES = 32;
/** GCM IV length in bytes (the 96-bit IV of SP 800-38D §8.2.2, no GHASH of the IV). */
export const IV_BYTES = 12;
/** GCM tag length in bytes (full 128-bit tag). */
export const TAG_BYTES = 16;

const OPTIONS = { authTagLength: TAG_BYTES } as const;

/**
 * Encrypts `plaintext` and returns `prefix ‖ ciphertext ‖ tag` in one allocation.
 * Preconditions: `key` is 32 bytes, `iv` is 12 bytes.
 */
export function gcmSeal(
  key: Uint8Array,
  iv: Uint8Array,
  plaintext: Uint8Array,
  aad: Uint8Array,
  prefix: Uint8Array,
): Uint8Array {
  const cipher = createCipheriv("aes-256-gcm", key, iv, OPTIONS);
  cipher.setAAD(aad);
  const body = cipher.update(plaintext);
  const last = cipher.final();
  const out = new Uint8Array(prefix.length + body.length + last.length + TAG_BYTES);
  out.set(prefix, 0);
  out.set(body, prefix.length);
  out.set(last, prefix.length + body.length);
  out.set(cipher.getAuthTag(), prefix.length + body.length + last.length);
  return out;
}

/**
 * Decrypts `sealed[start..]` = ciphertext ‖ tag(16) (`start` skips a header without a
 * subarray). Preconditions: `key` is 32 bytes, `iv` is 12 bytes, `start` ≤ `sealed.length`.
 * The plaintext is returned as a view of node's output buffer (no further copy).
 * @throws DecryptionError("malformed") when `sealed` is shorter than a tag;
 *   DecryptionError("authentication_failed") on a wrong key, IV or AAD, or any changed bit.
 */
export function gcmOpen(
  key: Uint8Array,
  iv: Uint8Array,
  sealed: Uint8Array,
  aad: Uint8Array,
  start = 0,
): Uint8Array {
  if (sealed.length - start < TAG_BYTES) {
    throw new DecryptionError("malformed", "ciphertext is shorter than the authentication tag");
  }
  const split = sealed.length - TAG_BYTES;
  const decipher = createDecipheriv("aes-256-gcm", key, iv, OPTIONS);
  decipher.setAAD(aad);
  decipher.setAuthTag(sealed.subarray(split));
  const body = decipher.update(sealed.subarray(start, split));
  let last: Buffer;
  try {
    last = decipher.final();
  } catch {
    throw new DecryptionError("authentication_failed", "authentication failed");
  }
  const out = last.length === 0 ? body : Buffer.concat([body, last]);
  return new Uint8Array(out.buffer, out.byteOffset, out.length);
}
