/**
 * The event feed behind `GET /events` (table `memory_events`, written by the triggers of migration
 * 0003 in the transaction of each change, which also `NOTIFY memory_events, '<user id>'`): reading
 * a user's events after an id, the feed's settled horizon, LISTEN on the channel, and pruning.
 *
 * Why a horizon: event ids come from one sequence, drawn when the triggering statement runs, but
 * transactions commit in any order. A reader that saw id 11 committed must not move its cursor past
 * 11 while the transaction holding id 10 is still open, or it would never see 10. A horizon
 * ({@link eventHorizon}) is an id `lastId` such that, once it is settled, every transaction that
 * drew an id ≤ `lastId` has ended: the rows ≤ `lastId` that any later statement sees are then
 * final, and a cursor may move to `lastId`.
 * @module
 */
import { and, eq, gt, lte, max, or, type SQL, sql } from "drizzle-orm";
import type { Database, Executor } from "../client.js";
import { type MemoryEventRow, memoryEvents } from "../schema/memory-events.js";
import { clientOf } from "./_prepared.js";
import { timestamptz } from "./_sql.js";

/** The NOTIFY channel the feed's triggers signal on; the payload is the user id. */
export const MEMORY_EVENTS_CHANNEL = "memory_events";

/** Largest page of {@link listEventsAfter}. */
export const MAX_EVENT_PAGE = 1000;

/** Options of {@link listEventsAfter}. */
export interface EventListOptions {
  /** Only memory events of exactly this namespace. */
  readonly namespace?: string | undefined;
  /** Only memory events whose namespace starts with this (plain prefix: `_` and `%` are literal). */
  readonly namespacePrefix?: string | undefined;
  /** The caller's confinement (an API key's namespace prefix), applied like `namespacePrefix`. */
  readonly confinedTo?: string | null | undefined;
  /** Only events whose id is ≤ this (a settled horizon, see {@link eventHorizon}). */
  readonly upTo?: number | undefined;
  /** Rows at most: 1–{@link MAX_EVENT_PAGE}, default 500. */
  readonly limit?: number | undefined;
}

/**
 * The user's events with id > `afterId` (and ≤ `upTo`), ascending id. With any namespace filter
 * (`namespace`, `namespacePrefix`, `confinedTo`; all given ones apply together) a memory event
 * passes only when its namespace matches every one of them (a memory without a namespace matches
 * none), while `memory.anchored` events (whole-log, no namespace) always pass. A filter disjoint
 * from the confinement therefore yields the anchored events only.
 * @param afterId an event id (0: from the first event).
 * @returns at most `limit` rows `{ id, userId, type, namespace, data, at }`.
 * @throws RangeError when `afterId` is not a non-negative safe integer or `limit` is out of range.
 */
export async function listEventsAfter(
  db: Executor,
  userId: string,
  afterId: number,
  options: EventListOptions = {},
): Promise<MemoryEventRow[]> {
  if (!Number.isSafeInteger(afterId) || afterId < 0) {
    throw new RangeError(`afterId must be a non-negative safe integer, got ${afterId}`);
  }
  const limit = options.limit ?? 500;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_EVENT_PAGE) {
    throw new RangeError(`limit must be an integer in 1..${MAX_EVENT_PAGE}, got ${limit}`);
  }
  const memoryFilter = and(
    options.namespace === undefined ? undefined : eq(memoryEvents.namespace, options.namespace),
    options.namespacePrefix === undefined ? undefined : startsWith(options.namespacePrefix),
    options.confinedTo == null ? undefined : startsWith(options.confinedTo),
  );
  return db
    .select()
    .from(memoryEvents)
    .where(
      and(
        eq(memoryEvents.userId, userId),
        gt(memoryEvents.id, afterId),
        options.upTo === undefined ? undefined : lte(memoryEvents.id, options.upTo),
        memoryFilter === undefined
          ? undefined
          : or(eq(memoryEvents.type, "memory.anchored"), memoryFilter),
      ),
    )
    .orderBy(memoryEvents.id)
    .limit(limit);
}

/** `namespace` starts with `prefix` (no LIKE pattern, so nothing to escape; null never does). */
function startsWith(prefix: string): SQL {
  return sql`starts_with(${memoryEvents.namespace}, ${prefix})`;
}

/**
 * The id of the user's latest visible event, 0 when the user has none (ids start at 1): where a
 * stream that replays nothing starts.
 */
export async function latestEventId(db: Executor, userId: string): Promise<number> {
  const rows = await db
    .select({ last: max(memoryEvents.id) })
    .from(memoryEvents)
    .where(eq(memoryEvents.userId, userId));
  const last = rows[0]?.last;
  return last === null || last === undefined ? 0 : Number(last);
}

/** A point of the feed's id sequence; see the module comment and {@link eventHorizon}. */
export interface EventHorizon {
  /** Every event id drawn so far is ≤ this (0: none yet). */
  readonly lastId: number;
  /**
   * The next transaction id to be assigned (xid8, decimal) at a moment after `lastId` was read:
   * every transaction that drew an id ≤ `lastId` has a smaller one (a trigger's transaction has
   * its xid before it draws).
   */
  readonly nextXid: string;
  /** True when, as this was read, no transaction that may hold an id ≤ `lastId` was running. */
  readonly settled: boolean;
}

/**
 * Running transactions of this database that hold a granted write lock on `memory_events`, with
 * their xid as `t.transactionid`: only those can hold a drawn but uncommitted event id (a row-lock
 * waiter's ShareLock on another xid does not count). Locks outlive the commit's visibility, so a
 * transaction absent from here is committed (or aborted) for every later statement.
 */
