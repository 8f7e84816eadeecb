/**
 * Capability grant queries (docs/protocol.md §8 "Capability grants"; docs/protocol.md §8):
 * creation, the owner's listing and revocation, the atomic use counter, and the audit trail of
 * every attempt.
 * @module
 */
import { and, desc, eq, getTableColumns, gt, isNull, lt, type SQL, sql } from "drizzle-orm";
import type { Executor } from "../client.js";
import { apiKeys } from "../schema/api-keys.js";
import {
  type CapabilityGrant,
  capabilityGrants,
  type GrantOperation,
} from "../schema/capability-grants.js";
import { type GrantAuditRow, type GrantOutcome, grantAudit } from "../schema/grant-audit.js";
import { users } from "../schema/users.js";
import {
  decodeNumberCursor,
  encodeNumberCursor,
  type Page,
  type PageOptions,
  pageLimit,
  toPage,
} from "./_pagination.js";
import { likePrefix, timestamptz } from "./_sql.js";
import { newestFirstPage, revokeUserRow } from "./_user-rows.js";

/** A sealed grant query: the two columns `query_ciphertext` and `query_iv`. */
export interface SealedGrantQuery {
  /** version(1) ‖ AES-256-GCM ciphertext ‖ tag(16). */
  readonly ciphertext: Uint8Array;
  /** 12 bytes. */
  readonly iv: Uint8Array;
}

/** Input of {@link insertGrant}. */
export interface NewGrant {
  /** The grant id; default a random UUID made by PostgreSQL. A sealed query is bound to it. */
  readonly id?: string;
  readonly userId: string;
  /** SHA-256 of the bearer token. */
  readonly tokenHash: Uint8Array;
  readonly operation: GrantOperation;
  /** A `search` grant's query sealed under the owner's data key (docs/protocol.md §8.1 "Creation"). */
  readonly query?: SealedGrantQuery | null;
  readonly label?: string | null;
  /** The API key that created the grant; null for a wallet session. */
  readonly createdByKeyId?: string | null;
  /** Uses allowed, >= 1. */
  readonly maxUses: number;
  readonly expiresAt: Date;
  /** Creation time; default the database's `now()`. */
  readonly createdAt?: Date;
}

/**
 * Stores a new grant (its id is generated, `uses` starts at 0).
 * @throws RangeError when `maxUses` is not a positive integer.
 */
export async function insertGrant(db: Executor, input: NewGrant): Promise<CapabilityGrant> {
  if (!Number.isInteger(input.maxUses) || input.maxUses < 1) {
    throw new RangeError(`maxUses must be a positive integer, got ${input.maxUses}`);
  }
  const rows = await db
    .insert(capabilityGrants)
    .values({
      ...(input.id === undefined ? {} : { id: input.id }),
      userId: input.userId,
      tokenHash: input.tokenHash,
      operation: input.operation,
      queryCiphertext: input.query?.ciphertext ?? null,
      queryIv: input.query?.iv ?? null,
      label: input.label ?? null,
      createdByKeyId: input.createdByKeyId ?? null,
      maxUses: input.maxUses,
      expiresAt: input.expiresAt,
      ...(input.createdAt ? { createdAt: input.createdAt } : {}),
    })
    .returning();
  return rows[0] as CapabilityGrant;
}

/**
 * A grant with the state of the API key that created it (both null for a grant created by a
 * session, or before creators were recorded): a grant whose creating key is revoked or expired is
 * revoked from that moment (docs/protocol.md §8 "Capability grants").
 */
export type GrantWithCreator = CapabilityGrant & {
  readonly keyRevokedAt: Date | null;
  readonly keyExpiresAt: Date | null;
};

const withCreator = {
  ...getTableColumns(capabilityGrants),
  keyRevokedAt: apiKeys.revokedAt,
  keyExpiresAt: apiKeys.expiresAt,
};

/**
 * SQL condition: the grant's creating key, if any, is neither revoked nor expired at `now`.
 */
function creatorKeyLive(now: Date): SQL {
  return sql`not exists (select 1 from ${apiKeys} where ${apiKeys.id} = ${capabilityGrants.createdByKeyId} and (${apiKeys.revokedAt} is not null or ${apiKeys.expiresAt} <= ${timestamptz(now)}))`;
}

/** The user's grant `id` with its creating key's state, or null. */
export async function getGrant(
  db: Executor,
  userId: string,
  id: string,
): Promise<GrantWithCreator | null> {
  const rows = await db
    .select(withCreator)
    .from(capabilityGrants)
    .leftJoin(apiKeys, eq(apiKeys.id, capabilityGrants.createdByKeyId))
    .where(and(eq(capabilityGrants.userId, userId), eq(capabilityGrants.id, id)))
    .limit(1);
  return rows[0] ?? null;
}

