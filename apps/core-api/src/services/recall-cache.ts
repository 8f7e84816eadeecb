/**
 * The recall cache (issue 5 item 3): a per-process, memory-bounded cache of each user's decrypted
 * log, so that `POST /memories/search` runs at the speed of an in-memory substring scan without
 * any plaintext at rest. Because the log is append-only, a refresh reads only the leaves newer than
 * the newest one held plus the deletions since the last check; the first (cold) load fetches pages
 * of rows while the previous page is being decrypted. Users are evicted least recently used first
 * once the estimated size passes the cap; a log larger than the cap alone is searched and dropped.
 * Plaintext lives only in this process's memory; data keys are never kept here.
 * @module
 */
import { isDeepStrictEqual } from "node:util";
import type { Clock } from "@svc/auth";
import { type Database, listDeletedSince, listMemoriesSince, type Memory } from "@svc/db-schema";
import { openMemoryBody } from "./memory-body.js";

/** One decrypted memory held by the cache. */
export interface RecallEntry {
  readonly id: string;
  readonly leafIndex: number;
  readonly content: string;
  /** `content.toLowerCase()` (the same string when already lower case). */
  readonly folded: string;
  readonly metadata: Readonly<Record<string, unknown>>;
  readonly createdAt: Date;
  readonly leafHash: Uint8Array;
  /** Estimated bytes this entry occupies. */
  readonly bytes: number;
}

/** A recall query (CONTRACT §4 `POST /memories/search`). */
export interface RecallQuery {
  /** Substring to find (non-empty). */
  readonly query: string;
  /** Default false: compare lower-cased. */
  readonly caseSensitive: boolean;
  /** Exact-match filter on top-level metadata keys (deep equality of values). */
  readonly metadata: Readonly<Record<string, unknown>> | undefined;
  /** At most this many results (1–200). */
  readonly limit: number;
}

/** A recall answer: matches newest first, and how many live memories were examined. */
export interface RecallResult {
  readonly items: readonly RecallEntry[];
  readonly scanned: number;
}

/** Options of {@link RecallCache}. */
export interface RecallCacheOptions {
  readonly db: Database;
  readonly clock: Clock;
  /** Cap of the estimated cached bytes over all users (RECALL_CACHE_MAX_BYTES); 0 disables caching. */
  readonly maxBytes: number;
  /** Rows per page of a load; default 5 000. */
  readonly pageSize?: number;
  /**
   * Deletions are re-read from this long before the previous check, so that a deletion whose
   * transaction committed late (or another process's clock) is never missed; default 300 000 ms.
   */
  readonly deletionOverlapMs?: number;
}

/** Cache statistics (tests and metrics). */
export interface RecallCacheStats {
  readonly users: number;
  readonly bytes: number;
  readonly evictions: number;
}

// Fixed per-entry overhead estimate: object, id string, Date, leaf hash and array slot.
const ENTRY_OVERHEAD_BYTES = 240;

/** One user's decrypted log, ascending leaf index; deleted entries become null (tombstones). */
class UserLog {
  readonly entries: (RecallEntry | null)[] = [];
  private readonly positions = new Map<string, number>();
  private tombstones = 0;
  bytes = 0;
  lastLeafIndex = -1;

  constructor(public deletionsCheckedAt: Date) {}

  add(entry: RecallEntry): void {
    this.positions.set(entry.id, this.entries.length);
    this.entries.push(entry);
    this.bytes += entry.bytes;
    this.lastLeafIndex = entry.leafIndex;
  }

  remove(id: string): void {
    const position = this.positions.get(id);
    if (position === undefined) {
      return;
    }
    const entry = this.entries[position];
    this.positions.delete(id);
    if (entry) {
      this.entries[position] = null;
      this.bytes -= entry.bytes;
      this.tombstones++;
    }
    if (this.tombstones > 1024 && this.tombstones * 2 > this.entries.length) {
      this.compact();
    }
  }

  private compact(): void {
    const live = this.entries.filter((e): e is RecallEntry => e !== null);
    this.entries.length = 0;
    this.positions.clear();
    this.tombstones = 0;
    for (const entry of live) {
      this.positions.set(entry.id, this.entries.length);
      this.entries.push(entry);
    }
  }
}

/** The per-process recall cache. One instance per app. */
export class RecallCache {
  private readonly logs = new Map<string, UserLog>();
  private readonly locks = new Map<string, Promise<unknown>>();
  private readonly db: Database;
  private readonly clock: Clock;
  private readonly maxBytes: number;
  private readonly pageSize: number;
  private readonly overlapMs: number;
  private evictions = 0;

  constructor(options: RecallCacheOptions) {
    this.db = options.db;
    this.clock = options.clock;
    this.maxBytes = options.maxBytes;
    this.pageSize = options.pageSize ?? 5000;
    this.overlapMs = options.deletionOverlapMs ?? 300_000;
    if (!Number.isSafeInteger(this.maxBytes) || this.maxBytes < 0) {
      throw new RangeError(`maxBytes must be a non-negative integer, got ${this.maxBytes}`);
    }
    if (!Number.isInteger(this.pageSize) || this.pageSize < 1 || this.pageSize > 10_000) {
      throw new RangeError(`pageSize must be an integer in [1, 10000], got ${this.pageSize}`);
    }
  }

