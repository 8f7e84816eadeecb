/**
 * Solana public keys as the commitment account code takes them: a base58 string (the wire form
 * everywhere in the service) or the 32 raw bytes.
 * @module
 */
import bs58 from "bs58";

/** Bytes of an ed25519 public key, hence of every Solana address. */
export const PUBLIC_KEY_BYTES = 32;

/** A Solana address: base58 text, or its 32 bytes. */
export type PublicKeyInput = string | Uint8Array;

/**
 * The 32 bytes of `key`.
 * @param key base58 text of 32 bytes, or 32 bytes (copied).
 * @param what the argument's name, for the error message (e.g. `"owner"`).
 * @throws TypeError naming `what` when `key` is not base58 or not 32 bytes long.
 */
export function publicKeyBytes(key: PublicKeyInput, what: string): Uint8Array {
  let bytes: Uint8Array;
  if (typeof key === "string") {
    try {
      bytes = bs58.decode(key);
    } catch {
      throw new TypeError(`${what} must be a base58 public key, got ${JSON.stringify(key)}`);
    }
  } else if (key instanceof Uint8Array) {
    bytes = Uint8Array.from(key);
  } else {
    throw new TypeError(`${what} must be a base58 string or 32 bytes`);
  }
  if (bytes.length !== PUBLIC_KEY_BYTES) {
    throw new TypeError(
      `${what} must be ${PUBLIC_KEY_BYTES} bytes, got ${bytes.length}` +
        (typeof key === "string" ? ` (${JSON.stringify(key)})` : ""),
    );
  }
  return bytes;
}

/** The base58 text of 32 key bytes (Bitcoin alphabet, as every Solana address). */
export function publicKeyText(bytes: Uint8Array): string {
  return bs58.encode(bytes);
}
