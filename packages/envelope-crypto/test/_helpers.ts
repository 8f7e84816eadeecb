/**
 * Shared helpers of the envelope-crypto tests: catching the typed error and flipping bits.
 * @module
 */
import { DecryptionError } from "../src/index.js";

/** Runs `fn` and returns the DecryptionError it throws; any other outcome fails the test. */
export function catchDecryptionError(fn: () => unknown): DecryptionError {
  try {
    fn();
  } catch (error) {
    if (error instanceof DecryptionError) {
      return error;
    }
    throw error;
  }
  throw new Error("expected a DecryptionError, but nothing was thrown");
}

/** A copy of `bytes` with bit `bit` (0 = least significant bit of byte 0) inverted. */
export function flipBit(bytes: Uint8Array, bit: number): Uint8Array {
  const out = bytes.slice();
  out[bit >> 3] = (out[bit >> 3] ?? 0) ^ (1 << (bit & 7));
  return out;
}

/** UTF-8 bytes of `text`. */
export const utf8 = (text: string): Uint8Array => new TextEncoder().encode(text);

/** Lowercase hex of `bytes`. */
export const toHex = (bytes: Uint8Array): string => Buffer.from(bytes).toString("hex");

/** Bytes of lowercase or uppercase hex `text`. */
export const fromHex = (text: string): Uint8Array => new Uint8Array(Buffer.from(text, "hex"));
