/**
 * `@verifiable-memory/client`: the typed TypeScript SDK of the verifiable memory core API. Types are
 * generated from core-api's OpenAPI document (src/generated/core-api.ts); requests go through
 * openapi-fetch. Browser-safe: checking proofs against the chain is in `@verifiable-memory/client/verify`.
 * @module
 */
export { type RawClient, unwrap } from "./calls.js";
export {
  type ClientOptions,
  createClient,
  type SvcClient,
  type WalletSignInOptions,
} from "./client.js";
export {
  type BatchProgress,
  type ClientErrorCode,
  REQUEST_ID_HEADER,
  SvcError,
  type SvcErrorInit,
} from "./errors.js";
export {
  type EventStreamOptions,
  type MemoryEvent,
  type MemoryEventType,
  parseEventStream,
} from "./events.js";
export type { GrantCalls } from "./grants.js";
export {
  backoffMs,
  RETRIED_METHODS,
  RETRIED_STATUSES,
  type RetryEvent,
  type RetryOptions,
  retryAfterMs,
} from "./http.js";
export type { KeyCalls } from "./keys.js";
export type { LogCalls } from "./log.js";
export {
  BATCH_MAX_BODY_BYTES,
  BATCH_MAX_ITEMS,
  type MemoryCalls,
  type RememberManyOptions,
} from "./memories.js";
export type {
  AdapterWallet,
  KeypairLike,
  PublicKeyLike,
  SecretKeyInput,
  SignInWallet,
  SignMessageOutput,
  StandardWallet,
  StandardWalletAccount,
} from "./signing.js";
export type * from "./types.js";
