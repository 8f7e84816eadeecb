/**
 * Extension token authentication (docs/protocol.md §3.3 "Extension tokens"; docs/protocol.md §9):
 * resolves `Authorization: Bearer <token>` with one indexed read and stores the caller in
 * `c.var.auth`; every authenticated request is then counted against its session's rate limit
 * (docs/protocol.md §12).
 * @module
 */
import { AuthError, resolveExtensionToken } from "@verifiable-memory/auth";
import { authenticateBearer } from "@verifiable-memory/http-kit";
import type { MiddlewareHandler } from "hono";
import type { AppDeps, AppEnv } from "../context.js";

/**
 * Requires a valid, unrevoked, unexpired extension token, then charges its session's rate limit
 * (keyed by the session id, never the token).
 * A missing or failed token is counted against the client address's unauthenticated limit.
 * @throws ApiError `unauthorized` (401) without a valid token; `rate_limited` (429) past the
 *   session's limit, or past the client address's limit for failed tokens.
 */
export function requireExtensionToken(deps: AppDeps): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const auth = await authenticateBearer(c, {
      // A failed token counts against the client address, like the connect routes.
      resolve: (token) => resolveExtensionToken({ db: deps.db, clock: deps.clock }, token),
      refuses: (error) => error instanceof AuthError,
    });
    c.set("auth", auth);
    await c.var.rateLimits.chargeCredential(c, auth.sessionId);
    await next();
  };
}
