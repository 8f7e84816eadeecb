/**
 * The live event feed behind `GET /events` (docs/api.md "Events"): one {@link EventHub} per
 * process holds one dedicated PostgreSQL connection that `LISTEN`s on `memory_events` and fans the
 * notifications (payload: a user id) out to that user's open {@link EventFeed}s. The events
 * themselves always come from the `memory_events` table (written by triggers in the transaction of
 * each change, whichever process made it), so several core-api instances each see every event,
 * and a feed resumes exactly after any event id.
 *
 * Ordering: event ids are drawn before their transactions commit, and commits come in any order.
 * A feed therefore reads only up to a settled horizon (see `eventHorizon` in @verifiable-memory/db-schema): an
 * id below which no transaction is still open. Events arrive in ascending id order, with no gap
 * that could be filled later, so `Last-Event-ID` resumption loses nothing.
 *
 * Reconnects: when the LISTEN connection drops, postgres.js reconnects and LISTENs again; the hub
 * then has every open feed re-read, so notifications lost meanwhile lose no event.
 * @module
 */
import {
  type Database,
  type EventHorizon,
  type EventListening,
  eventHorizon,
  eventHorizonSettled,
  latestEventId,
  listEventsAfter,
  listenForEvents,
  MAX_EVENT_PAGE,
  type MemoryEventRow,
  type MemoryEventType,
} from "@verifiable-memory/db-schema";

/** One event of a user's feed. */
export interface MemoryEvent {
  /** The event id: the SSE `id`, ascending within a feed. */
  readonly id: number;
  readonly type: MemoryEventType;
  /**
   * `memory.created`: `{ id, leafIndex, namespace, createdAt, supersedes }`; `memory.deleted`:
   * `{ id, leafIndex, namespace }`; `memory.anchored`: `{ treeSize, rootHash, signature }`.
   */
  readonly data: Record<string, unknown>;
}

/**
 * Which events a feed carries. Every given namespace filter applies (their intersection); memory
 * events without a namespace match none; `memory.anchored` events always pass.
 */
export interface EventFilter {
  /** Only memory events of exactly this namespace. */
  readonly namespace?: string | undefined;
  /** Only memory events whose namespace starts with this. */
  readonly namespacePrefix?: string | undefined;
  /** The caller's confinement (an API key's namespace prefix); null: none. */
  readonly confinedTo?: string | null | undefined;
}

/** What the hub logs (a pino logger fits). */
export interface EventHubLogger {
  warn(details: object, message: string): void;
}

/** Options of {@link EventHub}. */
export interface EventHubOptions {
  /** The database the feed is read from, and whose postgres.js client LISTENs. */
  readonly db: Database;
  readonly logger?: EventHubLogger;
  /**
   * How long to wait at most for the transactions that may hold an unsettled event id, ms; past
   * it the feeds read anyway (and a transaction that commits later still can have its events
   * skipped). Default 5 000.
   */
  readonly settleTimeoutMs?: number;
  /** Delay before retrying after a failed read of the horizon, ms; default 1 000. */
  readonly retryMs?: number;
  /** Events read per query by a feed: 1–1000, default 500. */
  readonly pageSize?: number;
  /** How the hub LISTENs (default `listenForEvents` of @verifiable-memory/db-schema). */
  readonly listen?: typeof listenForEvents;
}

/** Input of {@link EventHub.open}. */
export interface OpenFeedInput {
  /** Whose events. */
  readonly userId: string;
  /**
   * Replay the events after this id (a `Last-Event-ID`); null: start after the user's latest
   * event (only new events).
   */
  readonly afterId: number | null;
  readonly filter?: EventFilter;
}

/**
 * The process's event hub. It LISTENs lazily (from the first {@link open}) and until
 * {@link close}; each notification, and each (re-)LISTEN, starts a round: read a horizon of the
 * event ids, wait until it is settled, then let the woken users' feeds read up to it.
 */
