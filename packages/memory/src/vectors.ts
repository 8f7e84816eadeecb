/**
 * The background embedder (docs/protocol.md §4.5 "Recall"): vectors are computed off the request
 * path. Writes hand their new memories to {@link VectorIndexer.enqueue} (a bounded list: when it is
 * full the memory waits for the next pass); batches go to the embedding model (EMBEDDINGS), each
 * vector is sealed under the user's data key (envelope-crypto encryptVector: float32 LE, AAD bound
 * to user, memory and model id) and stored only while its memory is live. A periodic pass
 * ({@link VectorIndexer.runPass}, also `pnpm reembed`) embeds every live memory without a vector
 * of the current model id: memories written while the queue was full or the model unreachable,
 * written by another process, or written before a model change. EMBEDDINGS_NAMESPACES limits what
 * is embedded.
 * @module
 */
import {
  type Database,
  insertMemoryVectors,
  listMemoriesWithoutVector,
} from "@verifiable-memory/db-schema";
import { type EmbeddingProvider, embedsNamespace } from "@verifiable-memory/embeddings";
import { encryptVector, type MasterKeyring } from "@verifiable-memory/envelope-crypto";
import { openMemoryBody } from "./memory-body.js";
import type { QueryVector } from "./recall/types.js";

/** A memory to embed: its id, namespace and content. */
export interface MemoryToIndex {
  readonly id: string;
  readonly namespace: string | null;
  readonly content: string;
}

/** Options of {@link VectorIndexer}. */
export interface VectorIndexerOptions {
  readonly db: Database;
  readonly provider: EmbeddingProvider;
  /** Unwraps the data keys of the memories the pass finds (MASTER_ENCRYPTION_KEY and previous). */
  readonly masterKeys: MasterKeyring;
  /** Namespace prefixes embedded (EMBEDDINGS_NAMESPACES); null: every memory. */
  readonly namespaces: readonly string[] | null;
  /** Memories per model call and per stored batch; default 64. */
  readonly batchSize?: number;
  /** Memories waiting to be embedded, at most; default 10 000 (more wait for the next pass). */
  readonly maxQueued?: number;
  /** Called with what failed in the background (the memory is embedded by a later pass). */
  readonly onError?: (error: unknown) => void;
}

interface Pending {
  readonly userId: string;
  readonly dataKey: Uint8Array;
  readonly memory: MemoryToIndex;
}

/** Embeds memories in the background and answers queries' vectors. */
export class VectorIndexer {
  private readonly pending: Pending[] = [];
  private draining: Promise<void> | null = null;
  private model: Promise<string> | null = null;
  private readonly batchSize: number;
  private readonly maxQueued: number;
  private closed = false;
  private timer: NodeJS.Timeout | null = null;
  /** Memories whose vector this process stored. */
  embedded = 0;
  /** Memories left for the next pass (queue full). */
  deferred = 0;

  /** @throws RangeError for a batch size or bound below 1. */
  constructor(private readonly options: VectorIndexerOptions) {
    this.batchSize = options.batchSize ?? 64;
    this.maxQueued = options.maxQueued ?? 10_000;
    if (!Number.isInteger(this.batchSize) || this.batchSize < 1) {
      throw new RangeError(`batchSize must be a positive integer, got ${this.batchSize}`);
    }
    if (!Number.isInteger(this.maxQueued) || this.maxQueued < 1) {
      throw new RangeError(`maxQueued must be a positive integer, got ${this.maxQueued}`);
    }
  }

  /**
   * The model id (provider|origin|model|dimensions), learnt once.
   * @throws EmbeddingsError when the model cannot be reached (asked again next time).
   */
  modelId(): Promise<string> {
    if (this.model === null) {
      const asking = this.options.provider.modelId();
      this.model = asking;
      asking.catch(() => {
        if (this.model === asking) {
          this.model = null;
        }
      });
    }
    return this.model;
  }

  /**
   * The vector of a search's query under the current model.
   * @throws EmbeddingsError when the model fails or is overloaded.
   */
  async embedQuery(text: string): Promise<QueryVector> {
    const [modelId, [values]] = await Promise.all([
      this.modelId(),
      this.options.provider.embed([text], "query"),
    ]);
    return { modelId, values: values as Float32Array };
  }