const EVENT_WRITERS = `select 1 from pg_locks r
  join pg_locks t on t.virtualtransaction = r.virtualtransaction and t.locktype = 'transactionid'
    and t.mode = 'ExclusiveLock' and t.granted
  where r.locktype = 'relation' and r.mode = 'RowExclusiveLock' and r.granted
    and r.database = (select oid from pg_database where datname = current_database())
    and r.relation = 'memory_events'::regclass`;

/**
 * Reads a horizon of the feed in two statements, in this order and outside any transaction: the
 * sequence's last drawn id, then the next xid to be assigned (the snapshot's xmin plus its age:
 * `age()` counts from the next xid in a transaction without one; a snapshot's xmax is only the
 * latest completed xid + 1, which a running transaction can exceed) and whether the horizon is
 * settled already (no transaction with an xid running, or none of them writing
 * `memory_events`). When it is not, poll {@link eventHorizonSettled}.
 * @returns `{ lastId, nextXid, settled }`.
 */
export async function eventHorizon(db: Database): Promise<EventHorizon> {
  const [sequence] = await db.execute<{ last_value: string; is_called: boolean }>(
    sql`select last_value::text as last_value, is_called from memory_events_id_seq`,
  );
  const [snapshot] = await db.execute<{ next_xid: string; settled: boolean }>(
    sql.raw(`select next_xid::text as next_xid,
        case when xmin >= next_xid then true else not exists (${EVENT_WRITERS}) end as settled
      from (select pg_snapshot_xmin(s) as xmin,
          (pg_snapshot_xmin(s)::text::numeric + age(pg_snapshot_xmin(s)::xid))::text::xid8 as next_xid
        from pg_current_snapshot() s) snap`),
  );
  if (!sequence || !snapshot) {
    throw new Error("reading the event horizon returned no row");
  }
  return {
    lastId: sequence.is_called ? Number(sequence.last_value) : 0,
    nextXid: snapshot.next_xid,
    settled: snapshot.settled,
  };
}

/**
 * True once every transaction that may hold an event id ≤ `horizon.lastId` has ended: the oldest
 * running transaction is not older than `horizon.nextXid`, or none older writes `memory_events`.
 * Rows ≤ `horizon.lastId` read by any later statement are then final.
 */
export async function eventHorizonSettled(db: Database, horizon: EventHorizon): Promise<boolean> {
  if (horizon.settled) {
    return true;
  }
  // age() compares 32-bit xids modulo wraparound: older means a larger age.
  const [row] = await db.execute<{ settled: boolean }>(
    sql`select case when pg_snapshot_xmin(pg_current_snapshot()) >= ${horizon.nextXid}::xid8
      then true
      else not exists (${sql.raw(EVENT_WRITERS)}
        and age(t.transactionid) > age(${horizon.nextXid}::xid8::xid)) end as settled`,
  );
  return row?.settled === true;
}

/** A LISTEN in place: its `unlisten()` stops the notifications. */
export interface EventListening {
  unlisten(): Promise<void>;
}

/**
 * LISTENs on {@link MEMORY_EVENTS_CHANNEL} through `db`'s postgres.js client, which opens one
 * dedicated connection for it (outside the pool) and, when that connection drops, reconnects and
 * LISTENs again, calling `onListen` each time (notifications sent meanwhile are lost: re-read
 * then). The connection ends with the pool (`DatabaseHandle.close`).
 * @param onNotify called with the user id of each notification.
 * @param onListen called after each successful LISTEN, the first one and every re-LISTEN.
 * @returns the listening once the first LISTEN succeeded.
 * @throws TypeError when `db` was not built by drizzle's postgres-js driver; the connection's
 *   error when the first LISTEN fails (postgres.js keeps retrying, and calls `onListen` when one
 *   succeeds).
 */
export async function listenForEvents(
  db: Database,
  onNotify: (userId: string) => void,
  onListen: () => void,
): Promise<EventListening> {
  const client = clientOf(db);
  if (!client) {
    throw new TypeError("db has no postgres.js client to LISTEN with");
  }
  const meta = await client.listen(MEMORY_EVENTS_CHANNEL, onNotify, onListen);
  return { unlisten: () => meta.unlisten() };
}

/** Rows {@link deleteEventsBefore} deletes per statement (each statement its own transaction). */
const PRUNE_BATCH = 5000;

/**
 * Service-wide maintenance: deletes the events recorded before `before` (retention), oldest first,
 * in statements of at most 5 000 rows. Deletes only ids below the first event recorded at or after
 * `before`, walking the primary key (an event whose transaction started earlier but drew a later
 * id goes on a later pass), so no pass scans the whole table.
 * @returns the number of rows deleted.
 */
export async function deleteEventsBefore(db: Database, before: Date): Promise<number> {
  let deleted = 0;
  for (;;) {
    const [row] = await db.execute<{ n: number }>(sql`with doomed as (
        select id from memory_events
        where id < coalesce(
          (select id from memory_events where at >= ${timestamptz(before)} order by id limit 1),
          9223372036854775807)
        order by id limit ${PRUNE_BATCH}
      ), gone as (
        delete from memory_events e using doomed where e.id = doomed.id returning 1
      )
      select count(*)::int as n from gone`);
    const n = Number(row?.n ?? 0);
    deleted += n;
    if (n < PRUNE_BATCH) {
      return deleted;
    }
  }
}
