/**
 * Bearer authentication (spec §5 "Resolving a bearer token"): resolves `Authorization: Bearer`
 * to the user once per request and stores it in `c.var.auth`; route handlers never load the user
 * or its wrapped data key again.
 * @module
 */
import { resolveBearer } from "@svc/auth";
import type { MiddlewareHandler } from "hono";
import type { AppDeps, AppEnv } from "../context.js";
import { ApiError } from "../errors.js";

/** Requires a valid session JWT or API key. */
export function requireAuth(deps: AppDeps): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const header = c.req.header("authorization") ?? "";
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (!match?.[1]) {
      throw new ApiError("unauthorized", "missing bearer token");
    }
    c.set(
      "auth",
      await resolveBearer(
        { db: deps.db, secret: deps.config.jwtSecret, clock: deps.clock },
        match[1],
      ),
    );
    await next();
  };
}

/**
 * Requires a wallet session (JWT), not an API key: key management (CONTRACT §3) so that a leaked
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
