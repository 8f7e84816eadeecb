/**
 * `EMBEDDINGS=openai`: any endpoint that speaks OpenAI's embeddings API (`POST /v1/embeddings`,
 * `{ model, input: [texts], dimensions? }` → `{ data: [{ index, embedding: [numbers] }] }`):
 * OpenAI, Ollama, Hugging Face TEI, vLLM, LM Studio. Every text sent leaves this process for that
 * endpoint. Batches go through the bounded queue (queue.ts); a batch that meets a network error,
 * a timeout, 408, 429 or 5xx is retried with backoff (retry.ts), honouring `Retry-After`.
 * @module
 */
import { z } from "zod";
import type { OpenAiSettings } from "./config.js";
import {
  type EmbeddingLane,
  type EmbeddingProvider,
  EmbeddingsError,
  formatModelId,
} from "./provider.js";
import { EmbeddingQueue } from "./queue.js";
import { type Attempt, retryAfterMs, withRetries } from "./retry.js";

const AnswerSchema = z.object({
  data: z.array(
    z.object({ index: z.number().int().min(0), embedding: z.array(z.number()).min(1) }),
  ),
});

const RETRIED = new Set([408, 429, 500, 502, 503, 504]);
/** Texts waiting in the queue, at most. */
const MAX_QUEUED = 4096;
/** The probe text that tells a model's dimensions. */
const PROBE = "dimensions";

/** Options beyond the settings (tests shorten the waits). */
export interface OpenAiOptions {
  /** The first retry's wait bound, ms (default 500). */
  readonly retryBaseMs?: number;
  /** No retry waits longer, ms (default 20 000). */
  readonly retryCapMs?: number;
}

/** The endpoint URL of `url`: itself when it ends in `/embeddings`, else `url` + `/embeddings`. */
export function embeddingsEndpoint(url: string): URL {
  const base = new URL(url);
  if (!base.pathname.replace(/\/+$/, "").endsWith("/embeddings")) {
    base.pathname = `${base.pathname.replace(/\/+$/, "")}/embeddings`;
  }
  return base;
}

/** An OpenAI-compatible embeddings endpoint; see the module comment. */
export class OpenAiEmbeddings implements EmbeddingProvider {
  readonly provider = "openai" as const;
  private readonly endpoint: URL;
  private readonly queue: EmbeddingQueue;
  private readonly abort = new AbortController();
  private id: Promise<string> | null = null;

  /** @throws TypeError for a malformed URL; RangeError for a bad batch size or concurrency. */
  constructor(
    private readonly settings: OpenAiSettings,
    private readonly options: OpenAiOptions = {},
  ) {
    this.endpoint = embeddingsEndpoint(settings.url);
    this.queue = new EmbeddingQueue((texts) => this.request(texts), {
      batchSize: settings.batchSize,
      concurrency: settings.concurrency,
      maxQueued: MAX_QUEUED,
    });
  }

