/**
 * Wallet public keys: base58 of exactly 32 bytes (ed25519), docs/protocol.md §2.
 * @module
 */
import bs58 from "bs58";
import { AuthError } from "./errors.js";

/**
 * Decodes a base58 wallet public key.
 * @returns the 32 key bytes.
 * @throws AuthError("invalid_public_key") when it is not base58 or not 32 bytes.
 */
export function decodePublicKey(publicKey: string): Uint8Array {
  let bytes: Uint8Array;
  try {
    bytes = bs58.decode(publicKey);
  } catch {
    throw new AuthError("invalid_public_key", "publicKey must be base58");
  }
  if (bytes.length !== 32) {
    throw new AuthError("invalid_public_key", "publicKey must decode to 32 bytes");
  }
  return bytes;
}
