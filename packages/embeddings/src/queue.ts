/**
 * The bounded queue in front of a model: at most `concurrency` batches at the model at once, at
 * most `maxQueued` texts waiting, queries served before documents. A full queue refuses at once
 * (`overloaded`) instead of growing: the background embedder tries again later, a search answers
 * without vectors' help.
 * @module
 */
import { type EmbeddingLane, EmbeddingsError } from "./provider.js";

/** Embeds one batch (at most the queue's batch size). */
export type EmbedBatch = (texts: readonly string[]) => Promise<Float32Array[]>;

/** Options of {@link EmbeddingQueue}. */
export interface EmbeddingQueueOptions {
  /** Texts per call of the model, at most. */
  readonly batchSize: number;
  /** Batches at the model at once, at most. */
  readonly concurrency: number;
  /** Texts waiting, at most (over both lanes). */
  readonly maxQueued: number;
}

interface Job {
  readonly texts: readonly string[];
  readonly resolve: (vectors: Float32Array[]) => void;
  readonly reject: (error: unknown) => void;
}

/** A two-lane bounded queue of embedding batches; see the module comment. */
export class EmbeddingQueue {
  private readonly lanes: Record<EmbeddingLane, Job[]> = { query: [], document: [] };
  private queued = 0;
  private running = 0;
  private closed = false;

  /**
   * @throws RangeError for a size, concurrency or bound below 1.
   */
  constructor(
    private readonly model: EmbedBatch,
    private readonly options: EmbeddingQueueOptions,
  ) {
    for (const [name, value] of Object.entries(options)) {
      if (!Number.isInteger(value) || value < 1) {
        throw new RangeError(`${name} must be an integer ≥ 1, got ${value}`);
      }
    }
  }

  /**
   * The vectors of `texts`, in order, embedded in batches of at most `batchSize`.
   * @throws EmbeddingsError `overloaded` when the texts do not fit in the queue, `closed` after
   *   {@link close}; the model's own errors.
   */
  async embed(texts: readonly string[], lane: EmbeddingLane): Promise<Float32Array[]> {
    if (this.closed) {
      throw new EmbeddingsError("closed", "the embedding model is closed");
    }
    if (texts.length === 0) {
      return [];
    }
    if (this.queued + texts.length > this.options.maxQueued) {
      throw new EmbeddingsError(
        "overloaded",
        `the embedding queue is full (${this.queued} texts waiting, at most ${this.options.maxQueued})`,
      );
    }
    const batches: Promise<Float32Array[]>[] = [];
    for (let start = 0; start < texts.length; start += this.options.batchSize) {
      const batch = texts.slice(start, start + this.options.batchSize);
      this.queued += batch.length;
      batches.push(
        new Promise((resolve, reject) => this.lanes[lane].push({ texts: batch, resolve, reject })),
      );
    }
    this.pump();
    return (await Promise.all(batches)).flat();
  }

  /** Texts waiting (not yet at the model). */
  get waiting(): number {
    return this.queued;
  }

  /** Rejects every waiting batch (`closed`); batches at the model finish. */
  close(): void {
    this.closed = true;
    for (const lane of [this.lanes.query, this.lanes.document]) {
      for (const job of lane.splice(0)) {
        this.queued -= job.texts.length;
        job.reject(new EmbeddingsError("closed", "the embedding model is closed"));
      }
    }
  }

  private pump(): void {
    while (this.running < this.options.concurrency) {
      const job = this.lanes.query.shift() ?? this.lanes.document.shift();
      if (job === undefined) {
        return;
      }
      this.queued -= job.texts.length;
      this.running++;
      this.model(job.texts)
        .then(job.resolve, job.reject)
        .finally(() => {
          this.running--;
          this.pump();
        });
    }
  }
}