/**
 * The user's grants, newest first, cursor-paginated; with `confinedTo`, only the grants created
 * under a namespace confinement starting with it (`operation.namespacePrefix`).
 * @throws RangeError on a bad `limit`; InvalidCursorError on a foreign cursor.
 */
export async function listGrants(
  db: Executor,
  userId: string,
  options: PageOptions & { readonly confinedTo?: string | null } = {},
): Promise<Page<GrantWithCreator>> {
  const keyset = newestFirstPage("grants", capabilityGrants, options);
  const rows = await db
    .select(withCreator)
    .from(capabilityGrants)
    .leftJoin(apiKeys, eq(apiKeys.id, capabilityGrants.createdByKeyId))
    .where(
      and(
        eq(capabilityGrants.userId, userId),
        keyset.after,
        options.confinedTo == null
          ? undefined
          : sql`${capabilityGrants.operation}->>'namespacePrefix' like ${likePrefix(options.confinedTo)}`,
      ),
    )
    .orderBy(...keyset.orderBy)
    .limit(keyset.fetch);
  return keyset.page(rows);
}

/**
 * Revokes the user's grant `id`; idempotent (keeps the first `revokedAt`).
 * @returns true when the grant exists and belongs to `userId`.
 */
export async function revokeGrant(
  db: Executor,
  userId: string,
  id: string,
  now: Date = new Date(),
): Promise<boolean> {
  return revokeUserRow(db, capabilityGrants, userId, id, now);
}

/** Result of {@link useGrant}. */
export type GrantUse =
  | { readonly outcome: "ok"; readonly grant: CapabilityGrant }
  | { readonly outcome: "not_found"; readonly grant: null }
  | { readonly outcome: "revoked" | "expired" | "exhausted"; readonly grant: CapabilityGrant };

/**
 * Revokes, at `now`, the user's grants created by the API key `keyId` that are not revoked yet:
 * revoking a key revokes what it delegated (docs/protocol.md §8 "Capability grants").
 * @returns the number of grants revoked.
 */
export async function revokeGrantsOfKey(
  db: Executor,
  userId: string,
  keyId: string,
  now: Date,
): Promise<number> {
  const rows = await db
    .update(capabilityGrants)
    .set({ revokedAt: now })
    .where(
      and(
        eq(capabilityGrants.userId, userId),
        eq(capabilityGrants.createdByKeyId, keyId),
        isNull(capabilityGrants.revokedAt),
      ),
    )
    .returning({ id: capabilityGrants.id });
  return rows.length;
}

/**
 * Uses the grant whose token hash is `tokenHash` at `now`. The use is counted in ONE statement,
 * `UPDATE … SET uses = uses + 1 WHERE token_hash = $1 AND revoked_at IS NULL AND expires_at > $now
 * AND uses < max_uses RETURNING *`: PostgreSQL re-checks the condition on the latest row version,
 * so N concurrent uses of a grant with K uses left succeed exactly min(N, K) times (docs/protocol.md §8).
 * A grant whose creating API key is revoked or expired at `now` is never used (same statement) and
 * its refusal is `revoked`. A refused use is then classified from the current row, ranked revoked,
 * expired, exhausted (docs/protocol.md §8). Writes no audit row (the caller adds one with insertGrantAudit).
 * @returns `{ outcome, grant }`; `grant` is the row after the use (or as refused), null when no
 *   grant has this hash.
 */
export async function useGrant(db: Executor, tokenHash: Uint8Array, now: Date): Promise<GrantUse> {
  const used = await db
    .update(capabilityGrants)
    .set({ uses: sql`${capabilityGrants.uses} + 1` })
    .where(
      and(
        eq(capabilityGrants.tokenHash, tokenHash),
        isNull(capabilityGrants.revokedAt),
        gt(capabilityGrants.expiresAt, now),
        lt(capabilityGrants.uses, capabilityGrants.maxUses),
        creatorKeyLive(now),
      ),
    )
    .returning();
  if (used[0]) {
    return { outcome: "ok", grant: used[0] };
  }
  const rows = await db
    .select(withCreator)
    .from(capabilityGrants)
    .leftJoin(apiKeys, eq(apiKeys.id, capabilityGrants.createdByKeyId))
    .where(eq(capabilityGrants.tokenHash, tokenHash))
    .limit(1);
  const found = rows[0];
  if (!found) {
    return { outcome: "not_found", grant: null };
  }
  const { keyRevokedAt, keyExpiresAt, ...grant } = found;
  if (
    grant.revokedAt !== null ||
    keyRevokedAt !== null ||
    (keyExpiresAt !== null && keyExpiresAt.getTime() <= now.getTime())
  ) {
    return { outcome: "revoked", grant };
  }
  if (grant.expiresAt.getTime() <= now.getTime()) {
    return { outcome: "expired", grant };
  }
  return { outcome: "exhausted", grant };
}

