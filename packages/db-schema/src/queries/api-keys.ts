/**
 * API key queries (docs/protocol.md §3.2 "API keys", §3.1 "Bearer tokens"): lookup by hash on
 * every request, newest-first listing, idempotent revocation, throttled last-use updates.
 * @module
 */
import { and, eq, isNull, lt, or, sql } from "drizzle-orm";
import type { Executor } from "../client.js";
import { type ApiKey, type ApiKeyScope, apiKeys } from "../schema/api-keys.js";
import { type User, users } from "../schema/users.js";
import type { Page, PageOptions } from "./_pagination.js";
import { builtOncePer } from "./_prepared.js";
import { newestFirstPage, revokeUserRow } from "./_user-rows.js";

/** Input of {@link insertApiKey}. */
export interface NewApiKey {
  readonly userId: string;
  /** SHA-256 of the raw key (32 bytes). */
  readonly keyHash: Uint8Array;
  /** First 12 characters of the raw key. */
  readonly prefix: string;
  readonly label: string;
  /** What the key may do; default all scopes. */
  readonly scopes?: readonly ApiKeyScope[];
  /** When the key stops working; null or absent: never. */
  readonly expiresAt?: Date | null;
  /** Namespace prefix the key is confined to; null or absent: none. */
  readonly namespace?: string | null;
}

/**
 * Stores a new API key for `userId` (its id is generated).
 * @throws RangeError when `prefix` is not 12 characters.
 * @throws the PostgreSQL unique violation (23505) on a duplicate key hash.
 */
export async function insertApiKey(db: Executor, input: NewApiKey): Promise<ApiKey> {
  if (input.prefix.length !== 12) {
    throw new RangeError(`prefix must be 12 characters, got ${input.prefix.length}`);
  }
  const rows = await db
    .insert(apiKeys)
    .values({
      userId: input.userId,
      keyHash: input.keyHash,
      prefix: input.prefix,
      label: input.label,
      ...(input.scopes ? { scopes: [...input.scopes] } : {}),
      expiresAt: input.expiresAt ?? null,
      namespace: input.namespace ?? null,
    })
    .returning();
  return rows[0] as ApiKey;
}

/**
 * Credential lookup: the unrevoked key whose hash is `keyHash`, with its user, in one query, run
 * on every API-key request. Sent as a server-side prepared statement (parsed once per connection,
 * then one round trip; drizzle's default sends it unnamed: parse/describe, then bind) whose query
 * drizzle builds once per executor, not on every call.
 * @returns `{ apiKey, user }` (`apiKey.lastUsedAt` included, so callers can skip a fresh
 *   touchApiKeyLastUsed; `apiKey.expiresAt` is for the caller to check against its clock), or
 *   null for an unknown or revoked key.
 */
export async function findActiveApiKeyByHash(
  db: Executor,
  keyHash: Uint8Array,
): Promise<{ apiKey: ApiKey; user: User } | null> {
  const rows = await activeKeyByHashQuery(db).execute({ keyHash });
  return rows[0] ?? null;
}

/** The credential lookup of each executor, built once (drizzle placeholder `keyHash`, bytea). */
const activeKeyByHashQuery = builtOncePer((db) =>
  db
    .select({ apiKey: apiKeys, user: users })
    .from(apiKeys)
    .innerJoin(users, eq(users.id, apiKeys.userId))
    .where(and(eq(apiKeys.keyHash, sql.placeholder("keyHash")), isNull(apiKeys.revokedAt)))
    .limit(1)
    .prepare("find_active_api_key_by_hash"),
);

/** The user's key `id` (revoked or not), or null when it is not theirs or does not exist. */
export async function getApiKey(db: Executor, userId: string, id: string): Promise<ApiKey | null> {
  const rows = await db
    .select()
    .from(apiKeys)
    .where(and(eq(apiKeys.userId, userId), eq(apiKeys.id, id)))
    .limit(1);
  return rows[0] ?? null;
}

/**
 * The user's keys, newest first, revoked ones included (docs/protocol.md §3), cursor-paginated.
 * @throws RangeError on a bad `limit`; InvalidCursorError on a foreign cursor.
 */
export async function listApiKeys(
  db: Executor,
  userId: string,
  options: PageOptions = {},
): Promise<Page<ApiKey>> {
  const keyset = newestFirstPage("api_keys", apiKeys, options);
  const rows = await db
    .select()
    .from(apiKeys)
    .where(and(eq(apiKeys.userId, userId), keyset.after))
    .orderBy(...keyset.orderBy)
    .limit(keyset.fetch);
  return keyset.page(rows);
}

/**
 * Revokes the user's key `id`; idempotent (an already revoked key keeps its first `revokedAt`).
 * @returns true when the key exists and belongs to `userId` (revoked now or before), else false.
 */
export async function revokeApiKey(
  db: Executor,
  userId: string,
  id: string,
  now: Date = new Date(),
): Promise<boolean> {
  return revokeUserRow(db, apiKeys, userId, id, now);
}

/**
 * Records a use of the user's key `id` at `now`, at most once a minute (docs/protocol.md §3): the UPDATE
 * only matches when `last_used_at` is null or older than `now` − 60 s, so most requests write
 * nothing.
 * @returns true when `lastUsedAt` was written.
 */
export async function touchApiKeyLastUsed(
  db: Executor,
  userId: string,
  id: string,
  now: Date = new Date(),
): Promise<boolean> {
  const minuteAgo = new Date(now.getTime() - 60_000);
  const rows = await db
    .update(apiKeys)
    .set({ lastUsedAt: now })
    .where(
      and(
        eq(apiKeys.userId, userId),
        eq(apiKeys.id, id),
        or(isNull(apiKeys.lastUsedAt), lt(apiKeys.lastUsedAt, minuteAgo)),
      ),
    )
    .returning({ id: apiKeys.id });
  return rows.length === 1;
}
