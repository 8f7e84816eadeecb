/**
 * The `WWW-Authenticate` challenge of a bearer route's 401 (RFC 6750 §3 "The WWW-Authenticate
 * Response Header Field"; docs/protocol.md §3.1 "Bearer tokens").
 * @module
 */
import type { Context } from "hono";

/**
 * Sets `WWW-Authenticate` on the answer being built, so the error handler's 401 carries it:
 * `Bearer` when the request had no bearer token (RFC 6750 §3.1: no error code then), `Bearer
 * error="invalid_token"` when the token it had was unknown, revoked, expired or malformed.
 * Call it just before throwing the 401.
 */
export function setBearerChallenge(c: Context, tokenPresented: boolean): void {
  c.header("WWW-Authenticate", tokenPresented ? 'Bearer error="invalid_token"' : "Bearer");
}
