/**
 * The recall cache: a per-process, memory-bounded cache of each user's decrypted log
 * (user-log.ts), so that `POST /memories/search` runs at the speed of an in-memory scan
 * (search.ts) without any plaintext at rest. Because the log is append-only, a refresh reads only
 * the leaves newer than the newest one held plus the deletions since the last check, both in ONE
 * statement (`readRecallPage`); when neither exists the refresh changes nothing. The first (cold)
 * load reads the user's recall segments, then streams pages of the few columns it needs and
 * decrypts each row as it arrives, while PostgreSQL is still producing the next ones. Full leaf
 * ranges, and the leaves after them as one tail segment, are sealed in the background. Users are evicted least recently used first
 * once the estimated size (sizes.ts) passes the cap; a log larger than the cap alone is searched
 * and dropped. Data keys are never kept here. The only part of recall that reads the database.
 * @module
 */
import { isAscii } from "node:buffer";
import type { Clock } from "@verifiable-memory/clock";
import {
  type Database,
  listSupersededBefore,
  type RecallRow,
  readRecallPage,
  type StoredVector,
  sealRecallSegment,
  streamMemoryVectors,
  streamRecallSegments,
} from "@verifiable-memory/db-schema";
import { decryptBody, decryptVector } from "@verifiable-memory/envelope-crypto";
import { SALT_BYTES } from "../memory-body.js";
import { type LeafRange, openSegment, sealSegment } from "../segments.js";
import { type LexicalAnalyser, lexicalAnalyser, type RecallLanguage } from "./lexical-analyser.js";
import { segmentEntries } from "./log-segments.js";
import { loadVectorSegments, sealVectorRanges } from "./sealed-vectors.js";
import { scan } from "./search.js";
import { TAIL_ENTRIES } from "./text-blocks.js";
import type { QueryVector, RecallQuery, RecallResult } from "./types.js";
import { UserLog } from "./user-log.js";
import { VectorStore } from "./vector-store.js";

/** Options of {@link RecallCache}. */
export interface RecallCacheOptions {
  readonly db: Database;
  readonly clock: Clock;
  /** Cap of the estimated cached bytes over all users (RECALL_CACHE_MAX_BYTES); 0 disables caching. */
  readonly maxBytes: number;
  /**
   * Leaves per recall segment (docs/data-model.md "Recall segments"): once a user's log holds a
   * full aligned range, it is sealed in the background, and cold loads read segments first. The
   * leaves after the last full range are sealed as one tail segment once they number at least
   * a sixteenth of this (replaced as the tail grows, and by the full range once it is whole).
   * Default 4 096; 0 turns segments off (neither sealed nor read).
   */
  readonly segmentLeaves?: number;
  /**
   * The language of relevance ranking's lexical analyser (RECALL_LANGUAGE): `en` (default: English
   * stop words, Porter stems) or `none` (plain words).
   */
  readonly language?: RecallLanguage;
  /** Rows per page of a load; default 10 000. */
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
  /** Segments this process sealed, and background seals that failed (retried later). */
  readonly segmentsSealed: number;
  /** Vector segments this process sealed. */
  readonly vectorSegmentsSealed: number;
  readonly sealFailures: number;
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
  private readonly analyser: LexicalAnalyser;
  private evictions = 0;
  private readonly segmentLeaves: number;
  private segmentsSealed = 0;
  private vectorSegmentsSealed = 0;
  private sealFailures = 0;
  /** Users whose segments are being sealed by this process. */
  private readonly sealing = new Set<string>();

  constructor(options: RecallCacheOptions) {
    this.db = options.db;
    this.clock = options.clock;
    this.maxBytes = options.maxBytes;
    this.pageSize = options.pageSize ?? 10_000;
    this.overlapMs = options.deletionOverlapMs ?? 300_000;
    this.segmentLeaves = options.segmentLeaves ?? 4096;
    this.analyser = lexicalAnalyser(options.language ?? "en");
    if (!Number.isSafeInteger(this.segmentLeaves) || this.segmentLeaves < 0) {
      throw new RangeError(
        `segmentLeaves must be a non-negative integer, got ${this.segmentLeaves}`,
      );
    }
    if (!Number.isSafeInteger(this.maxBytes) || this.maxBytes < 0) {
      throw new RangeError(`maxBytes must be a non-negative integer, got ${this.maxBytes}`);
    }
    if (!Number.isInteger(this.pageSize) || this.pageSize < 1 || this.pageSize > 10_000) {
      throw new RangeError(`pageSize must be an integer in [1, 10000], got ${this.pageSize}`);
    }
  }