/** A grant whose `search` query is still stored in clear, with its owner's wrapped data key. */
export interface ClearGrantQuery {
  readonly id: string;
  readonly userId: string;
  readonly query: string;
  readonly wrappedDataKey: Uint8Array;
}

/**
 * Service-wide maintenance (core-api's start-up re-encryption, docs/protocol.md §8.1 "Creation"):
 * up to `limit` grants whose stored operation still holds its query text in clear, by id, those
 * with an id above `after` when given (keyset paging).
 * @throws RangeError when `limit` is not a positive integer.
 */
export async function listClearGrantQueries(
  db: Executor,
  limit: number,
  after: string | null = null,
): Promise<ClearGrantQuery[]> {
  if (!Number.isInteger(limit) || limit < 1) {
    throw new RangeError(`limit must be a positive integer, got ${limit}`);
  }
  return db
    .select({
      id: capabilityGrants.id,
      userId: capabilityGrants.userId,
      query: sql<string>`${capabilityGrants.operation}->>'query'`,
      wrappedDataKey: users.wrappedDataKey,
    })
    .from(capabilityGrants)
    .innerJoin(users, eq(users.id, capabilityGrants.userId))
    .where(
      and(
        sql`${capabilityGrants.operation} ? 'query'`,
        after === null ? undefined : gt(capabilityGrants.id, after),
      ),
    )
    .orderBy(capabilityGrants.id)
    .limit(limit);
}

/**
 * Service-wide maintenance: replaces the clear query of grant `id` (owned by `userId`) by its
 * sealed form and removes it from the stored operation, in one conditional statement: only while
 * the row still holds exactly `query` in clear, so two processes re-encrypting at once write it
 * once and a second run changes nothing.
 * @returns true when this call sealed the row; false when it was sealed already (or is gone).
 */
export async function sealClearGrantQuery(
  db: Executor,
  grant: { readonly id: string; readonly userId: string; readonly query: string },
  sealed: SealedGrantQuery,
): Promise<boolean> {
  const rows = await db
    .update(capabilityGrants)
    .set({
      queryCiphertext: sealed.ciphertext,
      queryIv: sealed.iv,
      operation: sql`${capabilityGrants.operation} - 'query'`,
    })
    .where(
      and(
        eq(capabilityGrants.id, grant.id),
        eq(capabilityGrants.userId, grant.userId),
        sql`${capabilityGrants.operation}->>'query' = ${grant.query}`,
      ),
    )
    .returning({ id: capabilityGrants.id });
  return rows.length === 1;
}

/** Input of {@link insertGrantAudit}. */
export interface NewGrantAudit {
  /** The grant, when the token matched one. */
  readonly grantId: string | null;
  /** The grant's owner, when known. */
  readonly userId: string | null;
  readonly outcome: GrantOutcome;
  readonly ip: string | null;
  readonly userAgent: string | null;
  readonly at?: Date;
}

/** Appends one audit row for an attempt to use a grant (docs/protocol.md §8: every attempt). */
export async function insertGrantAudit(db: Executor, input: NewGrantAudit): Promise<GrantAuditRow> {
  const rows = await db
    .insert(grantAudit)
    .values({
      grantId: input.grantId,
      userId: input.userId,
      outcome: input.outcome,
      ip: input.ip,
      userAgent: input.userAgent,
      ...(input.at ? { at: input.at } : {}),
    })
    .returning();
  return rows[0] as GrantAuditRow;
}

/**
 * The attempts on the user's grant `grantId`, newest first, cursor-paginated; empty when the
 * grant is not the user's.
 * @throws RangeError on a bad `limit`; InvalidCursorError on a foreign cursor.
 */
export async function listGrantAudit(
  db: Executor,
  userId: string,
  grantId: string,
  options: PageOptions = {},
): Promise<Page<GrantAuditRow>> {
  const limit = pageLimit(options.limit);
  const before = options.cursor ? decodeNumberCursor("grant_audit", options.cursor) : null;
  const rows = await db
    .select()
    .from(grantAudit)
    .where(
      and(
        eq(grantAudit.userId, userId),
        eq(grantAudit.grantId, grantId),
        before === null ? undefined : lt(grantAudit.id, before),
      ),
    )
    .orderBy(desc(grantAudit.id))
    .limit(limit + 1);
  return toPage(rows, limit, (last) => encodeNumberCursor("grant_audit", last.id));
}

/**
 * Service-wide maintenance: deletes audit rows of attempts with a token that matched no grant
 * (`grant_id` null) recorded before `before`. Rows of real grants are their owners' audit trail
 * and are kept as long as the grant.
 * @returns the number of rows deleted.
 */
export async function deleteUnknownGrantAudit(db: Executor, before: Date): Promise<number> {
  const rows = await db
    .delete(grantAudit)
    .where(and(isNull(grantAudit.grantId), lt(grantAudit.at, before)))
    .returning({ id: grantAudit.id });
  return rows.length;
}
