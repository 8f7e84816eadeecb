/**
 * `EMBEDDINGS=local`: a sentence-embedding model run in this process by transformers.js
 * (`@huggingface/transformers`, ONNX Runtime underneath), e.g. an ONNX export of bge-small-en-v1.5
 * or all-MiniLM-L6-v2. Nothing leaves the machine. The model is read from `EMBEDDINGS_MODEL_DIR`
 * (`<dir>/<model>/` holding `config.json`, `tokenizer.json`, `onnx/model.onnx`) or from
 * transformers.js's cache; it is downloaded from the Hugging Face Hub only with
 * `EMBEDDINGS_ALLOW_DOWNLOAD=1`. The library is imported on first use, so a process that does not
 * embed never loads it. Vectors are the mean (or CLS) pooling of the last hidden state,
 * L2-normalised.
 * @module
 */
import type { LocalSettings } from "./config.js";
import {
  type EmbeddingLane,
  type EmbeddingProvider,
  EmbeddingsError,
  formatModelId,
} from "./provider.js";
import { EmbeddingQueue } from "./queue.js";

/** Texts waiting in the queue, at most. */
const MAX_QUEUED = 4096;

/** What this module needs of a transformers.js feature-extraction pipeline. */
type Extractor = ((
  texts: string[],
  options: { pooling: "mean" | "cls"; normalize: boolean },
) => Promise<{ data: Float32Array | number[]; dims: number[] }>) & {
  dispose(): Promise<unknown>;
};

/** Options beyond the settings. */
export interface LocalOptions {
  /** transformers.js's download cache (default: the library's own, inside its package). */
  readonly cacheDir?: string;
}

/** A transformers.js model; see the module comment. */
export class LocalEmbeddings implements EmbeddingProvider {
  readonly provider = "local" as const;
  private readonly queue: EmbeddingQueue;
  private extractor: Promise<Extractor> | null = null;
  private id: Promise<string> | null = null;

  /** @throws RangeError for a bad batch size or concurrency. */
  constructor(
    private readonly settings: LocalSettings,
    private readonly options: LocalOptions = {},
  ) {
    this.queue = new EmbeddingQueue((texts) => this.run(texts), {
      batchSize: settings.batchSize,
      // ONNX Runtime already spreads one batch over the cores.
      concurrency: 1,
      maxQueued: MAX_QUEUED,
    });
  }

  /**
   * `local|in-process|<model>|<dimensions>` (`<model>#cls` with CLS pooling), the dimensions read
   * from a probe.
   */
  modelId(): Promise<string> {
    if (this.id === null) {
      const probing = this.embed(["dimensions"], "query").then(([vector]) =>
        formatModelId(
          "local",
          "in-process",
          this.settings.pooling === "mean" ? this.settings.model : `${this.settings.model}#cls`,
          (vector as Float32Array).length,
        ),
      );
      this.id = probing;
      probing.catch(() => {
        if (this.id === probing) {
          this.id = null;
        }
      });
    }
    return this.id;
  }

  embed(texts: readonly string[], lane: EmbeddingLane): Promise<Float32Array[]> {
    return this.queue.embed(texts, lane);
  }

  async close(): Promise<void> {
    this.queue.close();
    const extractor = await this.extractor?.catch(() => null);
    await extractor?.dispose();
  }

  private async run(texts: readonly string[]): Promise<Float32Array[]> {
    const extractor = await this.load();
    const output = await extractor([...texts], { pooling: this.settings.pooling, normalize: true });
    const [count, dimensions] = output.dims as [number, number];
    if (count !== texts.length || !(dimensions > 0)) {
      throw new EmbeddingsError(
        "invalid_answer",
        `the local model ${this.settings.model} gave ${output.dims.join("×")} values for ${texts.length} texts`,
      );
    }
    const data = Float32Array.from(output.data);
    return Array.from({ length: count }, (_, k) =>
      data.slice(k * dimensions, (k + 1) * dimensions),
    );
  }

  /** The pipeline, loaded once; a failed load is not remembered (the next call tries again). */
  private load(): Promise<Extractor> {
    if (this.extractor === null) {
      const loading = this.open();
      this.extractor = loading;
      loading.catch(() => {
        if (this.extractor === loading) {
          this.extractor = null;
        }
      });
    }
    return this.extractor;
  }

  private async open(): Promise<Extractor> {
    const { env, pipeline } = await import("@huggingface/transformers");
    env.allowRemoteModels = this.settings.allowDownload;
    env.allowLocalModels = true;
    if (this.settings.modelDir !== null) {
      env.localModelPath = this.settings.modelDir;
    }
    if (this.options.cacheDir !== undefined) {
      env.cacheDir = this.options.cacheDir;
    }
    try {
      return (await pipeline("feature-extraction", this.settings.model, {
        local_files_only: !this.settings.allowDownload,
      })) as unknown as Extractor;
    } catch (cause) {
      const where =
        this.settings.modelDir === null
          ? `transformers.js's cache (${env.cacheDir})`
          : `EMBEDDINGS_MODEL_DIR (${this.settings.modelDir}) or transformers.js's cache (${env.cacheDir})`;
      const downloads = this.settings.allowDownload
        ? "and could not be downloaded"
        : "and downloads are off (EMBEDDINGS_ALLOW_DOWNLOAD=1 turns them on)";
      throw new EmbeddingsError(
        "unavailable",
        `the local embedding model ${this.settings.model} was not found in ${where}, ${downloads}: ${(cause as Error).message}`,
        { cause },
      );
    }
  }
}
