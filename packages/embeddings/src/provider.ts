/**
 * The one interface every embedding model sits behind (docs/protocol.md §4.5 "Recall"): texts in,
 * vectors out, and a model id that says exactly which vectors may be compared. Vectors of two
 * model ids are never compared.
 * @module
 */

/** Where a text comes from: a search's query, or a memory's content. */
export type EmbeddingLane = "query" | "document";

/** An embedding model. */
export interface EmbeddingProvider {
  /** `openai` (an OpenAI-compatible HTTP endpoint) or `local` (in-process transformers.js). */
  readonly provider: "openai" | "local";
  /**
   * The model id ({@link formatModelId}): provider, endpoint origin, model name and dimensions.
   * The first call embeds a probe text to learn the dimensions; later calls answer at once.
   * @throws EmbeddingsError when the model cannot be reached or loaded.
   */
  modelId(): Promise<string>;
  /**
   * The vectors of `texts`, in order, each of the model's dimensions (float32). Texts are sent in
   * batches; queries go before documents waiting in the same queue.
   * @throws EmbeddingsError when the model fails (after its retries) or the queue is full.
   */
  embed(texts: readonly string[], lane: EmbeddingLane): Promise<Float32Array[]>;
  /** Rejects what is still queued and releases the model. */
  close(): Promise<void>;
}

/** Why an embedding failed; `code` tells callers whether trying later may help. */
export class EmbeddingsError extends Error {
  override readonly name = "EmbeddingsError";

  /**
   * @param code `unavailable` (the endpoint or model cannot be reached or loaded, or answered
   *   5xx/429 past the retries: try later), `rejected` (the endpoint refused the request: a bad
   *   key, an unknown model, input it does not take), `invalid_answer` (an answer that is not
   *   vectors of one size), `overloaded` (the queue is full) or `closed`.
   */
  constructor(
    readonly code: "unavailable" | "rejected" | "invalid_answer" | "overloaded" | "closed",
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/**
 * The model id of vectors: `provider|origin|model|dimensions`, e.g.
 * `openai|http://127.0.0.1:11434|nomic-embed-text|768` or `local|in-process|Xenova/bge-small-en-v1.5|384`.
 * @param origin the endpoint's origin (scheme, host, port: no path, no credentials), or
 *   `in-process` for a local model.
 */
export function formatModelId(
  provider: "openai" | "local",
  origin: string,
  model: string,
  dimensions: number,
): string {
  return `${provider}|${origin}|${model}|${dimensions}`;
}
