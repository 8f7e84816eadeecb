/**
 * Lowercase hex encoding of hashes, the wire format of leaf hashes, roots and proof nodes
 * (docs/protocol.md §1, encodings; RFC 4648 §8 alphabet, lowercase only).
 * @module
 */

const BYTE_TO_HEX = Array.from({ length: 256 }, (_, b) => b.toString(16).padStart(2, "0"));
const LOWER_HEX = /^(?:[0-9a-f]{2})*$/;

/**
 * Encodes bytes as lowercase hex, two characters per byte.
 * @throws TypeError when `bytes` is not a Uint8Array.
 * @example toHex(Uint8Array.of(0, 171)) // "00ab"
 */
export function toHex(bytes: Uint8Array): string {
  if (!(bytes instanceof Uint8Array)) {
    throw new TypeError(`bytes must be a Uint8Array, got ${typeof bytes}`);
  }
  let out = "";
  for (const b of bytes) {
    out += BYTE_TO_HEX[b];
  }
  return out;
}

/**
 * Decodes lowercase hex (an even number of characters from 0-9a-f; "" gives 0 bytes).
 * Uppercase is rejected so that every byte string has exactly one accepted spelling.
 * @throws TypeError when `hex` is not a string, has odd length or holds another character.
 * @example fromHex("00ab") // Uint8Array [0, 171]
 */
export function fromHex(hex: string): Uint8Array {
  if (typeof hex !== "string") {
    throw new TypeError(`hex must be a string, got ${typeof hex}`);
  }
  if (!LOWER_HEX.test(hex)) {
    throw new TypeError(
      "hex must be lowercase hexadecimal with an even number of digits (0-9, a-f)",
    );
  }
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) {
    out[i] = Number.parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  }
  return out;
}
