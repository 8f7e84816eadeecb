/**
 * User queries: the race-safe upsert on first successful sign-in (docs/protocol.md §2.3
 * "Verification") and lookups by id or public key.
 * @module
 */
import { randomUUID } from "node:crypto";
import { eq, sql } from "drizzle-orm";
import type { Executor } from "../client.js";
import { type User, users } from "../schema/users.js";
import { builtOncePer } from "./_prepared.js";

/** Input of {@link upsertUserByPubkey}. */
export interface UpsertUserInput {
  /** Wallet public key, base58. */
  readonly ownerPubkey: string;
  /**
   * Creates the new user's wrapped data key, bound to the new user id. Called only when no user
   * with this key exists yet (at most once per call).
   */
  readonly makeWrappedKey: (userId: string) => Uint8Array | Promise<Uint8Array>;
}

/**
 * Returns the user of `ownerPubkey`, creating it (random UUID id, fresh wrapped data key) on
 * first sight. Race-safe: INSERT … ON CONFLICT DO NOTHING, then SELECT, so concurrent first
 * sign-ins of one key end with one user and one data key; the loser's key is discarded.
 * @returns `{ user, created }`, `created` true when this call inserted the row.
 * @throws TypeError when `ownerPubkey` is empty or `makeWrappedKey` does not return bytes.
 */
export async function upsertUserByPubkey(
  db: Executor,
  input: UpsertUserInput,
): Promise<{ user: User; created: boolean }> {
  const { ownerPubkey, makeWrappedKey } = input;
  if (typeof ownerPubkey !== "string" || ownerPubkey.length === 0) {
    throw new TypeError("ownerPubkey must be a non-empty string");
  }
  const existing = await getUserByPubkey(db, ownerPubkey);
  if (existing) {
    return { user: existing, created: false };
  }
  const id = randomUUID();
  const wrappedDataKey = await makeWrappedKey(id);
  if (!(wrappedDataKey instanceof Uint8Array) || wrappedDataKey.length === 0) {
    throw new TypeError("makeWrappedKey must return a non-empty Uint8Array");
  }
  const inserted = await db
    .insert(users)
    .values({ id, ownerPubkey, wrappedDataKey })
    .onConflictDoNothing({ target: users.ownerPubkey })
    .returning();
  const row = inserted[0];
  if (row) {
    return { user: row, created: true };
  }
  const winner = await getUserByPubkey(db, ownerPubkey);
  if (!winner) {
    throw new Error(`user ${ownerPubkey} vanished after a conflicting insert`);
  }
  return { user: winner, created: false };
}

/** The user-by-id query of each executor, built once (drizzle placeholder `id`). */
const userByIdQuery = builtOncePer((db) =>
  db
    .select()
    .from(users)
    .where(eq(users.id, sql.placeholder("id")))
    .limit(1)
    .prepare("get_user_by_id"),
);

/**
 * The user with id `userId`, or null. Run on every session-authenticated request (docs/protocol.md §3 step 3),
 * so sent as a server-side prepared statement (one round trip instead of parse/describe + bind)
 * whose query drizzle builds once per executor, not on every call.
 */
export async function getUserById(db: Executor, userId: string): Promise<User | null> {
  const rows = await userByIdQuery(db).execute({ id: userId });
  return rows[0] ?? null;
}

/** The users-by-ids query of each executor, built once (drizzle placeholder `ids`, a text[]). */
const usersByIdsQuery = builtOncePer((db) =>
  db
    .select()
    .from(users)
    .where(sql`${users.id} = any(${sql.placeholder("ids")}::text[])`)
    .prepare("get_users_by_ids"),
);

/**
 * The users among `ids` (unknown ids are simply absent; order unspecified): one prepared
 * statement `SELECT … FROM users WHERE id = ANY($1::text[])`, for lookups coalesced from several
 * requests (the bearer's user loader in `@verifiable-memory/auth`).
 * @throws RangeError when more than 1000 ids are given.
 */
export async function getUsersByIds(db: Executor, ids: readonly string[]): Promise<User[]> {
  if (ids.length > 1000) {
    throw new RangeError(`ids must hold at most 1000 ids, got ${ids.length}`);
  }
  if (ids.length === 0) {
    return [];
  }
  return usersByIdsQuery(db).execute({ ids: [...ids] });
}

/** The user whose wallet key is `ownerPubkey` (base58), or null. */
export async function getUserByPubkey(db: Executor, ownerPubkey: string): Promise<User | null> {
  const rows = await db.select().from(users).where(eq(users.ownerPubkey, ownerPubkey)).limit(1);
  return rows[0] ?? null;
}
