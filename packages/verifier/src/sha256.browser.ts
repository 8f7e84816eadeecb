/**
 * SHA-256 for browsers: `@noble/hashes` (pure JavaScript, synchronous), selected by the
 * package's `"browser"` import condition in place of `sha256.ts` (`node:crypto`); the same API.
 * Source: FIPS 180-4 (SHA-256).
 * @module
 */
import { sha256 as nobleSha256 } from "@noble/hashes/sha2.js";

/**
 * SHA-256 of the concatenation of `parts`.
 * @param parts byte arrays, hashed in order (any lengths, possibly none).
 * @returns the 32-byte digest, a fresh Uint8Array.
 */
export function sha256(...parts: readonly Uint8Array[]): Uint8Array {
  const hash = nobleSha256.create();
  for (const part of parts) {
    hash.update(part);
  }
  return hash.digest();
}
