/**
 * Extension session queries (docs/protocol.md §3.3 "Extension tokens"; docs/protocol.md §9): one
 * read per request by token hash, and revocation on logout.
 * @module
 */
import { and, eq, gt, isNull, lt, or } from "drizzle-orm";
import type { Executor } from "../client.js";
import { type ExtensionSession, extensionSessions } from "../schema/extension-sessions.js";
import { type User, users } from "../schema/users.js";
import { revokeUserRow } from "./_user-rows.js";

/** Input of {@link insertExtensionSession}. */
export interface NewExtensionSession {
  readonly userId: string;
  /** SHA-256 of the opaque token. */
  readonly tokenHash: Uint8Array;
  readonly expiresAt: Date;
}

/** Stores a new extension session (its id is generated). */
export async function insertExtensionSession(
  db: Executor,
  input: NewExtensionSession,
): Promise<ExtensionSession> {
  const rows = await db
    .insert(extensionSessions)
    .values({ userId: input.userId, tokenHash: input.tokenHash, expiresAt: input.expiresAt })
    .returning();
  return rows[0] as ExtensionSession;
}

/**
 * Credential lookup (one query): the session whose token hash is `tokenHash`, not revoked and
 * expiring after `now`, with its user.
 * @returns `{ session, user }` or null.
 */
export async function findActiveExtensionSessionByHash(
  db: Executor,
  tokenHash: Uint8Array,
  now: Date = new Date(),
): Promise<{ session: ExtensionSession; user: User } | null> {
  const rows = await db
    .select({ session: extensionSessions, user: users })
    .from(extensionSessions)
    .innerJoin(users, eq(users.id, extensionSessions.userId))
    .where(
      and(
        eq(extensionSessions.tokenHash, tokenHash),
        isNull(extensionSessions.revokedAt),
        gt(extensionSessions.expiresAt, now),
      ),
    )
    .limit(1);
  return rows[0] ?? null;
}

/**
 * Revokes the user's session `id` (logout); idempotent.
 * @returns true when the session exists and belongs to `userId`.
 */
export async function revokeExtensionSession(
  db: Executor,
  userId: string,
  id: string,
  now: Date = new Date(),
): Promise<boolean> {
  return revokeUserRow(db, extensionSessions, userId, id, now);
}

/**
 * Service-wide maintenance: deletes sessions that expired before `now` or were revoked before
 * `now` (a revoked or expired token is refused either way; the row only grows the table).
 * @returns the number of rows deleted.
 */
export async function deleteEndedExtensionSessions(db: Executor, now: Date): Promise<number> {
  const rows = await db
    .delete(extensionSessions)
    .where(or(lt(extensionSessions.expiresAt, now), lt(extensionSessions.revokedAt, now)))
    .returning({ id: extensionSessions.id });
  return rows.length;
}
