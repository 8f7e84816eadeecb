/**
 * Session tokens of the core API (docs/protocol.md §2.4 "The session JWT"):
 * HS256 JWTs `{ sub, pk, iat, exp = iat + 3600 }` under JWT_SECRET. Verification is stateless.
 * @module
 */
import type { webcrypto } from "node:crypto";
import type { Clock } from "@verifiable-memory/clock";
import { decode, sign, verify } from "hono/jwt";
import { LRUCache } from "lru-cache";
import { AuthError } from "./errors.js";

/** Session lifetime in seconds (docs/protocol.md §1: 1 hour, no refresh). */
export const SESSION_TTL_SECONDS = 3600;

/**
 * Clock skew allowed for `iat` and `nbf` in seconds: a token issued, or valid from, more than this
 * far in the future is refused (docs/protocol.md §2.4 "The session JWT").
 */
export const SESSION_CLOCK_SKEW_SECONDS = 60;

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

/** Imported HMAC keys by secret (a process holds one or two JWT secrets). */
const hmacKeys = new Map<string, Promise<webcrypto.CryptoKey>>();
const MAX_CACHED_KEYS = 8;

/**
 * The HS256 key of `secret` as a WebCrypto CryptoKey (HMAC SHA-256, sign and verify), imported
 * once per secret and process instead of on every sign or verify (hono/jwt imports a string
 * secret on each call). A key derives from its secret alone, so the cache never goes stale. At
 * most MAX_CACHED_KEYS secrets are kept (the map is cleared beyond); a failed import is not kept.
 */
function hmacKey(secret: string): Promise<webcrypto.CryptoKey> {
  let key = hmacKeys.get(secret);
  if (!key) {
    if (hmacKeys.size >= MAX_CACHED_KEYS) {
      hmacKeys.clear();
    }
    key = crypto.subtle.importKey(
      "raw",
      new TextEncoder().encode(secret),
      { name: "HMAC", hash: "SHA-256" },
      false,
      ["sign", "verify"],
    );
    hmacKeys.set(secret, key);
    const imported = key;
    imported.catch(() => {
      if (hmacKeys.get(secret) === imported) {
        hmacKeys.delete(secret);
      }
    });
  }
  return key;
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
  const token = await sign({ ...claims }, await hmacKey(input.secret), "HS256");
  return { token, expiresAt: new Date(claims.exp * 1000).toISOString(), claims };
}

/** Most verified tokens remembered per process (see verifiedPayload). */
const MAX_VERIFIED_TOKENS = 10_000;

/** Payloads of tokens whose signature verified, by secret and token. */
const verifiedTokens = new LRUCache<string, Record<string, unknown>>({ max: MAX_VERIFIED_TOKENS });

/**
 * The payload of `token` once its HS256 signature verified under `secret` (hono/jwt; `alg` must
 * be HS256, so `none` and every other algorithm are refused). A session token is stateless and
 * immutable (no revocation, docs/protocol.md §2), so a token that verified under a secret always will: its
 * payload is remembered (least recently used of MAX_VERIFIED_TOKENS evicted) and the HMAC is not
 * recomputed on its next requests. Only verified tokens are remembered; the claims and `exp` are
 * checked by the caller on every call.
 * @throws Error when the token is malformed or its signature does not verify.
 */
async function verifiedPayload(token: string, secret: string): Promise<Record<string, unknown>> {
  const cacheKey = `${secret.length}:${secret}:${token}`;
  const known = verifiedTokens.get(cacheKey);
  if (known) {
    return known;
  }
  if (decode(token).header.alg !== "HS256") {
    throw new Error("alg");
  }
  const key = await hmacKey(secret);
  const payload = await verify(token, key, { alg: "HS256", exp: false, nbf: false, iat: false });
  verifiedTokens.set(cacheKey, Object.freeze(payload));
  return payload;
}

/**
 * Verifies a session token (docs/protocol.md §2.4 "The session JWT"): HS256 only (`alg: none` and
 * every other algorithm are refused), the signature under `secret` (see verifiedPayload), claims
 * `sub`/`pk` strings, `iat`/`exp` numbers and `nbf` a number when present; then, against the
 * injected clock on every call: `iat` and `nbf` at most SESSION_CLOCK_SKEW_SECONDS in the
 * future, `exp − iat` at most SESSION_TTL_SECONDS (a token minted with the secret for longer is
 * refused), and now before `exp`.
 * @throws AuthError("unauthorized") on any failure.
 */
export async function verifySessionToken(
  token: string,
  secret: string,
  clock: Clock,
): Promise<SessionClaims> {
  let payload: Record<string, unknown>;
  try {
    payload = await verifiedPayload(token, secret);
  } catch {
    throw new AuthError("unauthorized", "invalid session token");
  }
  const { sub, pk, iat, exp, nbf } = payload;
  if (
    typeof sub !== "string" ||
    typeof pk !== "string" ||
    typeof iat !== "number" ||
    typeof exp !== "number" ||
    (nbf !== undefined && typeof nbf !== "number")
  ) {
    throw new AuthError("unauthorized", "invalid session token claims");
  }
  const nowMs = clock.now().getTime();
  const latestStart = nowMs + SESSION_CLOCK_SKEW_SECONDS * 1000;
  if (iat * 1000 > latestStart || (nbf !== undefined && nbf * 1000 > latestStart)) {
    throw new AuthError("unauthorized", "session token not valid yet");
  }
  if (!(exp - iat <= SESSION_TTL_SECONDS)) {
    throw new AuthError("unauthorized", "session token lifetime too long");
  }
  if (nowMs >= exp * 1000) {
    throw new AuthError("unauthorized", "session token expired");
  }
  return { sub, pk, iat, exp };
}
