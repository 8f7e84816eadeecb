/**
 * Sign-in nonces: 128 random bits, base58 (docs/protocol.md §2.1 "The challenge", §2.2 "The
 * message"). Randomness is an injectable, defaulted trailing parameter so tests can use fixed
 * bytes.
 * @module
 */
import { base58Encode } from "./base58.js";

/** Size of a sign-in nonce in bytes (128 bits). */
export const NONCE_BYTES = 16;

/** A source of random bytes: returns a new array of `length` bytes. */
export type RandomBytes = (length: number) => Uint8Array;

/** Web Crypto CSPRNG (`globalThis.crypto.getRandomValues`), present in Node ≥ 19 and browsers. */
const defaultRandom: RandomBytes = (length) =>
  globalThis.crypto.getRandomValues(new Uint8Array(length));

/**
 * Draws a fresh sign-in nonce: {@link NONCE_BYTES} (16) random bytes, base58-encoded (16 to 22
 * characters; 21 or 22 unless the bytes start with zeros).
 * @param random - source of random bytes; defaults to the Web Crypto CSPRNG. It must return a
 * Uint8Array of exactly the requested length.
 * @returns the nonce text.
 * @throws TypeError when `random` is not a function or does not return a Uint8Array;
 * RangeError when it returns the wrong number of bytes.
 * @example
 * generateNonce(); // e.g. "8QhSx5Bj3ZKt1zV9GmW4rE"
 * generateNonce(() => new Uint8Array(16)); // "1111111111111111"
 */
export function generateNonce(random: RandomBytes = defaultRandom): string {
  if (typeof random !== "function") {
    throw new TypeError("random must be a function (length) => Uint8Array");
  }
  const bytes = random(NONCE_BYTES);
  if (!(bytes instanceof Uint8Array)) {
    throw new TypeError("random must return a Uint8Array");
  }
  if (bytes.length !== NONCE_BYTES) {
    throw new RangeError(`random must return ${NONCE_BYTES} bytes, got ${bytes.length}`);
  }
  return base58Encode(bytes);
}
