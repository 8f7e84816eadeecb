/**
 * SHA-256 for Node.js: `node:crypto` (OpenSSL). The package's `"browser"` import condition
 * (package.json `imports["#sha256"]`) swaps in `sha256.browser.ts`, the same synchronous API over
 * `@noble/hashes`, so the proof check bundles for a browser with no Node built-in.
 * Source: FIPS 180-4 (SHA-256).
 * @module
 */
import { createHash } from "node:crypto";

/**
 * SHA-256 of the concatenation of `parts`.
 * @param parts byte arrays, hashed in order (any lengths, possibly none).
 * @returns the 32-byte digest, a fresh Uint8Array.
 */
export function sha256(...parts: readonly Uint8Array[]): Uint8Array {
  const hash = createHash("sha256");
  for (const part of parts) {
    hash.update(part);
  }
  return new Uint8Array(hash.digest());
}