  /**
   * Searches the user's live memories: brings the cached log up to date (new leaves, deletions),
   * then scans it newest first until `limit` matches. A warm search scans the cached log while
   * the refresh's statement is at PostgreSQL, and keeps that answer when the refresh changed
   * nothing (otherwise it scans again): the round trip and the scan overlap instead of adding up.
   * @param dataKey the user's unwrapped data key (used to decrypt new leaves; not kept).
   * @throws DecryptionError when a stored body does not open (a damaged row); database errors.
   */
  search(userId: string, dataKey: Uint8Array, query: RecallQuery): Promise<RecallResult> {
    return this.exclusive(userId, async () => {
      const cached = this.logs.get(userId);
      const changesBefore = cached?.changes;
      const refreshing = this.refresh(userId, dataKey);
      const vector =
        query.rank === "semantic" || query.rank === "hybrid" ? query.vector : undefined;
      let early: RecallResult | undefined;
      if (cached !== undefined && vector === undefined) {
        // Handled below; this keeps a failed refresh from being reported unhandled meanwhile.
        refreshing.catch(() => undefined);
        await statementSent();
        early = scan(cached, query);
      }
      const log = await refreshing;
      if (vector !== undefined) {
        await this.refreshVectors(userId, dataKey, log, vector);
      }
      const result =
        early !== undefined && log === cached && log.changes === changesBefore
          ? early
          : scan(log, query);
      this.keep(userId, log);
      if (
        (this.rangesUnsealed(log) || this.vectorRangesUnsealed(log)) &&
        !this.sealing.has(userId)
      ) {
        // Off the request path: the answer does not wait; a failure is retried next time.
        void this.sealRanges(userId, dataKey, log).catch(() => {
          this.sealFailures++;
        });
      }
      return result;
    });
  }

  /**
   * Seals every full aligned range of the user's log not sealed yet, then its tail when long
   * enough (what searches start in the background), and waits for it: tests, benchmarks and
   * rebuilds.
   * @returns how many segments this call inserted or replaced (0 when another instance sealed
   *   them first).
   * @throws database errors; DecryptionError when a stored body does not open.
   */
  seal(userId: string, dataKey: Uint8Array): Promise<number> {
    return this.exclusive(userId, async () => {
      const log = await this.refresh(userId, dataKey);
      this.keep(userId, log);
      return this.sealRanges(userId, dataKey, log);
    });
  }

  private fullRangesUnsealed(log: UserLog): boolean {
    return this.segmentLeaves > 0 && log.sealedEnd + this.segmentLeaves <= log.lastLeafIndex + 1;
  }

  /** Whether a full range, or a sixteenth of one after the sealed leaves, is unsealed. */
  private rangesUnsealed(log: UserLog): boolean {
    const sealed = Math.max(log.sealedEnd, log.tailSealedEnd);
    return (
      this.fullRangesUnsealed(log) ||
      (this.segmentLeaves > 0 &&
        log.lastLeafIndex + 1 - sealed >= Math.max(1, this.segmentLeaves >>> 4))
    );
  }

  /** Whether the log's vectors lack segments for a range whose content is sealed. */
  private vectorRangesUnsealed(log: UserLog): boolean {
    const store = log.vectors;
    return (
      this.segmentLeaves > 0 &&
      store !== null &&
      store.sealedEnd + this.segmentLeaves <= log.sealedEnd
    );
  }

  /**
   * Seals the vectors (of the model the log holds) of every full range whose content is sealed
   * and whose vectors are not (what semantic and hybrid searches start in the background), and
   * waits for it: tests, benchmarks and rebuilds. Nothing before a semantic or hybrid search
   * loaded the log's vectors.
   * @returns how many vector segments this call inserted.
   * @throws database errors; DecryptionError when a stored vector does not open.
   */
  sealVectors(userId: string, dataKey: Uint8Array): Promise<number> {
    return this.exclusive(userId, async () => {
      const log = await this.refresh(userId, dataKey);
      this.keep(userId, log);
      const store = log.vectors;
      if (store === null) {
        return 0;
      }
      const inserted = await sealVectorRanges(
        this.db,
        userId,
        dataKey,
        log,
        store,
        this.segmentLeaves,
      );
      this.vectorSegmentsSealed += inserted;
      return inserted;
    });
  }

