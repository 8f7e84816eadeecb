/**
 * The embedding settings of the environment (docs/protocol.md §10 "Configuration"): the zod
 * fields an app adds to its schema, the cross-field check, and the typed settings they become.
 * @module
 */
import { z } from "zod";

/** A switch given as `1`/`0` or `true`/`false` (any letter case). */
const onOff = z
  .string()
  .trim()
  .toLowerCase()
  .pipe(z.enum(["1", "0", "true", "false"], { error: "must be 1 or 0 (or true or false)" }))
  .transform((value) => value === "1" || value === "true")
  .default(false);

const whole = (fallback: number, max: number) =>
  z.coerce.number().int().min(1).max(max).default(fallback);

/** The environment variables of embeddings, for an app's `z.object`. */
export const embeddingsFields = {
  EMBEDDINGS: z.enum(["none", "openai", "local"]).default("none"),
  EMBEDDINGS_URL: z
    .url({ protocol: /^https?$/, error: "must be an http(s) URL" })
    .default("https://api.openai.com/v1"),
  EMBEDDINGS_MODEL: z.string().trim().min(1).max(256).optional(),
  EMBEDDINGS_API_KEY: z.string().trim().min(1).optional(),
  EMBEDDINGS_DIMENSIONS: z.coerce.number().int().min(1).max(8192).optional(),
  EMBEDDINGS_MODEL_DIR: z.string().trim().min(1).optional(),
  EMBEDDINGS_ALLOW_DOWNLOAD: onOff,
  EMBEDDINGS_POOLING: z.enum(["mean", "cls"]).default("mean"),
  EMBEDDINGS_NAMESPACES: z
    .string()
    .optional()
    .transform((value) =>
      value === undefined
        ? null
        : value
            .split(",")
            .map((prefix) => prefix.trim())
            .filter((prefix) => prefix !== ""),
    ),
  EMBEDDINGS_BATCH_SIZE: whole(32, 2048),
  EMBEDDINGS_CONCURRENCY: whole(2, 64),
  EMBEDDINGS_TIMEOUT_MS: whole(30_000, 600_000),
  EMBEDDINGS_MAX_RETRIES: z.coerce.number().int().min(0).max(20).default(5),
} as const;

/** The parsed values of {@link embeddingsFields}. */
export type EmbeddingsEnv = z.output<z.ZodObject<typeof embeddingsFields>>;

/**
 * The checks across variables, for an app schema's `superRefine`: `openai` and `local` need
 * `EMBEDDINGS_MODEL`.
 */
export function checkEmbeddingsEnv(value: EmbeddingsEnv, ctx: z.RefinementCtx): void {
  if (value.EMBEDDINGS !== "none" && value.EMBEDDINGS_MODEL === undefined) {
    ctx.addIssue({
      code: "custom",
      path: ["EMBEDDINGS_MODEL"],
      message: `is required when EMBEDDINGS is ${value.EMBEDDINGS}`,
    });
  }
}

/** Which model embeds, and how: `null` when EMBEDDINGS is `none`. */
export type EmbeddingSettings = OpenAiSettings | LocalSettings;

/** Settings shared by both providers. */
interface CommonSettings {
  readonly model: string;
  /**
   * Namespace prefixes whose memories are embedded (EMBEDDINGS_NAMESPACES); null: every memory,
   * with a namespace or not.
   */
  readonly namespaces: readonly string[] | null;
  readonly batchSize: number;
  readonly concurrency: number;
}

/** An OpenAI-compatible `/v1/embeddings` endpoint. */
export interface OpenAiSettings extends CommonSettings {
  readonly provider: "openai";
  /** The base URL (`…/v1`) or the endpoint itself (`…/v1/embeddings`). */
  readonly url: string;
  readonly apiKey: string | null;
  /** Sent as `dimensions` (models that can shorten their vectors); null: the model's own. */
  readonly dimensions: number | null;
  readonly timeoutMs: number;
  readonly maxRetries: number;
}

/** A transformers.js model run in this process. */
export interface LocalSettings extends CommonSettings {
  readonly provider: "local";
  /** Directory holding models by name (`<dir>/<model>/config.json`, …); null: the cache only. */
  readonly modelDir: string | null;
  readonly allowDownload: boolean;
  readonly pooling: "mean" | "cls";
}

/** The settings of parsed embedding variables; null when EMBEDDINGS is `none`. */
export function embeddingSettings(v: EmbeddingsEnv): EmbeddingSettings | null {
  if (v.EMBEDDINGS === "none" || v.EMBEDDINGS_MODEL === undefined) {
    return null;
  }
  const common = {
    model: v.EMBEDDINGS_MODEL,
    namespaces: v.EMBEDDINGS_NAMESPACES,
    batchSize: v.EMBEDDINGS_BATCH_SIZE,
    concurrency: v.EMBEDDINGS_CONCURRENCY,
  };
  if (v.EMBEDDINGS === "openai") {
    return {
      ...common,
      provider: "openai",
      url: v.EMBEDDINGS_URL,
      apiKey: v.EMBEDDINGS_API_KEY ?? null,
      dimensions: v.EMBEDDINGS_DIMENSIONS ?? null,
      timeoutMs: v.EMBEDDINGS_TIMEOUT_MS,
      maxRetries: v.EMBEDDINGS_MAX_RETRIES,
    };
  }
  return {
    ...common,
    provider: "local",
    modelDir: v.EMBEDDINGS_MODEL_DIR ?? null,
    allowDownload: v.EMBEDDINGS_ALLOW_DOWNLOAD,
    pooling: v.EMBEDDINGS_POOLING,
  };
}

/**
 * Whether a memory of `namespace` is embedded under `namespaces` (EMBEDDINGS_NAMESPACES): every
 * memory when null, else a memory whose namespace starts with one of the prefixes.
 */
export function embedsNamespace(
  namespaces: readonly string[] | null,
  namespace: string | null,
): boolean {
  if (namespaces === null) {
    return true;
  }
  return namespace !== null && namespaces.some((prefix) => namespace.startsWith(prefix));
}