  /**
   * Hands a write's new memories to the embedder (those of namespaces EMBEDDINGS_NAMESPACES
   * leaves out are skipped); returns at once. The data key is kept only until the batch is stored.
   */
  enqueue(userId: string, dataKey: Uint8Array, memories: readonly MemoryToIndex[]): void {
    if (this.closed) {
      return;
    }
    for (const memory of memories) {
      if (!embedsNamespace(this.options.namespaces, memory.namespace)) {
        continue;
      }
      if (this.pending.length >= this.maxQueued) {
        this.deferred++;
        continue;
      }
      this.pending.push({ userId, dataKey, memory });
    }
    this.draining ??= this.drain().finally(() => {
      this.draining = null;
    });
  }

  /** Resolves once every enqueued memory has been embedded and stored (or failed). */
  async idle(): Promise<void> {
    while (this.draining !== null) {
      await this.draining;
    }
  }

  /**
   * One pass over the live memories without a vector of the current model id, every user, in
   * pages: each opened under its user's data key, embedded and stored.
   * @returns how many vectors were stored.
   * @throws EmbeddingsError when the model fails; database errors; DecryptionError for a data key
   *   or body that does not open.
   */
  async runPass(onProgress?: (stored: number) => void): Promise<number> {
    const modelId = await this.modelId();
    const keys = new Map<string, Uint8Array>();
    let after: { userId: string; leafIndex: number } | null = null;
    let stored = 0;
    for (;;) {
      const rows = await listMemoriesWithoutVector(this.options.db, modelId, {
        after,
        limit: this.batchSize * 8,
      });
      if (rows.length === 0 || this.closed) {
        return stored;
      }
      const last = rows[rows.length - 1] as (typeof rows)[number];
      after = { userId: last.userId, leafIndex: last.leafIndex };
      const batch: Pending[] = [];
      for (const row of rows) {
        if (!embedsNamespace(this.options.namespaces, row.namespace)) {
          continue;
        }
        let dataKey = keys.get(row.userId);
        if (dataKey === undefined) {
          dataKey = this.options.masterKeys.unwrap(row.wrappedDataKey, row.userId);
          keys.set(row.userId, dataKey);
        }
        const body = openMemoryBody(dataKey, row, { userId: row.userId, memoryId: row.id });
        batch.push({
          userId: row.userId,
          dataKey,
          memory: { id: row.id, namespace: row.namespace, content: body.content },
        });
      }
      for (let i = 0; i < batch.length; i += this.batchSize) {
        stored += await this.store(modelId, batch.slice(i, i + this.batchSize));
        onProgress?.(stored);
      }
    }
  }

  /**
   * Runs {@link runPass} now and then `intervalMs` after each pass ends, until {@link close};
   * a failed pass is reported to `onError` and tried again at the next interval.
   */
  startPasses(intervalMs: number): void {
    const run = async () => {
      this.timer = null;
      try {
        await this.runPass();
      } catch (error) {
        this.options.onError?.(error);
      }
      if (!this.closed) {
        this.timer = setTimeout(run, intervalMs);
        this.timer.unref();
      }
    };
    this.timer = setTimeout(run, 0);
    this.timer.unref();
  }

  /** Stops taking memories and passes; what is queued is dropped (a later pass embeds it). */
  close(): void {
    this.closed = true;
    this.pending.length = 0;
    if (this.timer !== null) {
      clearTimeout(this.timer);
      this.timer = null;
    }
  }

  private async drain(): Promise<void> {
    while (this.pending.length > 0 && !this.closed) {
      const batch = this.pending.splice(0, this.batchSize);
      try {
        await this.store(await this.modelId(), batch);
      } catch (error) {
        this.deferred += batch.length;
        this.options.onError?.(error);
      }
    }
  }

  /** Embeds `batch` (document lane), seals each vector, stores them per user. */
  private async store(modelId: string, batch: readonly Pending[]): Promise<number> {
    if (batch.length === 0) {
      return 0;
    }
    const vectors = await this.options.provider.embed(
      batch.map((item) => item.memory.content),
      "document",
    );
    const byUser = new Map<
      string,
      { memoryId: string; iv: Uint8Array; ciphertext: Uint8Array }[]
    >();
    batch.forEach((item, i) => {
      const sealed = encryptVector(item.dataKey, vectors[i] as Float32Array, {
        userId: item.userId,
        memoryId: item.memory.id,
        modelId,
      });
      const list = byUser.get(item.userId) ?? [];
      list.push({ memoryId: item.memory.id, ...sealed });
      byUser.set(item.userId, list);
    });
    let stored = 0;
    for (const [userId, sealed] of byUser) {
      stored += await insertMemoryVectors(this.options.db, userId, modelId, sealed);
    }
    this.embedded += stored;
    return stored;
  }
}
