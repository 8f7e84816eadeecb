/**
 * `@verifiable-memory/embeddings`: embedding models behind one interface (EMBEDDINGS `openai` or
 * `local`), with batching, a bounded queue, retries and clear errors.
 * @module
 */
export {
  checkEmbeddingsEnv,
  type EmbeddingSettings,
  type EmbeddingsEnv,
  embeddingSettings,
  embeddingsFields,
  embedsNamespace,
  type LocalSettings,
  type OpenAiSettings,
} from "./config.js";
export { createEmbeddingProvider } from "./create.js";
export { LocalEmbeddings, type LocalOptions } from "./local.js";
export { embeddingsEndpoint, OpenAiEmbeddings, type OpenAiOptions } from "./openai.js";
export {
  type EmbeddingLane,
  type EmbeddingProvider,
  EmbeddingsError,
  formatModelId,
} from "./provider.js";
export { EmbeddingQueue, type EmbeddingQueueOptions } from "./queue.js";