export class EventHub {
  readonly #db: Database;
  readonly #logger: EventHubLogger | undefined;
  readonly #settleTimeoutMs: number;
  readonly #retryMs: number;
  readonly #pageSize: number;
  readonly #listen: typeof listenForEvents;
  readonly #feeds = new Map<string, Set<EventFeed>>();
  /** Users whose feeds wait for the next round. */
  #pending = new Set<string>();
  #roundsRunning = false;
  #listening: Promise<EventListening | null> | null = null;
  #listenCount = 0;
  /** True once the first LISTEN call settled (succeeded or failed). */
  #listened = false;
  #closed = false;
  readonly #timers = new Set<{ timer: NodeJS.Timeout; wake: () => void }>();

  /**
   * @throws RangeError when `settleTimeoutMs`, `retryMs` or `pageSize` is out of range.
   */
  constructor(options: EventHubOptions) {
    this.#db = options.db;
    this.#logger = options.logger;
    this.#settleTimeoutMs = options.settleTimeoutMs ?? 5000;
    this.#retryMs = options.retryMs ?? 1000;
    this.#pageSize = options.pageSize ?? 500;
    this.#listen = options.listen ?? listenForEvents;
    for (const [name, value] of [
      ["settleTimeoutMs", this.#settleTimeoutMs],
      ["retryMs", this.#retryMs],
    ] as const) {
      if (!Number.isFinite(value) || value < 0) {
        throw new RangeError(`${name} must be a non-negative number of ms, got ${value}`);
      }
    }
    if (!Number.isInteger(this.#pageSize) || this.#pageSize < 1) {
      throw new RangeError(`pageSize must be a positive integer, got ${this.#pageSize}`);
    }
    if (this.#pageSize > MAX_EVENT_PAGE) {
      throw new RangeError(`pageSize must be at most ${MAX_EVENT_PAGE}, got ${this.#pageSize}`);
    }
  }

  /** Feeds open right now. */
  get openFeeds(): number {
    let n = 0;
    for (const feeds of this.#feeds.values()) {
      n += feeds.size;
    }
    return n;
  }

  /** How many times the LISTEN succeeded (1 after the first, +1 after each reconnect). */
  get listenCount(): number {
    return this.#listenCount;
  }

  /**
   * Opens a feed of `userId`'s events after `afterId` (or after the latest one), filtered by
   * `filter`. The feed reads its first events (a replay) in the next round, at once.
   * @returns the feed: iterate it (`for await`), `close()` it when the reader goes away.
   * @throws Error when the hub is closed; RangeError when `afterId` is not a non-negative safe
   *   integer; the database's error when reading the latest event id fails.
   */
  async open(input: OpenFeedInput): Promise<EventFeed> {
    if (this.#closed) {
      throw new Error("the event hub is closed");
    }
    const { afterId } = input;
    if (afterId !== null && (!Number.isSafeInteger(afterId) || afterId < 0)) {
      throw new RangeError(`afterId must be a non-negative safe integer, got ${afterId}`);
    }
    this.#startListening();
    const start = afterId ?? (await latestEventId(this.#db, input.userId));
    if (this.#closed) {
      throw new Error("the event hub is closed");
    }
    const feed = new EventFeed({
      userId: input.userId,
      cursor: start,
      read: (after, upTo) =>
        listEventsAfter(this.#db, input.userId, after, {
          ...input.filter,
          upTo,
          limit: this.#pageSize,
        }),
      pageSize: this.#pageSize,
      onClose: (closed) => this.#remove(closed),
    });
    let feeds = this.#feeds.get(input.userId);
    if (!feeds) {
      feeds = new Set();
      this.#feeds.set(input.userId, feeds);
    }
    feeds.add(feed);
    this.#wake([input.userId]);
    return feed;
  }

  /**
   * Shutdown: ends every open feed (their iterations finish, so the streams end), stops the
   * LISTEN and refuses new feeds. The LISTEN connection itself closes with the database's pool.
   * Idempotent.
   */
  async close(): Promise<void> {
    if (this.#closed) {
      return;
    }
    this.#closed = true;
    for (const feeds of [...this.#feeds.values()]) {
      for (const feed of [...feeds]) {
        feed.close();
      }
    }
    this.#feeds.clear();
    this.#pending.clear();
    for (const { timer, wake } of this.#timers) {
      clearTimeout(timer);
      wake();
    }
    this.#timers.clear();
    if (this.#listened) {
      const listening = await this.#listening;
      await listening?.unlisten().catch(() => {});
    } else {
      // The first LISTEN is still under way (or retried by postgres.js): not waited for.
      void this.#listening?.then((listening) => listening?.unlisten().catch(() => {}));
    }
  }

  /** LISTENs once, from the first feed on; postgres.js re-LISTENs after a reconnect. */
  #startListening(): void {
    if (this.#listening) {
      return;
    }
    this.#listening = this.#listen(
      this.#db,
      (userId) => {
        if (this.#feeds.has(userId)) {
          this.#wake([userId]);
        }
      },
      () => {
        this.#listenCount++;
        // Notifications may have been missed while not listening: every feed re-reads.
        this.#wake([...this.#feeds.keys()]);
      },
    )
      .catch((error: unknown) => {
        // postgres.js retries the LISTEN when its connection comes back and calls onListen then.
        this.#logger?.warn({ err: error }, "LISTEN memory_events failed; postgres.js retries it");
        return null;
      })
      .finally(() => {
        this.#listened = true;
      });
  }

  #remove(feed: EventFeed): void {
    const feeds = this.#feeds.get(feed.userId);
    feeds?.delete(feed);
    if (feeds?.size === 0) {
      this.#feeds.delete(feed.userId);
    }
  }

  /** Queues `userIds` for the next round and runs rounds until none is queued. */
  #wake(userIds: Iterable<string>): void {
    if (this.#closed) {
      return;
    }
    for (const userId of userIds) {
      this.#pending.add(userId);
    }
    this.#kick();
  }

  /** Runs rounds while users are queued (one runner at a time). */
  #kick(): void {
    if (this.#roundsRunning || this.#closed || this.#pending.size === 0) {
      return;
    }
    this.#roundsRunning = true;
    this.#runRounds()
      .catch((error: unknown) => {
        this.#logger?.warn({ err: error }, "an event round failed");
      })
      .finally(() => {
        this.#roundsRunning = false;
        // A wake between the loop's last check and here queued users without a runner.
        this.#kick();
      });
  }

