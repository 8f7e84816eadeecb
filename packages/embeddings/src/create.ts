/**
 * The provider of the configured settings.
 * @module
 */
import type { EmbeddingSettings } from "./config.js";
import { LocalEmbeddings } from "./local.js";
import { OpenAiEmbeddings } from "./openai.js";
import type { EmbeddingProvider } from "./provider.js";

/**
 * The embedding provider of `settings` (EMBEDDINGS `openai` or `local`). Nothing is contacted or
 * loaded until the first embedding.
 * @param options.cacheDir transformers.js's download cache (`local` only).
 * @throws TypeError for a malformed URL; RangeError for a bad batch size or concurrency.
 */
export function createEmbeddingProvider(
  settings: EmbeddingSettings,
  options: { readonly cacheDir?: string } = {},
): EmbeddingProvider {
  return settings.provider === "openai"
    ? new OpenAiEmbeddings(settings)
    : new LocalEmbeddings(settings, options);
}
