/**
 * Resolving a bearer token (spec §5 "Resolving a bearer token"): `svc_…` is an API key looked up
 * by hash on every request (so revocation is immediate); anything else is a session JWT. Either
 * way the user is loaded once, wrapped data key included, for the whole request.
 * @module
 */
import {
  type Database,
  findActiveApiKeyByHash,
  getUserById,
  touchApiKeyLastUsed,
} from "@svc/db-schema";
import { API_KEY_PREFIX, hashApiKey } from "./api-keys.js";
import type { Clock } from "./clock.js";
import { AuthError } from "./errors.js";
import { verifySessionToken } from "./session.js";

/** Who is calling, loaded once per request. */
export interface AuthContext {
  readonly userId: string;
  readonly ownerPubkey: string;
  readonly wrappedDataKey: Uint8Array;
  readonly credential: "session" | "api_key";
  /** The API key's id when `credential` is `api_key`. */
  readonly apiKeyId: string | null;
}

/**
 * Resolves `token` to the calling user.
 * @throws AuthError("unauthorized") for an unknown, revoked, expired or forged credential, or a
 *   session whose user no longer exists.
 */
export async function resolveBearer(
  deps: { db: Database; secret: string; clock: Clock },
  token: string,
): Promise<AuthContext> {
  if (token.startsWith(API_KEY_PREFIX)) {
    const found = await findActiveApiKeyByHash(deps.db, hashApiKey(token));
    if (!found) {
      throw new AuthError("unauthorized", "unknown or revoked API key");
    }
    await touchApiKeyLastUsed(deps.db, found.user.id, found.apiKey.id, deps.clock.now());
    return {
      userId: found.user.id,
      ownerPubkey: found.user.ownerPubkey,
      wrappedDataKey: found.user.wrappedDataKey,
      credential: "api_key",
      apiKeyId: found.apiKey.id,
    };
  }
  const claims = await verifySessionToken(token, deps.secret, deps.clock);
  const user = await getUserById(deps.db, claims.sub);
  if (!user || user.ownerPubkey !== claims.pk) {
    throw new AuthError("unauthorized", "the session's user does not exist");
  }
  return {
    userId: user.id,
    ownerPubkey: user.ownerPubkey,
    wrappedDataKey: user.wrappedDataKey,
    credential: "session",
    apiKeyId: null,
  };
}
