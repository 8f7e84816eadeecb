/**
 * Group commit of appends, across users: this process has at most one append
 * batch in flight, and every append that arrives meanwhile — whatever its user — is written by
 * the next one. A user's appends keep their arrival order (consecutive leaf indices). An append of
 * several memories (`appendAll`, `POST /memories/batch`) is never split: all its memories are
 * written by the same batch, so they commit together and get contiguous leaf indices.
 *
 * The queue remembers the tree each of its batches saved per user (a bounded, least recently used
 * map of `SavedTree`s: size, frontier, version; no memory content). A batch's users with a
 * remembered tree are written by `appendMemoriesToKnownTrees`: ONE statement that commits on its
 * own (one round trip), appending each user only if their `trees` row still has the remembered
 * version. The other users (first append since start, eviction, or a remembered tree that went
 * stale because another process appended or the tree was rebuilt) go through
 * `appendMemoriesForUsers`: one transaction that creates missing trees and locks the rows in user
 * id order. A stale user's appends are put back at the head of the queue and written by the next
 * batch from a fresh read. Across processes the version check (and the row locks of the
 * transactional path) keep every user's log a single sequence.
 *
 * Appends on their way (a request past its body read, still authenticating) can be announced with
 * `expect()`. A batch about to be written first waits, at most `maxHoldMs`, until every append
 * announced before it started waiting has arrived or been cancelled: the same idea as
 * PostgreSQL's `commit_delay` / `commit_siblings`. Under load the concurrent writers then share
 * one statement instead of trickling into several (fewer statements, fewer wake-ups of every
 * process, measured in docs/performance.md); a lone writer never waits, since nothing else was
 * announced.
 * @module
 */
import {
  appendMemoriesForUsers,
  appendMemoriesToKnownTrees,
  type Database,
  type NewMemory,
  type SavedTree,
  type StaleTreeResult,
  type UserAppendResult,
} from "@verifiable-memory/db-schema";
import { LRUCache } from "lru-cache";

/** Where one appended memory landed. */
export interface AppendedLeaf {
  readonly leafIndex: number;
  /** The tree size right after the transaction that wrote it. */
  readonly treeSize: number;
}

interface Job {
  readonly userId: string;
  /** One or more memories, given contiguous leaf indices by one statement or transaction. */
  readonly memories: readonly NewMemory[];
  readonly resolve: (leaves: AppendedLeaf[]) => void;
  readonly reject: (error: unknown) => void;
}

/** One user's jobs of a batch, in arrival order. */
type UserJobs = readonly [userId: string, jobs: Job[]];

/** Whatever appends memories: the queue itself, or an announced append. */
export interface Appender {
  /**
   * Appends `memory` (its leaf hash already computed, its body sealed) to the log of `userId`.
   * @returns its leaf index and the tree size after the transaction that wrote it.
   * @throws the database error of the batch it was written in (every caller of that batch gets it).
   */
  append(userId: string, memory: NewMemory): Promise<AppendedLeaf>;

  /**
   * Appends `memories` (at least one) to the log of `userId` all at once: one statement or
   * transaction writes them all or none, at contiguous leaf indices in the given order.
   * @returns where each landed, in the given order.
   * @throws RangeError for an empty list; the database error of the batch it was written in.
   */
  appendAll(userId: string, memories: readonly NewMemory[]): Promise<AppendedLeaf[]>;
}

/**
 * An append announced with {@link AppendQueue.expect}: `append` or `appendAll` enqueues it (at
 * most once; a second call throws), `cancel` withdraws the announcement (no-op once appended or
 * cancelled).
 */
export interface ExpectedAppend extends Appender {
  cancel(): void;
}

/** Options of {@link AppendQueue}. */
export interface AppendQueueOptions {
  /**
   * Most memories written by one batch (all users together); default 256. An `appendAll` of more
   * is written alone in a batch of its own.
   */
  readonly maxBatch?: number;
  /** Most users whose saved tree the queue remembers (least recently used evicted); default 10 000. */
  readonly maxKnownTrees?: number;
  /** Longest a batch waits for announced appends, in ms; default 2. 0 never waits. */
  readonly maxHoldMs?: number;
}

