/**
 * Leader election for the anchor worker: a PostgreSQL session-level advisory lock held on one
 * dedicated connection for the worker's life (docs/protocol.md §7.7 "Leader election and the anchor
 * service's surface"). The server releases the lock when the holder's connection drops, including
 * on kill -9, so a standby that retries takes over.
 * @module
 */
import postgres from "postgres";

/**
 * Advisory lock key of the anchor worker (an arbitrary fixed int8, 0x5356_435f_414e = "SVC_AN");
 * distinct from db-schema's MIGRATION_LOCK_KEY.
 */
export const ANCHOR_LOCK_KEY = 0x5356_435f_414e;

/** A session advisory lock on a dedicated PostgreSQL connection. */
export interface LeaderLock {
  /**
   * Ensures the lock is held: when this session already holds it, true without re-locking;
   * otherwise `pg_try_advisory_lock` (never waits). A connection that dropped since the last call
   * (postgres.js reconnects on the next query) is a new session, which holds nothing, so a lost
   * lock is noticed here.
   * @returns true when this session holds the lock after the call.
   * @throws the PostgreSQL/network error when the database cannot be reached.
   */
  acquire(): Promise<boolean>;
  /** Releases the lock if held (keeps the connection). */
  release(): Promise<void>;
  /** Closes the connection (which releases the lock in any case). */
  close(): Promise<void>;
}

/**
 * Opens the dedicated connection for the lock (lazily, on the first `acquire`). The connection has
 * no idle timeout and no maximum lifetime, so postgres.js never recycles it while the lock is
 * held.
 * @param url PostgreSQL connection URL.
 * @param key advisory lock key (int8), default {@link ANCHOR_LOCK_KEY}.
 * @throws RangeError when `key` is not a safe integer.
 */
export function createLeaderLock(url: string, key: number = ANCHOR_LOCK_KEY): LeaderLock {
  if (!Number.isSafeInteger(key)) {
    throw new RangeError(`key must be a safe integer, got ${key}`);
  }
  const sql = postgres(url, {
    max: 1,
    idle_timeout: 0,
    max_lifetime: null,
    onnotice: () => {},
  });
  // pg_locks shows an int8 advisory key as classid (high 32 bits) and objid (low 32 bits), with
  // objsubid = 1.
  const high = Math.floor(key / 2 ** 32);
  const low = key % 2 ** 32;
  const held = async (): Promise<boolean> => {
    const rows = await sql<{ held: boolean }[]>`
      select exists (
        select 1 from pg_locks
        where locktype = 'advisory' and pid = pg_backend_pid() and granted
          and objsubid = 1 and classid::bigint = ${high} and objid::bigint = ${low}
      ) as held`;
    return rows[0]?.held === true;
  };
  return {
    async acquire() {
      if (await held()) {
        return true;
      }
      const rows = await sql<{ locked: boolean }[]>`
        select pg_try_advisory_lock(${key}::bigint) as locked`;
      return rows[0]?.locked === true;
    },
    async release() {
      if (await held()) {
        await sql`select pg_advisory_unlock(${key}::bigint)`;
      }
    },
    async close() {
      await sql.end({ timeout: 5 });
    },
  };
}
