/**
 * Session tokens of the core API (spec §2 "Session token (core API)", §5 "Session JWT"):
 * HS256 JWTs `{ sub, pk, iat, exp = iat + 3600 }` under JWT_SECRET. Verification is stateless.
 * @module
 */
import { decode, sign, verify } from "hono/jwt";
import type { Clock } from "./clock.js";
import { AuthError } from "./errors.js";

/** Session lifetime in seconds (spec §8: 1 hour, no refresh). */
export const SESSION_TTL_SECONDS = 3600;

/** The claims of a session token. */
export interface SessionClaims {
  /** userId. */
  readonly sub: string;
  /** ownerPubkey, base58. */
  readonly pk: string;
  /** Issued at, seconds since the epoch. */
  readonly iat: number;
  /** Expiry, seconds since the epoch. */
  readonly exp: number;
}

/**
 * Signs a session token for the user.
 * @returns the JWT and its expiry (ISO 8601).
 */
export async function issueSessionToken(input: {
  secret: string;
  clock: Clock;
  userId: string;
  publicKey: string;
}): Promise<{ token: string; expiresAt: string; claims: SessionClaims }> {
  const iat = Math.floor(input.clock.now().getTime() / 1000);
  const claims: SessionClaims = {
    sub: input.userId,
    pk: input.publicKey,
    iat,
    exp: iat + SESSION_TTL_SECONDS,
  };
  const token = await sign({ ...claims }, input.secret, "HS256");
  return { token, expiresAt: new Date(claims.exp * 1000).toISOString(), claims };
}

/**
 * Verifies a session token: HS256 only (`alg: none` and every other algorithm are refused),
 * the signature under `secret`, and `exp` against the injected clock.
 * @throws AuthError("unauthorized") on any failure.
 */
export async function verifySessionToken(
  token: string,
  secret: string,
  clock: Clock,
): Promise<SessionClaims> {
  let payload: Record<string, unknown>;
  try {
    if (decode(token).header.alg !== "HS256") {
      throw new Error("alg");
    }
    payload = await verify(token, secret, { alg: "HS256", exp: false, nbf: false, iat: false });
  } catch {
    throw new AuthError("unauthorized", "invalid session token");
  }
  const { sub, pk, iat, exp } = payload;
  if (
    typeof sub !== "string" ||
    typeof pk !== "string" ||
    typeof iat !== "number" ||
    typeof exp !== "number"
  ) {
    throw new AuthError("unauthorized", "invalid session token claims");
  }
  if (clock.now().getTime() >= exp * 1000) {
    throw new AuthError("unauthorized", "session token expired");
  }
  return { sub, pk, iat, exp };
}