/** A process-wide group-commit queue over the append statements of `@verifiable-memory/db-schema`. */
export class AppendQueue implements Appender {
  /** Appends not yet taken by a batch, in arrival order. */
  private waiting: Job[] = [];
  private draining = false;
  private readonly maxBatch: number;
  /** The tree this queue's last append saved, per user. */
  private readonly known: LRUCache<string, SavedTree>;
  private readonly maxHoldMs: number;
  /** Announced appends neither appended nor cancelled, by announcement number. */
  private readonly announced = new Set<number>();
  private nextAnnouncement = 0;
  /** While a batch holds: the announcements it waits for (numbers below `until`) and its wake-up. */
  private hold: { readonly until: number; remaining: number; readonly wake: () => void } | null =
    null;

  /**
   * @throws RangeError when `maxBatch` or `maxKnownTrees` is not a positive integer, or
   *   `maxHoldMs` is negative or not finite.
   */
  constructor(
    private readonly db: Database,
    options: AppendQueueOptions = {},
  ) {
    this.maxBatch = positiveInteger("maxBatch", options.maxBatch ?? 256);
    this.known = new LRUCache({
      max: positiveInteger("maxKnownTrees", options.maxKnownTrees ?? 10_000),
    });
    this.maxHoldMs = options.maxHoldMs ?? 2;
    if (!Number.isFinite(this.maxHoldMs) || this.maxHoldMs < 0) {
      throw new RangeError(`maxHoldMs must be a finite number ≥ 0, got ${this.maxHoldMs}`);
    }
  }

  /** How many announced appends are neither appended nor cancelled yet. */
  get expectedAppends(): number {
    return this.announced.size;
  }

  /**
   * Announces an append on its way: batches starting to wait from now on hold for it (at most
   * `maxHoldMs`) until it is appended through the returned handle or cancelled. The caller must
   * do one or the other (e.g. cancel in a `finally`), or every batch meanwhile waits the full hold.
   */
  expect(): ExpectedAppend {
    const number = this.nextAnnouncement++;
    this.announced.add(number);
    let used = false;
    const use = () => {
      if (used) {
        throw new Error("an expected append is appended at most once");
      }
      used = true;
      // Settled first: a batch holding for it wakes and, a microtask later, finds it queued.
      this.settleAnnouncement(number);
    };
    return {
      append: (userId, memory) => {
        use();
        return this.append(userId, memory);
      },
      appendAll: (userId, memories) => {
        use();
        return this.appendAll(userId, memories);
      },
      cancel: () => {
        used = true;
        this.settleAnnouncement(number);
      },
    };
  }

  private settleAnnouncement(number: number): void {
    if (!this.announced.delete(number)) {
      return;
    }
    const hold = this.hold;
    if (hold && number < hold.until && --hold.remaining === 0) {
      hold.wake();
    }
  }

