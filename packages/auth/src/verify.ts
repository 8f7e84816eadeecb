/**
 * Verifying a signed sign-in message: the five checks of docs/protocol.md §2.3 "Verification", in
 * that order, then the user upsert (a wrapped data key is created on first sight).
 * @module
 */
import { createPublicKey, verify as verifySignature } from "node:crypto";
import type { Clock } from "@verifiable-memory/clock";
import {
  consumeNonce,
  type Database,
  type NoncePurpose,
  upsertUserByPubkey,
} from "@verifiable-memory/db-schema";
import { generateDataKey, wrapDataKey } from "@verifiable-memory/envelope-crypto";
import { parseSignInMessage } from "@verifiable-memory/siws-message";
import bs58 from "bs58";
import { AuthError } from "./errors.js";
import { decodePublicKey } from "./public-key.js";

/** What a successful verification proves: this wallet controls this user. */
export interface VerifiedSignIn {
  readonly userId: string;
  readonly publicKey: string;
  /** True when this sign-in created the user. */
  readonly created: boolean;
  /** The consumed challenge's redirect URI (extension connect flow), or null. */
  readonly redirectUri: string | null;
}

/**
 * Runs the five checks of docs/protocol.md §3 in order:
 * 1. the message parses (strict SIWS grammar) and its address equals `publicKey`
 *    → else `malformed_message`, before any state is touched;
 * 2. the challenge row for (nonce, publicKey) is deleted atomically → else `nonce_not_found`
 *    (unknown, consumed, or issued to another key; of concurrent attempts exactly one wins);
 * 3. the stored expiry has not passed → else `challenge_expired`;
 * 4. the message equals the issued text byte for byte → else `message_mismatch`;
 * 5. the ed25519 signature over the message verifies under `publicKey` → else
 *    `invalid_signature` (`invalid_request` when `signature` is not base58).
 * Only then the user is upserted (fresh data key wrapped under `masterKey`, the current master
 * key, on first sight; the wrap names its key id).
 * @throws AuthError with the failing check's code.
 */
export async function verifySignIn(input: {
  db: Database;
  clock: Clock;
  masterKey: Uint8Array;
  publicKey: string;
  message: string;
  signature: string;
  purpose?: NoncePurpose;
}): Promise<VerifiedSignIn> {
  const { db, publicKey, message } = input;
  const keyBytes = decodePublicKey(publicKey);
  const signatureBytes = decodeSignature(input.signature);

  let nonce: string;
  try {
    const fields = parseSignInMessage(message);
    if (fields.address !== publicKey) {
      throw new AuthError("malformed_message", "the message's address is not publicKey");
    }
    nonce = fields.nonce;
  } catch (error) {
    if (error instanceof AuthError) {
      throw error;
    }
    throw new AuthError(
      "malformed_message",
      `malformed sign-in message: ${(error as Error).message}`,
    );
  }

  const challenge = await consumeNonce(db, nonce, publicKey, input.purpose);
  if (!challenge) {
    throw new AuthError("nonce_not_found", "no open challenge for this nonce and public key");
  }
  if (input.clock.now().getTime() > challenge.expiresAt.getTime()) {
    throw new AuthError("challenge_expired", "the challenge has expired; request a new one");
  }
  if (challenge.message !== message) {
    throw new AuthError("message_mismatch", "the message differs from the issued challenge");
  }
  if (!signatureBytes || !verifyEd25519(keyBytes, message, signatureBytes)) {
    throw new AuthError("invalid_signature", "the signature does not verify under publicKey");
  }

  const { user, created } = await upsertUserByPubkey(db, {
    ownerPubkey: publicKey,
    makeWrappedKey: (userId) => wrapDataKey(input.masterKey, generateDataKey(), userId),
  });
  return { userId: user.id, publicKey, created, redirectUri: challenge.redirectUri ?? null };
}

/** base58 → bytes; null when not 64 bytes (checked at step 5); AuthError when not base58. */
function decodeSignature(signature: string): Uint8Array | null {
  let bytes: Uint8Array;
  try {
    bytes = bs58.decode(signature);
  } catch {
    throw new AuthError("invalid_request", "signature must be base58");
  }
  return bytes.length === 64 ? bytes : null;
}

/** ed25519 (RFC 8032) verification on node:crypto; the raw key is imported through JWK. */
function verifyEd25519(publicKey: Uint8Array, message: string, signature: Uint8Array): boolean {
  const key = createPublicKey({
    key: { kty: "OKP", crv: "Ed25519", x: Buffer.from(publicKey).toString("base64url") },
    format: "jwk",
  });
  return verifySignature(null, Buffer.from(message, "utf8"), key, signature);
}
