/**
 * Standard base64 with padding (RFC 4648 §4), the encoding of signed-note signatures, verifier keys
 * and checkpoint roots (C2SP signed-note "Conventions used in this document"). Decoding is strict:
 * only the canonical spelling of a byte string is accepted (padding required, unused bits zero), so
 * that one note has one text.
 * @module
 */

const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const VALUE = new Map([...ALPHABET].map((c, i) => [c, i]));

/**
 * Encodes bytes as standard base64 with `=` padding.
 * @example encodeBase64(Uint8Array.of(1, 2, 3)) // "AQID"
 */
export function encodeBase64(bytes: Uint8Array): string {
  let out = "";
  for (let i = 0; i < bytes.length; i += 3) {
    const b0 = bytes[i] as number;
    const b1 = bytes[i + 1];
    const b2 = bytes[i + 2];
    const n = (b0 << 16) | ((b1 ?? 0) << 8) | (b2 ?? 0);
    out += ALPHABET[(n >> 18) & 63];
    out += ALPHABET[(n >> 12) & 63];
    out += b1 === undefined ? "=" : ALPHABET[(n >> 6) & 63];
    out += b2 === undefined ? "=" : ALPHABET[n & 63];
  }
  return out;
}

/**
 * Decodes canonical standard base64 (length a multiple of 4, `=` padding, unused bits zero).
 * @returns the bytes, or `null` when `text` is not canonical base64.
 * @example decodeBase64("AQID") // Uint8Array [1, 2, 3]
 */
export function decodeBase64(text: string): Uint8Array | null {
  if (text.length % 4 !== 0) {
    return null;
  }
  const padding = text.endsWith("==") ? 2 : text.endsWith("=") ? 1 : 0;
  const out = new Uint8Array((text.length / 4) * 3 - padding);
  let o = 0;
  for (let i = 0; i < text.length; i += 4) {
    let n = 0;
    for (let j = 0; j < 4; j++) {
      const c = text[i + j] as string;
      const last = i + 4 === text.length;
      const v = c === "=" && last && j >= 4 - padding ? 0 : VALUE.get(c);
      if (v === undefined) {
        return null;
      }
      n = (n << 6) | v;
    }
    for (let k = 0; k < 3 && o < out.length; k++) {
      out[o++] = (n >> (16 - 8 * k)) & 255;
    }
  }
  return encodeBase64(out) === text ? out : null;
}
