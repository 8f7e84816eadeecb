/**
 * Parsing of MASTER_ENCRYPTION_KEY, the key-encryption key, and its key id (docs/protocol.md §4.2
 * "Keys", docs/protocol.md §10: "32 bytes, base64 or hex").
 * @module
 */
import { createHash } from "node:crypto";
import { checkBytes } from "./_format.js";
import { KEY_BYTES } from "./_gcm.js";

const HEX = /^[0-9a-fA-F]{64}$/;
/** 32 bytes are 43 base64 characters plus one "=" of padding (RFC 4648 §4 and §5). */
const BASE64 = /^[A-Za-z0-9+/]{43}=?$/;
const BASE64URL = /^[A-Za-z0-9_-]{43}=?$/;
const MESSAGE = "MASTER_ENCRYPTION_KEY must be 32 bytes, base64 or hex";

/**
 * Parses the master key: 64 hex characters (either case), or standard (RFC 4648 §4) or
 * URL-safe (§5) base64, padded or not, that decodes to exactly 32 bytes. Surrounding
 * whitespace (a trailing newline in an env file) is ignored. Base64 must be canonical: the two
 * unused bits of the last character are zero, so each key has one spelling per alphabet.
 * @returns the 32-byte key (a fresh copy).
 * @throws TypeError("MASTER_ENCRYPTION_KEY must be 32 bytes, base64 or hex") for anything else.
 * @example parseMasterKey(randomBytes(32).toString("base64")) // Uint8Array(32)
 */
export function parseMasterKey(text: string): Uint8Array {
  if (typeof text !== "string") {
    throw new TypeError(MESSAGE);
  }
  const trimmed = text.trim();
  if (HEX.test(trimmed)) {
    return new Uint8Array(Buffer.from(trimmed, "hex"));
  }
  const url = BASE64URL.test(trimmed);
  if (url || BASE64.test(trimmed)) {
    const bytes = Buffer.from(trimmed, url ? "base64url" : "base64");
    const canonical = bytes.toString(url ? "base64url" : "base64").slice(0, 43);
    if (bytes.length === KEY_BYTES && canonical === trimmed.slice(0, 43)) {
      return new Uint8Array(bytes);
    }
  }
  throw new TypeError(MESSAGE);
}

/** Length of a master key id in bytes (16 hex characters). */
export const MASTER_KEY_ID_BYTES = 8;

/**
 * The id of a master key: the first 8 bytes of SHA-256 of its 32 bytes, as 16 lowercase hex
 * characters. Written into every version-2 wrapped data key and shown in logs and errors; it
 * reveals nothing usable about the key (a 64-bit prefix of a hash of 256 random bits). An
 * operator computes it with `printf %s "$KEY" | base64 -d | sha256sum | cut -c1-16` (base64) or
 * `printf %s "$KEY" | xxd -r -p | sha256sum | cut -c1-16` (hex).
 * @param masterKey the 32-byte key (from `parseMasterKey`).
 * @throws TypeError when `masterKey` is not a Uint8Array of 32 bytes.
 * @example masterKeyId(parseMasterKey(process.env.MASTER_ENCRYPTION_KEY)) // "3f1c0a9b5d2e7c41"
 */
export function masterKeyId(masterKey: Uint8Array): string {
  return createHash("sha256")
    .update(checkBytes(masterKey, KEY_BYTES, "masterKey"))
    .digest()
    .subarray(0, MASTER_KEY_ID_BYTES)
    .toString("hex");
}