  async #runRounds(): Promise<void> {
    while (!this.#closed && this.#pending.size > 0) {
      const users = this.#pending;
      this.#pending = new Set();
      let upTo: number;
      try {
        upTo = await this.#settledHorizon();
      } catch (error) {
        this.#logger?.warn({ err: error }, "reading the event horizon failed; retrying");
        for (const userId of users) {
          this.#pending.add(userId);
        }
        await this.#sleep(this.#retryMs);
        continue;
      }
      for (const userId of users) {
        for (const feed of this.#feeds.get(userId) ?? []) {
          feed.advance(upTo);
        }
      }
    }
  }

  /** A horizon of the event ids, once settled (or once `settleTimeoutMs` passed). */
  async #settledHorizon(): Promise<number> {
    const horizon: EventHorizon = await eventHorizon(this.#db);
    const started = Date.now();
    let delay = 5;
    while (!this.#closed && !(await eventHorizonSettled(this.#db, horizon))) {
      if (Date.now() - started >= this.#settleTimeoutMs) {
        this.#logger?.warn(
          { lastId: horizon.lastId, waitedMs: Date.now() - started },
          "a transaction writing memory_events is still open; events are read without waiting for it",
        );
        break;
      }
      await this.#sleep(delay);
      delay = Math.min(delay * 2, 200);
    }
    return horizon.lastId;
  }

  /** Sleeps `ms`, or less when the hub closes. */
  #sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const entry = {
        timer: setTimeout(() => {
          this.#timers.delete(entry);
          resolve();
        }, ms),
        wake: resolve,
      };
      entry.timer.unref();
      this.#timers.add(entry);
    });
  }
}

