/**
 * Fast transaction signing with node:crypto: web3.js 1.x signs and re-verifies ed25519 in
 * JavaScript (several ms per transaction on a loaded 2-core machine); node:crypto (OpenSSL) signs
 * in tens of microseconds. The signature is the same RFC 8032 Ed25519 signature of the message
 * bytes.
 * Source: RFC 8032 §5.1.6; RFC 8037 (OKP JWK: `d` = 32-byte seed, `x` = public key).
 * @module
 */

import { createPrivateKey, type KeyObject, sign } from "node:crypto";
import type { Keypair, Transaction } from "@solana/web3.js";

/** node:crypto private key of `keypair` (its 32-byte seed and public key as an OKP JWK). */
export function ed25519PrivateKey(keypair: Keypair): KeyObject {
  return createPrivateKey({
    key: {
      kty: "OKP",
      crv: "Ed25519",
      d: Buffer.from(keypair.secretKey.subarray(0, 32)).toString("base64url"),
      x: keypair.publicKey.toBuffer().toString("base64url"),
    },
    format: "jwk",
  });
}

/**
 * Signs `tx` (whose fee payer is `keypair`, the only signer) and returns its wire bytes.
 * Requires `tx.feePayer` and `tx.recentBlockhash` to be set.
 */
export function signAndSerialize(tx: Transaction, keypair: Keypair, key: KeyObject): Buffer {
  const signature = sign(null, tx.serializeMessage(), key);
  tx.addSignature(keypair.publicKey, signature);
  return tx.serialize({ requireAllSignatures: true, verifySignatures: false });
}
