/**
 * Master-key queries over all users (docs/security.md "Master-key rotation"): which master key
 * ids the stored data keys name (the start-up check of core-api and extension-api), and the
 * batches `pnpm rotate-master-key` re-wraps. `users.master_key_id` is generated from the wrapped
 * key's bytes (NULL for a version-1 wrap), so these read and write only `wrapped_data_key`.
 * @module
 */
import { and, asc, gt, isNull, type SQL, sql } from "drizzle-orm";
import type { Executor } from "../client.js";
import { users } from "../schema/users.js";

/** How many users' data keys name one master key id. */
export interface MasterKeyIdCount {
  /** 16 hex characters, or null for version-1 wraps (from before key ids). */
  readonly masterKeyId: string | null;
  readonly users: number;
}

/** A user's wrapped data key as stored. */
export interface StoredDataKey {
  readonly userId: string;
  readonly wrappedDataKey: Uint8Array;
}

/** One re-wrapped data key for {@link replaceWrappedDataKeys}. */
export interface DataKeyReplacement {
  readonly userId: string;
  /** The wrapped key as read; the row is only changed while it still holds exactly these bytes. */
  readonly expected: Uint8Array;
  /** The new wrapped key (the same data key under another master key). */
  readonly wrappedDataKey: Uint8Array;
}

/**
 * Users per master key id: `SELECT master_key_id, count(*) FROM users GROUP BY master_key_id`
 * (an index-only scan of users_master_key_id_idx when the visibility map allows), ordered by id
 * with NULL (version-1 wraps) last.
 */
export async function countUsersByMasterKeyId(db: Executor): Promise<MasterKeyIdCount[]> {
  return db
    .select({ masterKeyId: users.masterKeyId, users: sql<number>`count(*)`.mapWith(Number) })
    .from(users)
    .groupBy(users.masterKeyId)
    .orderBy(asc(users.masterKeyId));
}

/**
 * One user whose data key is a version-1 wrap (names no master key id), or null when there is
 * none: the sample the start-up check opens to learn which configured key those wraps are under.
 */
export async function findVersionOneDataKey(db: Executor): Promise<StoredDataKey | null> {
  const rows = await db
    .select({ userId: users.id, wrappedDataKey: users.wrappedDataKey })
    .from(users)
    .where(isNull(users.masterKeyId))
    .limit(1);
  return rows[0] ?? null;
}

/**
 * The next `limit` users, in id order after `after`, whose data key is not wrapped under
 * `masterKeyId` (another id, or a version-1 wrap): one batch of `pnpm rotate-master-key`.
 * @param after the last user id of the previous batch; null to start from the first.
 * @throws RangeError when `limit` is not an integer in 1–10 000.
 */
export async function listDataKeysNotUnder(
  db: Executor,
  masterKeyId: string,
  options: { readonly after: string | null; readonly limit: number },
): Promise<StoredDataKey[]> {
  const { after, limit } = options;
  if (!Number.isInteger(limit) || limit < 1 || limit > 10_000) {
    throw new RangeError(`limit must be an integer in 1–10000, got ${limit}`);
  }
  const notUnder = sql`${users.masterKeyId} is distinct from ${masterKeyId}`;
  const where: SQL | undefined = after === null ? notUnder : and(notUnder, gt(users.id, after));
  return db
    .select({ userId: users.id, wrappedDataKey: users.wrappedDataKey })
    .from(users)
    .where(where)
    .orderBy(asc(users.id))
    .limit(limit);
}

/**
 * Replaces wrapped data keys in one statement (one transaction): each row changes only while it
 * still holds `expected` byte for byte, so a row re-wrapped meanwhile by another run is left
 * alone and a rerun never undoes newer work. The rows are locked in id order first (a
 * materialized `SELECT … ORDER BY id FOR UPDATE`), so two runs replacing overlapping users
 * queue on the first shared row instead of deadlocking (an UPDATE … FROM locks rows in join order).
 * @returns how many rows changed.
 * @throws RangeError when more than 10 000 replacements are given.
 */
export async function replaceWrappedDataKeys(
  db: Executor,
  replacements: readonly DataKeyReplacement[],
): Promise<number> {
  if (replacements.length > 10_000) {
    throw new RangeError(`at most 10000 replacements at once, got ${replacements.length}`);
  }
  if (replacements.length === 0) {
    return 0;
  }
  const rows = sql.join(
    replacements.map(
      (r) =>
        sql`(${r.userId}::text, ${bytes(r.expected)}::bytea, ${bytes(r.wrappedDataKey)}::bytea)`,
    ),
    sql`, `,
  );
  const changed = await db.execute<{ id: string }>(sql`
    with c(id, expected, next) as (values ${rows}),
    locked as materialized (
      select ${users.id} as id from ${users}
      where ${users.id} in (select id from c)
      order by ${users.id}
      for update
    )
    update ${users} set wrapped_data_key = c.next
    from c
    where ${users.id} = c.id and ${users.wrappedDataKey} = c.expected
      and ${users.id} in (select id from locked)
    returning ${users.id}`);
  return changed.length;
}

function bytes(value: Uint8Array): Buffer {
  return Buffer.from(value.buffer, value.byteOffset, value.byteLength);
}
