/**
 * Test wallets: real ed25519 keypairs (@noble/ed25519) that sign sign-in messages.
 * @module
 */
import * as ed from "@noble/ed25519";
import { sha512 } from "@noble/hashes/sha2.js";
import bs58 from "bs58";

ed.hashes.sha512 = sha512;

/** A wallet: a real ed25519 keypair. */
export interface Wallet {
  /** The public key, base58. */
  readonly publicKey: string;
  /** Signs the UTF-8 bytes of `message`; the signature in base58. */
  sign(message: string): string;
}

/** A fresh random wallet. */
export function newWallet(): Wallet {
  const secret = ed.utils.randomSecretKey();
  const publicKey = bs58.encode(ed.getPublicKey(secret));
  return {
    publicKey,
    sign: (message) => bs58.encode(ed.sign(new TextEncoder().encode(message), secret)),
  };
}