  /**
   * Searches the user's live memories: brings the cached log up to date (new leaves, deletions),
   * then scans it newest first until `limit` matches.
   * @param dataKey the user's unwrapped data key (used to decrypt new leaves; not kept).
   * @throws DecryptionError when a stored body does not open (a damaged row); database errors.
   */
  search(userId: string, dataKey: Uint8Array, query: RecallQuery): Promise<RecallResult> {
    return this.exclusive(userId, async () => {
      const log = await this.refresh(userId, dataKey);
      const result = scan(log, query);
      this.keep(userId, log);
      return result;
    });
  }

  /** Drops a deleted memory from the user's cached log at once (this process's own deletes). */
  forget(userId: string, memoryId: string): void {
    this.logs.get(userId)?.remove(memoryId);
  }

  /** Users cached, estimated bytes, evictions so far. */
  stats(): RecallCacheStats {
    let bytes = 0;
    for (const log of this.logs.values()) {
      bytes += log.bytes;
    }
    return { users: this.logs.size, bytes, evictions: this.evictions };
  }

  /** Runs `task` after every earlier task of the same user (refreshes never interleave). */
  private exclusive<T>(userId: string, task: () => Promise<T>): Promise<T> {
    const previous = this.locks.get(userId) ?? Promise.resolve();
    const run = previous.then(task, task);
    const settled = run.then(
      () => undefined,
      () => undefined,
    );
    this.locks.set(userId, settled);
    void settled.then(() => {
      if (this.locks.get(userId) === settled) {
        this.locks.delete(userId);
      }
    });
    return run;
  }

  /** The user's log brought up to date: new leaves in pages, then deletions since the last check. */
  private async refresh(userId: string, dataKey: Uint8Array): Promise<UserLog> {
    const checkStartedAt = this.clock.now().getTime();
    const log = this.logs.get(userId) ?? new UserLog(new Date(checkStartedAt - this.overlapMs));
    let next = listMemoriesSince(this.db, userId, log.lastLeafIndex, this.pageSize);
    for (;;) {
      const rows = await next;
      const last = rows[rows.length - 1];
      const more = rows.length === this.pageSize && last !== undefined;
      if (more) {
        // Fetch the next page while this one is decrypted.
        next = listMemoriesSince(this.db, userId, last.leafIndex, this.pageSize);
      }
      for (const row of rows) {
        log.add(decryptEntry(userId, dataKey, row));
      }
      if (!more) {
        break;
      }
    }
    for (const deleted of await listDeletedSince(this.db, userId, log.deletionsCheckedAt)) {
      log.remove(deleted.id);
    }
    log.deletionsCheckedAt = new Date(checkStartedAt - this.overlapMs);
    return log;
  }

  /** Keeps `log` as the most recently used, then evicts least recently used users past the cap. */
  private keep(userId: string, log: UserLog): void {
    this.logs.delete(userId);
    if (log.bytes > this.maxBytes) {
      return;
    }
    this.logs.set(userId, log);
    let total = this.stats().bytes;
    for (const [otherId, other] of this.logs) {
      if (total <= this.maxBytes) {
        break;
      }
      this.logs.delete(otherId);
      total -= other.bytes;
      this.evictions++;
    }
  }
}

function decryptEntry(userId: string, dataKey: Uint8Array, row: Memory): RecallEntry {
  if (row.ciphertext === null || row.iv === null) {
    throw new Error(`memory ${row.id} has no body although it is not deleted`);
  }
  const body = openMemoryBody(
    dataKey,
    { ciphertext: row.ciphertext, iv: row.iv },
    { userId, memoryId: row.id },
  );
  const folded = body.content.toLowerCase();
  const textBytes = 2 * (body.content.length + (folded === body.content ? 0 : folded.length));
  return {
    id: row.id,
    leafIndex: row.leafIndex,
    content: body.content,
    folded: folded === body.content ? body.content : folded,
    metadata: row.metadata,
    createdAt: row.createdAt,
    leafHash: row.leafHash,
    bytes: ENTRY_OVERHEAD_BYTES + textBytes + 2 * JSON.stringify(row.metadata).length,
  };
}

/** Newest-first substring scan with the metadata filter, stopping at `limit` matches. */
function scan(log: UserLog, query: RecallQuery): RecallResult {
  const needle = query.caseSensitive ? query.query : query.query.toLowerCase();
  const filter = query.metadata ? Object.entries(query.metadata) : [];
  const items: RecallEntry[] = [];
  let scanned = 0;
  for (let i = log.entries.length - 1; i >= 0 && items.length < query.limit; i--) {
    const entry = log.entries[i];
    if (!entry) {
      continue;
    }
    scanned++;
    const text = query.caseSensitive ? entry.content : entry.folded;
    if (!text.includes(needle)) {
      continue;
    }
    if (
      filter.every(
        ([key, value]) =>
          Object.hasOwn(entry.metadata, key) && isDeepStrictEqual(entry.metadata[key], value),
      )
    ) {
      items.push(entry);
    }
  }
  return { items, scanned };
}