  /**
   * Seals the log's full ranges from `log.sealedEnd` on, in order, then the leaves after them as
   * one tail segment when {@link rangesUnsealed} still holds, each in its own transaction
   * (`sealRecallSegment`: the live ids read FOR SHARE, so a deleted memory is never sealed; a
   * longer range replaces a tail segment at the same first leaf). The entries come from `log`,
   * which holds every live memory up to its last leaf. Then the vectors of the full
   * ranges, when the log holds a model's (`sealVectorRanges`).
   */
  private async sealRanges(userId: string, dataKey: Uint8Array, log: UserLog): Promise<number> {
    this.sealing.add(userId);
    let inserted = 0;
    const sealRange = async (range: LeafRange) => {
      const done = await sealRecallSegment(this.db, userId, range, (liveIds) => {
        const { entries, contents } = segmentEntries(log, range, liveIds);
        return sealSegment(dataKey, userId, range, entries, contents);
      });
      if (done) {
        inserted++;
        this.segmentsSealed++;
      }
    };
    try {
      while (this.fullRangesUnsealed(log)) {
        const range = { firstLeaf: log.sealedEnd, endLeaf: log.sealedEnd + this.segmentLeaves };
        await sealRange(range);
        log.sealedEnd = Math.max(log.sealedEnd, range.endLeaf);
      }
      if (this.rangesUnsealed(log)) {
        const range = { firstLeaf: log.sealedEnd, endLeaf: log.lastLeafIndex + 1 };
        await sealRange(range);
        log.tailSealedEnd = Math.max(log.tailSealedEnd, range.endLeaf);
      }
      if (log.vectors !== null) {
        this.vectorSegmentsSealed += await sealVectorRanges(
          this.db,
          userId,
          dataKey,
          log,
          log.vectors,
          this.segmentLeaves,
        );
      }
    } finally {
      this.sealing.delete(userId);
    }
    return inserted;
  }

  /**
   * Brings the log's vectors of `vector.modelId` up to date: all of them on first use (or when
   * the model changed: the other model's are dropped, never compared), the model's vector
   * segments first and the stored vectors above them next; then those stored since the last check
   * less the deletion overlap (a vector committed late, or whose memory this log did not hold yet,
   * is read again). Each is opened under the data key and quantised.
   * @throws DecryptionError when a stored vector does not open; database errors.
   */
  private async refreshVectors(
    userId: string,
    dataKey: Uint8Array,
    log: UserLog,
    vector: QueryVector,
  ): Promise<void> {
    const checkStartedAt = this.clock.now().getTime();
    if (log.vectors?.modelId !== vector.modelId) {
      log.bytes -= log.vectors?.bytes ?? 0;
      log.vectors = new VectorStore(vector.modelId, vector.values.length);
      log.bytes += log.vectors.bytes;
      log.vectorsCheckedAt = null;
    }
    const store = log.vectors;
    const fromLeaf =
      log.vectorsCheckedAt === null && this.segmentLeaves > 0
        ? await loadVectorSegments(this.db, userId, dataKey, log, store)
        : 0;
    const context = { userId, memoryId: "", modelId: vector.modelId };
    const visit = (row: StoredVector) => {
      const position = log.positionOfLeaf(row.leafIndex);
      if (
        log.leafIndexes[position] !== row.leafIndex ||
        !log.isLive(position) ||
        store.has(position)
      ) {
        return;
      }
      context.memoryId = row.memoryId;
      const values = decryptVector(dataKey, row, context);
      if (values.length !== store.dimensions) {
        return;
      }
      log.bytes += store.add(position, values);
      log.changes++;
      if (row.leafIndex < store.sealedEnd) {
        // Its range's vector segment was dropped when it was stored: seal that range again.
        store.sealedEnd = row.leafIndex - (row.leafIndex % this.segmentLeaves);
      }
    };
    await streamMemoryVectors(
      this.db,
      userId,
      vector.modelId,
      log.vectorsCheckedAt,
      visit,
      fromLeaf,
    );
    log.vectorsCheckedAt = new Date(checkStartedAt - this.overlapMs);
  }

