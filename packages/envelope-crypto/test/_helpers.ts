/**
 * Shared helpers of the envelope-crypto tests: catching the typed error, flipping bits, and
 * version-1 wrapped keys as the package wrote them before key ids.
 * @module
 */
import { createCipheriv, randomBytes } from "node:crypto";
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

/**
 * A version-1 wrapped data key (61 bytes: 0x01 ‖ iv ‖ ciphertext ‖ tag, AAD "svc/envelope/data-key"
 * ‖ 0x00 ‖ 0x01 ‖ u32be(len) ‖ userId), built here with node:crypto from the README table, as
 * wrapDataKey wrote before key ids existed (no longer produced by the package).
 */
export function wrapVersionOne(
  masterKey: Uint8Array,
  dataKey: Uint8Array,
  userId: string,
): Uint8Array {
  const iv = randomBytes(12);
  const id = Buffer.from(userId, "utf8");
  const length = Buffer.alloc(4);
  length.writeUInt32BE(id.length);
  const aad = Buffer.concat([Buffer.from("svc/envelope/data-key\0\x01", "latin1"), length, id]);
  const cipher = createCipheriv("aes-256-gcm", masterKey, iv);
  cipher.setAAD(aad);
  const body = Buffer.concat([cipher.update(dataKey), cipher.final()]);
  return new Uint8Array(Buffer.concat([Buffer.of(1), iv, body, cipher.getAuthTag()]));
}
