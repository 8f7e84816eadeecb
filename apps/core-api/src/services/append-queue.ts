/**
 * Group commit of appends (issue 5 item 2), across users: this process has at most one append
 * transaction in flight, and every append that arrives meanwhile — whatever its user — is written
 * by the next one (`appendMemoriesForUsers`: one transaction that locks the involved users' tree
 * rows in user id order, one INSERT of all memory rows, one of all nodes, one version-checked
 * UPDATE of all trees, one commit). A user's appends keep their arrival order (consecutive leaf
 * indices). Across processes the tree row locks, always taken in user id order, serialize
 * batches that share users without deadlock.
 * @module
 */
import {
  appendMemoriesForUsers,
  type Database,
  type NewMemory,
  type UserAppendResult,
} from "@svc/db-schema";

/** Where one appended memory landed. */
export interface AppendedLeaf {
  readonly leafIndex: number;
  /** The tree size right after the transaction that wrote it. */
  readonly treeSize: number;
}

interface Job {
  readonly userId: string;
  readonly memory: NewMemory;
  readonly resolve: (leaf: AppendedLeaf) => void;
  readonly reject: (error: unknown) => void;
}

/** Options of {@link AppendQueue}. */
export interface AppendQueueOptions {
  /** Most memories written by one transaction (all users together); default 256. */
  readonly maxBatch?: number;
}

/** A process-wide group-commit queue over `appendMemoriesForUsers`. */
export class AppendQueue {
  /** Appends not yet taken by a batch, in arrival order. */
  private waiting: Job[] = [];
  private draining = false;
  private readonly maxBatch: number;

  /**
   * @throws RangeError when `maxBatch` is not a positive integer.
   */
  constructor(
    private readonly db: Database,
    options: AppendQueueOptions = {},
  ) {
    this.maxBatch = options.maxBatch ?? 256;
    if (!Number.isInteger(this.maxBatch) || this.maxBatch < 1) {
      throw new RangeError(`maxBatch must be a positive integer, got ${this.maxBatch}`);
    }
  }

  /**
   * Appends one memory to the user's log. When no batch is in flight it is written at once;
   * otherwise it joins the next batch, shared with every append (of any user) waiting then, up to
   * `maxBatch` memories in arrival order.
   * @returns its leaf index once the transaction committed.
   * @throws whatever appendMemoriesForUsers throws for its batch (the whole batch fails together:
   *   the transaction rolled back and none of its memories, of any user, exist; later batches are
   *   unaffected).
   */
  append(userId: string, memory: NewMemory): Promise<AppendedLeaf> {
    return new Promise<AppendedLeaf>((resolve, reject) => {
      this.waiting.push({ userId, memory, resolve, reject });
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
        const batch = this.waiting.splice(0, this.maxBatch);
        await this.write(batch);
      }
    } finally {
      this.draining = false;
    }
  }

  /** Writes one batch and settles its jobs; never throws. */
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
    const groups = [...byUser.entries()];
    let results: UserAppendResult[];
    try {
      results = await appendMemoriesForUsers(
        this.db,
        groups.map(([userId, jobs]) => ({ userId, items: jobs.map((job) => job.memory) })),
      );
    } catch (error) {
      for (const job of batch) {
        job.reject(error);
      }
      return;
    }
    groups.forEach(([, jobs], g) => {
      const result = results[g];
      jobs.forEach((job, i) => {
        const item = result?.items[i];
        if (result && item) {
          job.resolve({ leafIndex: item.leafIndex, treeSize: result.size });
        } else {
          job.reject(new Error("appendMemoriesForUsers returned fewer items than it was given"));
        }
      });
    });
  }
}