  /** Drops a deleted memory from the user's cached log at once (this process's own deletes). */
  forget(userId: string, memoryId: string): void {
    this.logs.get(userId)?.removeId(memoryId);
  }

  /** Users cached, estimated bytes, evictions so far. */
  stats(): RecallCacheStats {
    let bytes = 0;
    for (const log of this.logs.values()) {
      bytes += log.bytes;
    }
    return {
      users: this.logs.size,
      bytes,
      evictions: this.evictions,
      segmentsSealed: this.segmentsSealed,
      vectorSegmentsSealed: this.vectorSegmentsSealed,
      sealFailures: this.sealFailures,
    };
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

  /**
   * The user's log brought up to date: pages of new leaves, decrypted as they stream in; the
   * first page's statement also reads the deletions since the last check (a cold log has none
   * to apply: its pages hold live rows only).
   */
  private async refresh(userId: string, dataKey: Uint8Array): Promise<UserLog> {
    const checkStartedAt = this.clock.now().getTime();
    const cached = this.logs.get(userId);
    const log = cached ?? new UserLog(new Date(checkStartedAt - this.overlapMs), this.analyser);
    const context = { userId, memoryId: "" };
    const add = (row: RecallRow) => {
      context.memoryId = row.id;
      const plaintext = decryptBody(dataKey, row, context);
      if (plaintext.length < SALT_BYTES) {
        throw new RangeError(`memory ${row.id}: plaintext shorter than its salt`);
      }
      const body = plaintext.subarray(SALT_BYTES);
      log.add(row, decoder.decode(body), isAscii(body));
    };
    if (!cached && this.segmentLeaves > 0) {
      await this.loadSegments(userId, dataKey, log);
    }
    let deletedSince: Date | null = cached ? log.deletionsCheckedAt : null;
    for (;;) {
      const page = await readRecallPage(
        this.db,
        userId,
        { afterLeafIndex: log.lastLeafIndex, limit: this.pageSize, deletedSince },
        add,
      );
      for (const leafIndex of page.deletedLeafIndexes) {
        log.removeLeaf(leafIndex);
      }
      deletedSince = null;
      if (page.rows < this.pageSize) {
        break;
      }
    }
    log.sealTail(TAIL_ENTRIES);
    log.deletionsCheckedAt = new Date(checkStartedAt - this.overlapMs);
    return log;
  }

  /**
   * A cold load's first part: the user's segments, in one query, from leaf 0 while they follow
   * one another, each opened and decoded into the log; then the superseded marks of their
   * memories (segments do not keep that mutable field), read meanwhile. The rows after them come
   * next. A last segment shorter than a full range is the tail segment: the full range is sealed
   * from its first leaf once whole.
   */
  private async loadSegments(userId: string, dataKey: Uint8Array, log: UserLog): Promise<void> {
    let end = 0;
    let lastFirst = 0;
    let contiguous = true;
    // Sent now, on another connection, so that its round trip overlaps the segments' stream; every
    // superseded memory of the user (where the segments end is not known yet): the marks of
    // memories after them are no-ops, their rows carry their own.
    const superseded = listSupersededBefore(this.db, userId, Number.MAX_SAFE_INTEGER);
    superseded.catch(() => undefined);
    await streamRecallSegments(this.db, userId, (segment) => {
      if (!contiguous || segment.firstLeaf !== end) {
        contiguous = false;
        return;
      }
      log.addSegment(openSegment(dataKey, segment));
      lastFirst = segment.firstLeaf;
      end = segment.endLeaf;
    });
    const marks = await superseded;
    if (end === 0) {
      return;
    }
    for (const [leafIndex, supersededBy] of marks) {
      log.markSupersededLeaf(leafIndex, supersededBy);
    }
    log.lastLeafIndex = Math.max(log.lastLeafIndex, end - 1);
    log.sealedEnd = end - lastFirst < this.segmentLeaves ? lastFirst : end;
    log.tailSealedEnd = end;
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

const decoder = new TextDecoder("utf-8", { fatal: true });

/**
 * Resolves once a statement started in the current turn has been written to its socket:
 * postgres.js starts a query after a microtask and writes a small one from a `setImmediate`, so
 * the second of two nested immediates runs after that write.
 */
function statementSent(): Promise<void> {
  return new Promise((resolve) => setImmediate(() => setImmediate(resolve)));
}
