/**
 * Bearer tokens of the apps' authenticated routes (RFC 6750; docs/protocol.md §3.1 "Bearer
 * tokens"): reading `Authorization: Bearer <token>`, counting a missing or refused token against
 * the client address (docs/protocol.md §12), and the `WWW-Authenticate` challenge of the 401
 * (RFC 6750 §3 "The WWW-Authenticate Response Header Field").
 * @module
 */
import type { Context } from "hono";
import { ApiError } from "./errors.js";
import type { RateLimitEnv } from "./rate-limit.js";

/**
 * Sets `WWW-Authenticate` on the answer being built, so the error handler's 401 carries it:
 * `Bearer` when the request had no bearer token (RFC 6750 §3.1: no error code then), `Bearer
 * error="invalid_token"` when the token it had was unknown, revoked, expired or malformed.
 * Call it just before throwing the 401.
 */
function setBearerChallenge(c: Context, tokenPresented: boolean): void {
  c.header("WWW-Authenticate", tokenPresented ? 'Bearer error="invalid_token"' : "Bearer");
}

/** How {@link authenticateBearer} checks a token: the app's credential lookup. */
export interface BearerCheck<A> {
  /** Resolves the token to its caller; throws on a token it refuses. */
  readonly resolve: (token: string) => Promise<A>;
  /**
   * Whether an error thrown by `resolve` refuses the token (the app's credential error); any
   * other error (a lost database…) propagates without charging the client address.
   */
  readonly refuses: (error: unknown) => boolean;
}

/**
 * Reads the request's `Authorization: Bearer <token>` and resolves it with `check`. A missing
 * token, or one `check` refuses, is first counted against the client address's unauthenticated
 * limit ({@link RateLimitEnv}'s `chargeClientIp`) and gets its `WWW-Authenticate` challenge
 * ({@link setBearerChallenge}); the caller charges the resolved credential's own limit.
 * @returns the caller as `check.resolve` answered.
 * @throws ApiError `unauthorized` (401) without a bearer token; what `check.resolve` throws;
 *   ApiError `rate_limited` (429) past the client address's limit.
 */
export async function authenticateBearer<A, E extends RateLimitEnv>(
  c: Context<E>,
  check: BearerCheck<A>,
): Promise<A> {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(c.req.header("authorization") ?? "");
  if (!match?.[1]) {
    await c.var.rateLimits.chargeClientIp(c);
    setBearerChallenge(c, false);
    throw new ApiError("unauthorized", "missing bearer token");
  }
  try {
    return await check.resolve(match[1]);
  } catch (error) {
    if (check.refuses(error)) {
      await c.var.rateLimits.chargeClientIp(c);
      setBearerChallenge(c, true);
    }
    throw error;
  }
}
