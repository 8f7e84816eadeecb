/**
 * Issuing a sign-in challenge (docs/protocol.md §2.2 "The message", §2.1 "The challenge"): the
 * server builds the exact SIWS text, persists it with its nonce and expiry, and returns it.
 * @module
 */

import type { Clock } from "@verifiable-memory/clock";
import { type Database, insertNonceWithin, type NoncePurpose } from "@verifiable-memory/db-schema";
import {
  buildSignInMessage,
  formatTimestamp,
  generateNonce,
  SIGN_IN_TTL_MS,
  signInStatement,
} from "@verifiable-memory/siws-message";
import { AuthError } from "./errors.js";
import { decodePublicKey } from "./public-key.js";

/** The configuration values that are part of the signed bytes. */
export interface SignInConfig {
  /** SIWS_DOMAIN, e.g. `localhost:8787`. */
  readonly domain: string;
  /** SIWS_URI. */
  readonly uri: string;
  /** SIWS_CHAIN_ID, e.g. `devnet`. */
  readonly chainId: string;
  /** SERVICE_NAME, used in the statement line. */
  readonly serviceName: string;
}

/** An issued challenge (docs/protocol.md §2 response of POST /auth/challenge). */
export interface Challenge {
  /** The exact text the wallet must sign. */
  readonly message: string;
  /** 128-bit nonce, base58. */
  readonly nonce: string;
  /** ISO 8601 UTC with milliseconds: issue time + 5 minutes. */
  readonly expiresAt: string;
}

/** AUTH_CHALLENGE_MAX_OUTSTANDING's default: unexpired challenges of both flows together. */
export const DEFAULT_MAX_OUTSTANDING_CHALLENGES = 100_000;

/**
 * Issues and persists a single-use challenge for `publicKey`, unless `maxOutstanding` (default
 * DEFAULT_MAX_OUTSTANDING_CHALLENGES) unexpired challenges of both flows are already stored
 * (docs/protocol.md §2.1 "The challenge").
 * @throws AuthError("invalid_public_key") when publicKey is not 32 bytes of base58;
 *   AuthError("challenges_exhausted") (HTTP 503) at the cap, storing nothing.
 */
export async function issueChallenge(input: {
  db: Database;
  clock: Clock;
  config: SignInConfig;
  publicKey: string;
  purpose?: NoncePurpose;
  redirectUri?: string | null;
  maxOutstanding?: number;
}): Promise<Challenge> {
  decodePublicKey(input.publicKey);
  const issuedAt = input.clock.now();
  const expiresAt = new Date(issuedAt.getTime() + SIGN_IN_TTL_MS);
  const nonce = generateNonce();
  const message = buildSignInMessage({
    domain: input.config.domain,
    address: input.publicKey,
    statement: signInStatement(input.config.serviceName),
    uri: input.config.uri,
    version: "1",
    chainId: input.config.chainId,
    nonce,
    issuedAt: formatTimestamp(issuedAt),
    expirationTime: formatTimestamp(expiresAt),
  });
  const stored = await insertNonceWithin(
    input.db,
    {
      nonce,
      publicKey: input.publicKey,
      message,
      expiresAt,
      ...(input.purpose ? { purpose: input.purpose } : {}),
      redirectUri: input.redirectUri ?? null,
    },
    issuedAt,
    input.maxOutstanding ?? DEFAULT_MAX_OUTSTANDING_CHALLENGES,
  );
  if (!stored) {
    throw new AuthError(
      "challenges_exhausted",
      "too many sign-in challenges outstanding; retry later",
    );
  }
  return { message, nonce, expiresAt: formatTimestamp(expiresAt) };
}