  /** `openai|<endpoint origin>|<model>|<dimensions>`, the dimensions learnt from a probe. */
  modelId(): Promise<string> {
    if (this.id === null) {
      const probing = this.embed([PROBE], "query").then(([vector]) =>
        formatModelId(
          "openai",
          this.endpoint.origin,
          this.settings.model,
          (vector as Float32Array).length,
        ),
      );
      this.id = probing;
      probing.catch(() => {
        // A failed probe is not remembered: the next call probes again.
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
    this.abort.abort();
  }

  /** One batch, retried as the module comment says. */
  private request(texts: readonly string[]): Promise<Float32Array[]> {
    const where = `the embeddings endpoint ${this.endpoint.origin}${this.endpoint.pathname}`;
    return withRetries(
      {
        retries: this.settings.maxRetries,
        baseMs: this.options.retryBaseMs ?? 500,
        capMs: this.options.retryCapMs ?? 20_000,
      },
      async (n): Promise<Attempt<Float32Array[]>> => {
        if (this.abort.signal.aborted) {
          throw new EmbeddingsError("closed", "the embedding model is closed");
        }
        const tries = `${n + 1} ${n === 0 ? "try" : "tries"}`;
        let res: Response;
        try {
          res = await fetch(this.endpoint, {
            method: "POST",
            headers: {
              "content-type": "application/json",
              ...(this.settings.apiKey === null
                ? {}
                : { authorization: `Bearer ${this.settings.apiKey}` }),
            },
            body: JSON.stringify({
              model: this.settings.model,
              input: texts,
              ...(this.settings.dimensions === null
                ? {}
                : { dimensions: this.settings.dimensions }),
            }),
            signal: AbortSignal.any([
              this.abort.signal,
              AbortSignal.timeout(this.settings.timeoutMs),
            ]),
          });
        } catch (cause) {
          const error = new EmbeddingsError(
            "unavailable",
            `cannot reach ${where} (EMBEDDINGS_URL) after ${tries}: ${(cause as Error).message}`,
            { cause },
          );
          return { done: false, error };
        }
        const body = await res.text().catch(() => "");
        if (res.ok) {
          return { done: true, value: vectorsOf(body, texts.length, where) };
        }
        const said = errorMessageOf(body);
        if (RETRIED.has(res.status)) {
          const error = new EmbeddingsError(
            "unavailable",
            `${where} answered ${res.status} after ${tries}${said}`,
          );
          return {
            done: false,
            error,
            retryAfterMs: retryAfterMs(res.headers.get("retry-after"), Date.now()),
          };
        }
        throw new EmbeddingsError(
          "rejected",
          `${where} answered ${res.status}${hint(res.status)}${said}`,
        );
      },
    );
  }
}

/** What to check, by refusal status. */
function hint(status: number): string {
  if (status === 401 || status === 403) {
    return ": the API key (EMBEDDINGS_API_KEY) was refused";
  }
  if (status === 404) {
    return ": no such endpoint or model (EMBEDDINGS_URL, EMBEDDINGS_MODEL)";
  }
  return "";
}

/** The `error.message` (or `error`) of an OpenAI-style error body, prefixed; "" when none. */
function errorMessageOf(body: string): string {
  try {
    const value = JSON.parse(body) as { error?: { message?: unknown } | string };
    const message = typeof value.error === "string" ? value.error : value.error?.message;
    return typeof message === "string" ? ` (${message.slice(0, 300)})` : "";
  } catch {
    return "";
  }
}

/**
 * The vectors of a 200 answer, in input order.
 * @throws EmbeddingsError `invalid_answer` unless it holds exactly one finite vector per input,
 *   all of one length.
 */
function vectorsOf(body: string, count: number, where: string): Float32Array[] {
  let parsed: z.infer<typeof AnswerSchema>;
  try {
    parsed = AnswerSchema.parse(JSON.parse(body));
  } catch (cause) {
    throw new EmbeddingsError("invalid_answer", `${where} did not answer embeddings`, { cause });
  }
  const vectors: (Float32Array | undefined)[] = new Array(count);
  for (const { index, embedding } of parsed.data) {
    if (index >= count || vectors[index] !== undefined) {
      throw new EmbeddingsError(
        "invalid_answer",
        `${where} answered index ${index} twice or out of range`,
      );
    }
    if (!embedding.every(Number.isFinite)) {
      throw new EmbeddingsError("invalid_answer", `${where} answered a vector that is not finite`);
    }
    vectors[index] = Float32Array.from(embedding);
  }
  const length = vectors[0]?.length;
  for (let k = 0; k < count; k++) {
    if (vectors[k] === undefined || vectors[k]?.length !== length) {
      throw new EmbeddingsError(
        "invalid_answer",
        `${where} answered ${parsed.data.length} vectors of differing lengths for ${count} texts`,
      );
    }
  }
  return vectors as Float32Array[];
}
