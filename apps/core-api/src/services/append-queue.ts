/**
 * Group commit of appends (issue 5 item 2): appends of one user are serialized in this process
 * without any global lock, and the appends that arrive while a user's transaction is running are
 * written together by the next one (one `appendMemories` transaction, one tree update, one
 * commit). Across processes the user's tree row lock (`SELECT … FOR UPDATE` inside
 * appendMemories) serializes them.
 * @module
 */
import { type AppendResult, appendMemories, type Database, type NewMemory } from "@svc/db-schema";

/** Where one appended memory landed. */
export interface AppendedLeaf {
  readonly leafIndex: number;
  /** The tree size right after the transaction that wrote it. */
  readonly treeSize: number;
}

interface Job {
  readonly memory: NewMemory;
  readonly resolve: (leaf: AppendedLeaf) => void;
  readonly reject: (error: unknown) => void;
}

/** Options of {@link AppendQueue}. */
export interface AppendQueueOptions {
  /** Most memories written by one transaction; default 256. */
  readonly maxBatch?: number;
}

/** Per-user group-commit queues over `appendMemories`. */
export class AppendQueue {
  private readonly waiting = new Map<string, Job[]>();
  private readonly maxBatch: number;

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
   * Appends one memory to the user's log, in a transaction shared with the user's other appends
   * that are waiting at that moment.
   * @returns its leaf index once the transaction committed.
   * @throws whatever appendMemories throws for its batch (the whole batch fails together: the
   *   transaction rolled back and none of its memories exist).
   */
  append(userId: string, memory: NewMemory): Promise<AppendedLeaf> {
    return new Promise<AppendedLeaf>((resolve, reject) => {
      const queue = this.waiting.get(userId);
      if (queue) {
        queue.push({ memory, resolve, reject });
        return;
      }
      this.waiting.set(userId, [{ memory, resolve, reject }]);
      void this.drain(userId);
    });
  }

  /** Writes the user's waiting jobs batch after batch until none is left. */
  private async drain(userId: string): Promise<void> {
    for (;;) {
      const queue = this.waiting.get(userId);
      if (!queue || queue.length === 0) {
        this.waiting.delete(userId);
        return;
      }
      const batch = queue.splice(0, this.maxBatch);
      let result: AppendResult;
      try {
        result = await appendMemories(
          this.db,
          userId,
          batch.map((job) => job.memory),
        );
      } catch (error) {
        for (const job of batch) {
          job.reject(error);
        }
        continue;
      }
      batch.forEach((job, i) => {
        const item = result.items[i];
        if (item) {
          job.resolve({ leafIndex: item.leafIndex, treeSize: result.size });
        } else {
          job.reject(new Error("appendMemories returned fewer items than it was given"));
        }
      });
    }
  }
}