  /**
   * Waits until the appends announced so far arrived or were cancelled, at most `maxHoldMs`.
   * Only called when some are outstanding: with none, the batch leaves in the same tick.
   */
  private holdForAnnounced(): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = setTimeout(() => wake(), this.maxHoldMs);
      const wake = () => {
        clearTimeout(timer);
        this.hold = null;
        resolve();
      };
      this.hold = { until: this.nextAnnouncement, remaining: this.announced.size, wake };
    });
  }

  /** How many users' saved trees are remembered (at most `maxKnownTrees`). */
  get knownTrees(): number {
    return this.known.size;
  }

  /**
   * Appends one memory to the user's log. When no batch is in flight it is written at once;
   * otherwise it joins the next batch, shared with every append (of any user) waiting then, up to
   * `maxBatch` memories in arrival order.
   * @returns its leaf index once the statement or transaction that wrote it committed.
   * @throws whatever the append statement throws for its batch part (the users written by the
   *   one-statement path fail together, as do those written by the transaction; nothing of a
   *   failed part exists; later batches are unaffected).
   */
  async append(userId: string, memory: NewMemory): Promise<AppendedLeaf> {
    const [leaf] = await this.appendAll(userId, [memory]);
    return leaf as AppendedLeaf;
  }

  /**
   * Appends several memories of one user as one unit: like {@link append}, but the memories are
   * never split between batches, so one statement or transaction writes them all (contiguous leaf
   * indices, in order) or none.
   * @returns where each landed, in the given order.
   * @throws RangeError for an empty list; otherwise as {@link append}.
   */
  appendAll(userId: string, memories: readonly NewMemory[]): Promise<AppendedLeaf[]> {
    if (memories.length === 0) {
      return Promise.reject(new RangeError("appendAll needs at least one memory"));
    }
    return new Promise<AppendedLeaf[]>((resolve, reject) => {
      this.waiting.push({ userId, memories, resolve, reject });
      if (!this.draining) {
        this.draining = true;
        void this.drain();
      }
    });
  }

  /** Writes the waiting jobs batch after batch until none is left. */
  private async drain(): Promise<void> {
    try {
      while (this.waiting.length > 0) {
        if (this.announced.size > 0 && this.maxHoldMs > 0) {
          await this.holdForAnnounced();
        }
        await this.write(this.waiting.splice(0, this.nextBatchJobs()));
      }
    } finally {
      this.draining = false;
    }
  }

  /**
   * How many waiting jobs the next batch takes: as many as fit in `maxBatch` memories, and at
   * least one (a job larger than `maxBatch` goes alone rather than being split).
   */
  private nextBatchJobs(): number {
    let jobs = 0;
    let memories = 0;
    for (const job of this.waiting) {
      memories += job.memories.length;
      if (jobs > 0 && memories > this.maxBatch) {
        break;
      }
      jobs++;
    }
    return jobs;
  }

  /** Writes one batch and settles or requeues its jobs; never throws. */
  private async write(batch: readonly Job[]): Promise<void> {
    // Group by user, keeping each user's arrival order (and the users' first-arrival order).
    const byUser = new Map<string, Job[]>();
    for (const job of batch) {
      const jobs = byUser.get(job.userId);
      if (jobs) {
        jobs.push(job);
      } else {
        byUser.set(job.userId, [job]);
      }
    }
    const known: UserJobs[] = [];
    const unknown: UserJobs[] = [];
    for (const group of byUser) {
      (this.known.has(group[0]) ? known : unknown).push(group);
    }
    await Promise.all([this.writeKnown(known), this.writeLocked(unknown)]);
  }

  /** The users with a remembered tree: one statement; stale users go back to the queue. */
  private async writeKnown(groups: readonly UserJobs[]): Promise<void> {
    if (groups.length === 0) {
      return;
    }
    await this.settle(groups, () =>
      appendMemoriesToKnownTrees(
        this.db,
        groups.map(([userId, jobs]) => ({
          userId,
          items: jobs.flatMap((job) => job.memories),
          tree: this.known.get(userId) as SavedTree,
        })),
      ),
    );
  }

  /** The other users: one transaction that creates and locks their trees. */
  private async writeLocked(groups: readonly UserJobs[]): Promise<void> {
    if (groups.length === 0) {
      return;
    }
    await this.settle(groups, () =>
      appendMemoriesForUsers(
        this.db,
        groups.map(([userId, jobs]) => ({ userId, items: jobs.flatMap((job) => job.memories) })),
      ),
    );
  }

  /**
   * Runs `write` for `groups` and settles their jobs: appended users' jobs resolve and their new
   * tree is remembered; stale users are forgotten and their jobs put back at the head of the
   * queue (ahead of their later appends); on an error every job rejects and the users are
   * forgotten.
   */
  private async settle(
    groups: readonly UserJobs[],
    write: () => Promise<(UserAppendResult | StaleTreeResult)[]>,
  ): Promise<void> {
    let results: (UserAppendResult | StaleTreeResult)[];
    try {
      results = await write();
    } catch (error) {
      for (const [userId, jobs] of groups) {
        this.known.delete(userId);
        for (const job of jobs) {
          job.reject(error);
        }
      }
      return;
    }
    const retry: Job[] = [];
    groups.forEach(([userId, jobs], g) => {
      const result = results[g];
      if (result && "stale" in result) {
        this.known.delete(userId);
        retry.push(...jobs);
        return;
      }
      if (result) {
        this.known.set(userId, result.tree);
      }
      let offset = 0;
      for (const job of jobs) {
        const items = result?.items.slice(offset, offset + job.memories.length) ?? [];
        offset += job.memories.length;
        if (result && items.length === job.memories.length) {
          job.resolve(items.map((item) => ({ leafIndex: item.leafIndex, treeSize: result.size })));
        } else {
          job.reject(new Error("the append returned fewer items than it was given"));
        }
      }
    });
    this.waiting.unshift(...retry);
  }
}

function positiveInteger(name: string, value: number): number {
  if (!Number.isInteger(value) || value < 1) {
    throw new RangeError(`${name} must be a positive integer, got ${value}`);
  }
  return value;
}
