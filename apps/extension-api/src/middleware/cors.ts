/**
 * CORS of the extension API (docs/protocol.md §9.5 "CORS"; docs/protocol.md §9): any
 * `chrome-extension://` origin plus the configured allowlist get CORS headers, preflights
 * included; every other origin gets none. Credentials are never allowed (bearer tokens only).
 * @module
 */
import type { MiddlewareHandler } from "hono";
import { cors } from "hono/cors";
import type { AppEnv } from "../context.js";

/** `chrome-extension://<32 letters a–p>`. */
const EXTENSION_ORIGIN = /^chrome-extension:\/\/[a-p]{32}$/;

/** True when `origin` may read this API's answers from a browser. */
export function isAllowedOrigin(origin: string, allowlist: readonly string[]): boolean {
  return EXTENSION_ORIGIN.test(origin) || allowlist.includes(origin);
}

/**
 * The CORS middleware: hono's `cors` for allowed origins; requests from other origins (and
 * requests without Origin) pass through without CORS headers, only `Vary: Origin`.
 */
export function extensionCors(allowlist: readonly string[]): MiddlewareHandler<AppEnv> {
  const allowed = cors({
    origin: (origin) => origin,
    allowMethods: ["GET", "POST", "OPTIONS"],
    allowHeaders: ["Authorization", "Content-Type", "X-Request-Id"],
    exposeHeaders: ["X-Request-Id"],
    maxAge: 600,
    credentials: false,
  });
  return (c, next) => {
    const origin = c.req.header("origin");
    if (origin !== undefined && isAllowedOrigin(origin, allowlist)) {
      return allowed(c, next);
    }
    c.header("vary", "Origin");
    return next();
  };
}
