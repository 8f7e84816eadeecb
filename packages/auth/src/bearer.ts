/**
 * Resolving a bearer token (docs/protocol.md §3.1 "Bearer tokens"): `svc_…` is an API key looked up
 * by hash on every request (so revocation is immediate); anything else is a session JWT. Either
 * way the user is loaded once, wrapped data key included, for the whole request.
 * @module
 */

import type { Clock } from "@verifiable-memory/clock";
import {
  API_KEY_SCOPES,
  type ApiKeyScope,
  type Database,
  findActiveApiKeyByHash,
  getUsersByIds,
  touchApiKeyLastUsed,
} from "@verifiable-memory/db-schema";
import { API_KEY_PREFIX, hashApiKey } from "./api-keys.js";
import { AuthError } from "./errors.js";
import { verifySessionToken } from "./session.js";
import { createUserLoader, type UserLoader } from "./user-loader.js";

/** Who is calling, loaded once per request. */
export interface AuthContext {
  readonly userId: string;
  readonly ownerPubkey: string;
  readonly wrappedDataKey: Uint8Array;
  readonly credential: "session" | "api_key";
  /** The API key's id when `credential` is `api_key`. */
  readonly apiKeyId: string | null;
  /** What the credential may do: every scope for a wallet session, the key's own for an API key. */
  readonly scopes: readonly ApiKeyScope[];
  /** The namespace prefix an API key is confined to; null when it sees the whole wallet. */
  readonly namespace: string | null;
}

/** `lastUsedAt` is written at most once a minute per key (docs/protocol.md §3). */
const LAST_USED_RESOLUTION_MS = 60_000;

/**
 * Resolves `token` to the calling user. A session JWT's user is loaded from the database on every
 * request, the loads of concurrent requests coalesced into one query (see createUserLoader). An
 * API key is looked up by hash on every request (a revoked key fails on the very next one); its
 * `lastUsedAt` is written only when the lookup shows it null or more than a minute old (the
 * UPDATE re-checks that, so concurrent requests write it once), so most requests cost one SELECT.
 * @throws AuthError("unauthorized") for an unknown, revoked, expired or forged credential
 *   (an API key past its `expiresAt` included), or a session whose user no longer exists.
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
    const now = deps.clock.now();
    if (found.apiKey.expiresAt !== null && found.apiKey.expiresAt.getTime() <= now.getTime()) {
      throw new AuthError("unauthorized", "expired API key");
    }
    if (lastUseIsStale(found.apiKey.lastUsedAt, now)) {
      await touchApiKeyLastUsed(deps.db, found.user.id, found.apiKey.id, now);
    }
    return {
      userId: found.user.id,
      ownerPubkey: found.user.ownerPubkey,
      wrappedDataKey: found.user.wrappedDataKey,
      credential: "api_key",
      apiKeyId: found.apiKey.id,
      scopes: found.apiKey.scopes,
      namespace: found.apiKey.namespace,
    };
  }
  const claims = await verifySessionToken(token, deps.secret, deps.clock);
  const user = await userLoaderOf(deps.db).load(claims.sub);
  if (!user || user.ownerPubkey !== claims.pk) {
    throw new AuthError("unauthorized", "the session's user does not exist");
  }
  return {
    userId: user.id,
    ownerPubkey: user.ownerPubkey,
    wrappedDataKey: user.wrappedDataKey,
    credential: "session",
    apiKeyId: null,
    scopes: API_KEY_SCOPES,
    namespace: null,
  };
}

/** The session user loader of each database (see resolveBearer). */
const userLoaders = new WeakMap<Database, UserLoader>();

function userLoaderOf(db: Database): UserLoader {
  let loader = userLoaders.get(db);
  if (!loader) {
    loader = createUserLoader((ids) => getUsersByIds(db, ids));
    userLoaders.set(db, loader);
  }
  return loader;
}

/**
 * True when `lastUsedAt` (as just read) is missing or more than a minute before `now`: the same
 * condition as touchApiKeyLastUsed's UPDATE, so skipping it never skips a write it would make.
 */
function lastUseIsStale(lastUsedAt: Date | null, now: Date): boolean {
  return lastUsedAt === null || now.getTime() - lastUsedAt.getTime() > LAST_USED_RESOLUTION_MS;
}
