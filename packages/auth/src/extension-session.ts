/**
 * Extension API sessions (docs/protocol.md §3.3 "Extension tokens";
 * docs/protocol.md §9): an opaque random token handed to the browser extension once, of which only the
 * SHA-256 is stored; resolved with one indexed read per request and revocable server-side.
 * @module
 */
import { createHash, randomBytes } from "node:crypto";
import type { Clock } from "@verifiable-memory/clock";
import {
  type Database,
  findActiveExtensionSessionByHash,
  insertExtensionSession,
  revokeExtensionSession,
} from "@verifiable-memory/db-schema";
import bs58 from "bs58";
import type { AuthContext } from "./bearer.js";
import { AuthError } from "./errors.js";

/** Random bytes in an extension token (256 bits). */
export const EXTENSION_TOKEN_BYTES = 32;

/** Default lifetime of an extension token: 30 days, in seconds (`EXTENSION_TOKEN_TTL_S`). */
export const EXTENSION_TOKEN_TTL_SECONDS = 30 * 24 * 60 * 60;

/** A freshly issued extension token: the only time the raw `token` exists on the server. */
export interface IssuedExtensionToken {
  /** base58 of 32 random bytes. */
  readonly token: string;
  readonly sessionId: string;
  readonly expiresAt: Date;
}

/** The caller of an extension request: the user, plus the session its token belongs to. */
export interface ExtensionAuthContext
  extends Pick<
    AuthContext,
    "userId" | "ownerPubkey" | "wrappedDataKey" | "credential" | "apiKeyId" | "namespace"
  > {
  readonly sessionId: string;
  readonly tokenExpiresAt: Date;
}

/** SHA-256 of a raw extension token (the stored, looked-up form). */
export function hashExtensionToken(token: string): Uint8Array {
  return createHash("sha256").update(token, "utf8").digest();
}

/**
 * Issues an extension session for `userId`: 32 CSPRNG bytes, base58; stores only the SHA-256
 * and the expiry `now + ttlSeconds`.
 * @param ttlSeconds lifetime in seconds, a positive integer.
 * @throws RangeError when `ttlSeconds` is not a positive integer.
 */
export async function issueExtensionToken(input: {
  db: Database;
  clock: Clock;
  userId: string;
  ttlSeconds: number;
}): Promise<IssuedExtensionToken> {
  if (!Number.isInteger(input.ttlSeconds) || input.ttlSeconds < 1) {
    throw new RangeError(`ttlSeconds must be a positive integer, got ${input.ttlSeconds}`);
  }
  const token = bs58.encode(randomBytes(EXTENSION_TOKEN_BYTES));
  const expiresAt = new Date(input.clock.now().getTime() + input.ttlSeconds * 1000);
  const row = await insertExtensionSession(input.db, {
    userId: input.userId,
    tokenHash: hashExtensionToken(token),
    expiresAt,
  });
  return { token, sessionId: row.id, expiresAt: row.expiresAt };
}

/**
 * Resolves an extension token to its user with one indexed read (session by token hash, joined
 * with the user, not revoked, expiring after the clock's now).
 * @throws AuthError("unauthorized") for an unknown, revoked or expired token.
 */
export async function resolveExtensionToken(
  deps: { db: Database; clock: Clock },
  token: string,
): Promise<ExtensionAuthContext> {
  const found = await findActiveExtensionSessionByHash(
    deps.db,
    hashExtensionToken(token),
    deps.clock.now(),
  );
  if (!found) {
    throw new AuthError("unauthorized", "unknown, expired or revoked extension token");
  }
  return {
    userId: found.user.id,
    ownerPubkey: found.user.ownerPubkey,
    wrappedDataKey: found.user.wrappedDataKey,
    credential: "session",
    apiKeyId: null,
    namespace: null,
    sessionId: found.session.id,
    tokenExpiresAt: found.session.expiresAt,
  };
}

/**
 * Revokes the caller's extension session (logout); idempotent. The next request with its token
 * is `unauthorized`.
 */
export async function revokeExtensionToken(
  deps: { db: Database; clock: Clock },
  auth: Pick<ExtensionAuthContext, "userId" | "sessionId">,
): Promise<void> {
  await revokeExtensionSession(deps.db, auth.userId, auth.sessionId, deps.clock.now());
}

/** `chrome-extension://<id>/…`: an extension id is 32 letters a–p (a base16 alphabet). */
const EXTENSION_REDIRECT_URI = /^chrome-extension:\/\/[a-p]{32}\/[^\s#]*$/;

/**
 * True when `uri` is a page of a Chrome extension: `chrome-extension://` + a 32-letter id of
 * a–p + `/` + a path without whitespace or fragment, at most 2 048 characters. The connect flow
 * only ever redirects there (docs/protocol.md §9.2 "The connect flow"; docs/protocol.md §9).
 */
export function isExtensionRedirectUri(uri: string): boolean {
  return uri.length <= 2048 && EXTENSION_REDIRECT_URI.test(uri);
}
