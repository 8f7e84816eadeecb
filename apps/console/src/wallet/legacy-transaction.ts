/**
 * Signing a legacy Solana transaction (the wire format the staking routes hand out, docs/protocol.md
 * §1.1) for the development wallet: the signed bytes are the message after the signature list;
 * the signature goes in the slot of the signer's key among the message's first
 * `numRequiredSignatures` account keys. Loaded only when something is signed (staking).
 * Source: Solana transaction wire format (compact-u16 lengths, message header, account keys).
 * @module
 */
import * as ed from "@noble/ed25519";
import { sha512 } from "@noble/hashes/sha2.js";

ed.hashes.sha512 = sha512;

/** A compact-u16 (1–3 bytes, 7 bits each, little-endian) at `offset`: its value and length. */
function compactU16(bytes: Uint8Array, offset: number): { value: number; length: number } {
  let value = 0;
  for (let i = 0; i < 3; i++) {
    const byte = bytes[offset + i];
    if (byte === undefined) {
      throw new Error("truncated transaction");
    }
    value |= (byte & 0x7f) << (7 * i);
    if ((byte & 0x80) === 0) {
      return { value, length: i + 1 };
    }
  }
  throw new Error("malformed compact-u16 in the transaction");
}

/** Equal bytes. */
function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((byte, i) => byte === b[i]);
}

/**
 * Signs `transaction` (legacy wire format) with `seed` for the signer `publicKey`.
 * @returns a copy with the signature in the signer's slot.
 * @throws Error when the bytes are not a legacy transaction or `publicKey` is not a required
 *   signer of it.
 */
export function signLegacyTransaction(
  transaction: Uint8Array,
  seed: Uint8Array,
  publicKey: Uint8Array,
): Uint8Array {
  const signatures = compactU16(transaction, 0);
  const messageStart = signatures.length + 64 * signatures.value;
  const message = transaction.subarray(messageStart);
  const required = message[0];
  if (required === undefined || (required & 0x80) !== 0) {
    throw new Error("not a legacy transaction");
  }
  const keys = compactU16(message, 3);
  const keysStart = 3 + keys.length;
  for (let i = 0; i < Math.min(required, keys.value, signatures.value); i++) {
    const key = message.subarray(keysStart + 32 * i, keysStart + 32 * (i + 1));
    if (sameBytes(key, publicKey)) {
      const signed = transaction.slice();
      signed.set(ed.sign(message, seed), signatures.length + 64 * i);
      return signed;
    }
  }
  throw new Error("the development wallet is not a signer of this transaction");
}
