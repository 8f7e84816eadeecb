/**
 * API key scopes (docs/protocol.md §3.5 "Scopes, expiry and confinement"): each route needs one
 * scope; a wallet session holds them all.
 * @module
 */
import type { ApiKeyScope } from "@verifiable-memory/db-schema";
import type { AuthContext } from "./bearer.js";
import { AuthError } from "./errors.js";

/**
 * Requires `scope` of the caller.
 * @throws AuthError("insufficient_scope") (HTTP 403) when the credential lacks it, naming the
 *   scope needed.
 */
export function requireScope(auth: Pick<AuthContext, "scopes">, scope: ApiKeyScope): void {
  if (!auth.scopes.includes(scope)) {
    throw new AuthError("insufficient_scope", `this credential lacks the scope ${scope}`);
  }
}
