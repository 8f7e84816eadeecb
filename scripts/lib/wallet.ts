/**
 * A Solana wallet for the scripts: an ed25519 key (node:crypto) that signs Sign-In-With-Solana
 * messages and transactions, loaded from a Solana CLI keypair file or made fresh.
 * @module
 */
import { createPrivateKey, generateKeyPairSync, sign } from "node:crypto";
import { readFileSync } from "node:fs";
import bs58 from "bs58";

/** A wallet: its public key and detached signatures, both base58. */
export interface Wallet {
  readonly publicKey: string;
  /** Signs a UTF-8 message (SIWS); returns the 64-byte signature in base58. */
  sign(message: string): string;
  /** Signs raw bytes (a Solana transaction message); returns the 64-byte signature. */
  signBytes(bytes: Uint8Array): Uint8Array;
}

/**
 * The wallet of a Solana CLI keypair file (a JSON array of 64 bytes: seed ‖ public key), or a
 * fresh random one when `path` is undefined.
 * @throws Error when the file cannot be read or is not such an array.
 */
export function loadWallet(path: string | undefined): Wallet {
  let seed: Buffer;
  let pub: Buffer;
  if (path) {
    const bytes = Buffer.from(JSON.parse(readFileSync(path, "utf8")) as number[]);
    seed = bytes.subarray(0, 32);
    pub = bytes.subarray(32, 64);
  } else {
    const jwk = generateKeyPairSync("ed25519").privateKey.export({ format: "jwk" });
    seed = Buffer.from(jwk.d ?? "", "base64url");
    pub = Buffer.from(jwk.x ?? "", "base64url");
  }
  const key = createPrivateKey({
    key: {
      kty: "OKP",
      crv: "Ed25519",
      d: seed.toString("base64url"),
      x: pub.toString("base64url"),
    },
    format: "jwk",
  });
  return {
    publicKey: bs58.encode(pub),
    sign: (message) => bs58.encode(sign(null, Buffer.from(message, "utf8"), key)),
    signBytes: (bytes) => new Uint8Array(sign(null, bytes, key)),
  };
}
