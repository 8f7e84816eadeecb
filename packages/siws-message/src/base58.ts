/**
 * Base58 with the Bitcoin alphabet, the encoding of Solana public keys, signatures and sign-in
 * nonces (docs/protocol.md §1, encodings). A small dependency-free utility for
 * the short values this package handles: both directions are quadratic in the input length,
 * so callers bound untrusted input first (the message parser does).
 * Leading zero bytes map one-to-one to leading `1` characters, so every byte string has exactly
 * one encoding and decoding then re-encoding gives back the same text.
 * @module
 */

const ALPHABET = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";

/** Character code (ASCII) → digit value, or -1 for characters outside the alphabet. */
const DIGIT = (() => {
  const table = new Int8Array(128).fill(-1);
  for (let i = 0; i < ALPHABET.length; i++) {
    table[ALPHABET.charCodeAt(i)] = i;
  }
  return table;
})();

/** Thrown by {@link base58Decode} when the text holds a character outside the Bitcoin alphabet. */
export class Base58DecodeError extends Error {
  override readonly name = "Base58DecodeError";
  /** 0-based index (UTF-16 code unit) of the first invalid character. */
  readonly index: number;

  constructor(index: number) {
    super(`invalid base58 character at index ${index}`);
    this.index = index;
  }
}

/**
 * Encodes bytes as base58 (Bitcoin alphabet). Each leading zero byte becomes a leading `1`.
 * The empty array encodes to the empty string.
 * @param bytes - the bytes to encode.
 * @returns the base58 text.
 * @throws TypeError when `bytes` is not a Uint8Array.
 * @example
 * base58Encode(new Uint8Array([0, 0, 1])); // "112"
 */
export function base58Encode(bytes: Uint8Array): string {
  if (!(bytes instanceof Uint8Array)) {
    throw new TypeError("bytes must be a Uint8Array");
  }
  let zeros = 0;
  while (zeros < bytes.length && bytes[zeros] === 0) {
    zeros++;
  }
  // Base-58 digits of the big-endian number, least significant first.
  const digits: number[] = [];
  for (let i = zeros; i < bytes.length; i++) {
    let carry = bytes[i] as number;
    for (let j = 0; j < digits.length; j++) {
      carry += (digits[j] as number) << 8;
      digits[j] = carry % 58;
      carry = Math.floor(carry / 58);
    }
    while (carry > 0) {
      digits.push(carry % 58);
      carry = Math.floor(carry / 58);
    }
  }
  let out = "1".repeat(zeros);
  for (let j = digits.length - 1; j >= 0; j--) {
    out += ALPHABET[digits[j] as number];
  }
  return out;
}

/**
 * Decodes base58 text (Bitcoin alphabet) to bytes. Each leading `1` becomes a leading zero byte.
 * The empty string decodes to an empty array. Whitespace is not skipped.
 * @param text - the base58 text.
 * @returns the decoded bytes.
 * @throws Base58DecodeError when `text` holds a character outside the alphabet (e.g. `0`, `O`,
 * `I`, `l`, a space, or any non-ASCII character).
 * @throws TypeError when `text` is not a string.
 * @example
 * base58Decode("112"); // Uint8Array [0, 0, 1]
 */
export function base58Decode(text: string): Uint8Array {
  if (typeof text !== "string") {
    throw new TypeError("text must be a string");
  }
  let zeros = 0;
  while (zeros < text.length && text.charCodeAt(zeros) === 49) {
    zeros++;
  }
  // Bytes of the big-endian number, least significant first; a base-58 digit adds at most one.
  const bytes = new Uint8Array(text.length - zeros);
  let length = 0;
  for (let i = zeros; i < text.length; i++) {
    const code = text.charCodeAt(i);
    const digit = code < 128 ? (DIGIT[code] as number) : -1;
    if (digit < 0) {
      throw new Base58DecodeError(i);
    }
    let carry = digit;
    for (let j = 0; j < length; j++) {
      carry += (bytes[j] as number) * 58;
      bytes[j] = carry & 0xff;
      carry >>= 8;
    }
    while (carry > 0) {
      bytes[length++] = carry & 0xff;
      carry >>= 8;
    }
  }
  const out = new Uint8Array(zeros + length);
  for (let j = 0; j < length; j++) {
    out[out.length - 1 - j] = bytes[j] as number;
  }
  return out;
}

/**
 * The longest base58 text that `byteLength` bytes can encode to (all bytes 0xff, or all zero:
 * both fit), i.e. ceil(byteLength · log 256 / log 58). Lets callers reject oversized input before
 * the quadratic decode.
 * @param byteLength - a non-negative integer.
 * @returns the maximum encoded length in characters.
 * @throws RangeError when `byteLength` is not a non-negative integer.
 * @example
 * maxBase58Length(32); // 44
 */
export function maxBase58Length(byteLength: number): number {
  if (!Number.isInteger(byteLength) || byteLength < 0) {
    throw new RangeError(`byteLength must be an integer >= 0, got ${byteLength}`);
  }
  return Math.ceil((byteLength * Math.log(256)) / Math.log(58));
}
