/**
 * Bearer authentication (docs/protocol.md §3.1 "Bearer tokens"): resolves `Authorization: Bearer`
 * to the user once per request and stores it in `c.var.auth`; route handlers never load the user
 * or its wrapped data key again. Every authenticated request is then counted against its
 * credential's rate limit (docs/protocol.md §12).
 * @module
 */
import { AuthError, requireScope, resolveBearer } from "@verifiable-memory/auth";
import type { ApiKeyScope } from "@verifiable-memory/db-schema";
import { authenticateBearer } from "@verifiable-memory/http-kit";
import type { MiddlewareHandler } from "hono";
import type { AppDeps, AppEnv } from "../context.js";
import { ApiError } from "../errors.js";

/**
 * Requires a valid session JWT or API key, then charges the credential's rate limit: an API key
 * by its id, a wallet session by its user (the JWT's subject), so a user's sessions share one
 * count and each API key has its own.
 * A missing or failed credential is counted against the client address's unauthenticated limit.
 * @throws ApiError `unauthorized` (401) without a valid credential; `rate_limited` (429) past the
 *   credential's limit, or past the client address's limit for failed credentials.
 */
export function requireAuth(deps: AppDeps): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const auth = await authenticateBearer(c, {
      // A failed credential counts against the client address, like sign-in: guessing keys or
      // tokens is as limited as requesting challenges.
      resolve: (token) =>
        resolveBearer({ db: deps.db, secret: deps.config.jwtSecret, clock: deps.clock }, token),
      refuses: (error) => error instanceof AuthError,
    });
    c.set("auth", auth);
    await c.var.rateLimits.chargeCredential(
      c,
      auth.apiKeyId === null ? `user:${auth.userId}` : `api_key:${auth.apiKeyId}`,
    );
    await next();
  };
}

/**
 * Requires a wallet session (JWT), not an API key: key management (docs/protocol.md §3) so that a leaked
 * key cannot mint its own successors. Runs after {@link requireAuth}.
 */
export function requireSession(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    if (c.var.auth.credential !== "session") {
      throw new ApiError(
        "session_required",
        "this operation needs a wallet session, not an API key",
      );
    }
    await next();
  };
}

/**
 * Requires `scope` of the credential (docs/protocol.md §3.5 "Scopes, expiry and confinement"): a
 * wallet session holds every scope, an API key those it was created with. Runs after
 * {@link requireAuth}.
 * @throws AuthError `insufficient_scope` (403) when the credential lacks it.
 */
export function requireScopes(scope: ApiKeyScope): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    requireScope(c.var.auth, scope);
    await next();
  };
}