/**
 * One reader's feed: the events of one user after a cursor, in ascending id order, read from the
 * database a page at a time as the reader pulls them (a slow reader holds no backlog in memory).
 * Iterate it with `for await`; the iteration ends when the feed (or its hub) is closed, and throws
 * the database's error when a read fails (the reader may resume from the last id it got).
 */
export class EventFeed implements AsyncIterable<MemoryEvent> {
  /** Whose events. */
  readonly userId: string;
  readonly #read: (afterId: number, upTo: number) => Promise<MemoryEventRow[]>;
  readonly #pageSize: number;
  readonly #onClose: (feed: EventFeed) => void;
  /** Every event ≤ this was delivered or filtered out. */
  #cursor: number;
  /** The settled horizon the feed may read up to. */
  #upTo = 0;
  #queue: MemoryEvent[] = [];
  #wake: (() => void) | null = null;
  #closed = false;

  /** Built by {@link EventHub.open}. */
  constructor(init: {
    userId: string;
    cursor: number;
    read: (afterId: number, upTo: number) => Promise<MemoryEventRow[]>;
    pageSize: number;
    onClose: (feed: EventFeed) => void;
  }) {
    this.userId = init.userId;
    this.#cursor = init.cursor;
    this.#read = init.read;
    this.#pageSize = init.pageSize;
    this.#onClose = init.onClose;
  }

  /**
   * Where the feed stands: every event with an id ≤ this was delivered or does not match (an id
   * to resume after). At the start, the `afterId` it was opened with, or the latest event id.
   */
  get position(): number {
    const next = this.#queue[0];
    return next ? next.id - 1 : this.#cursor;
  }

  /** True once closed (by its reader or its hub). */
  get closed(): boolean {
    return this.#closed;
  }

  /** Lets the feed read up to `upTo`, a settled horizon (called by the hub). */
  advance(upTo: number): void {
    if (upTo > this.#upTo) {
      this.#upTo = upTo;
      this.#wake?.();
    }
  }

  /** Ends the feed: a pending or later `next()` resolves done. Idempotent. */
  close(): void {
    if (this.#closed) {
      return;
    }
    this.#closed = true;
    this.#queue = [];
    this.#onClose(this);
    this.#wake?.();
  }

  /**
   * The next event, waiting as long as none is there.
   * @returns the event, or null once the feed is closed.
   * @throws the database's error when reading fails (the feed stays usable).
   */
  async next(): Promise<MemoryEvent | null> {
    for (;;) {
      if (this.#closed) {
        return null;
      }
      const queued = this.#queue.shift();
      if (queued) {
        return queued;
      }
      if (this.#cursor < this.#upTo) {
        const upTo = this.#upTo;
        const rows = await this.#read(this.#cursor, upTo);
        if (this.#closed) {
          return null;
        }
        for (const row of rows) {
          this.#queue.push({ id: row.id, type: row.type, data: row.data });
        }
        const last = rows.at(-1);
        this.#cursor = rows.length === this.#pageSize && last ? last.id : upTo;
        continue;
      }
      await new Promise<void>((resolve) => {
        this.#wake = resolve;
      });
      this.#wake = null;
    }
  }

  [Symbol.asyncIterator](): AsyncIterator<MemoryEvent> {
    return {
      next: async () => {
        const value = await this.next();
        return value === null ? { done: true, value: undefined } : { done: false, value };
      },
      return: async () => {
        this.close();
        return { done: true, value: undefined };
      },
    };
  }
}
