/**
 * The closed set of error codes of the core API and their HTTP statuses (docs/protocol.md §1, §2, §3),
 * mapped in exactly one place; one error handler renders `{ error: { code, message, details? } }`.
 * @module
 */
import { AuthError, type AuthErrorCode } from "@verifiable-memory/auth";
import {
  ChainUnavailableError,
  ConfirmationTimeoutError,
  StakeTransactionRefusedError,
  StakingNotConfiguredError,
} from "@verifiable-memory/chain-commit";
import { InvalidCursorError } from "@verifiable-memory/db-schema";
import { EmbeddingsError } from "@verifiable-memory/embeddings";
import {
  BASE_STATUS,
  createErrorHandler,
  ApiError as HttpApiError,
  type SharedErrorCode,
} from "@verifiable-memory/http-kit";
import { MemoryDomainError } from "@verifiable-memory/memory";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { Logger } from "pino";

/** Every error code the core API emits. */
export type ErrorCode =
  | AuthErrorCode
  | SharedErrorCode
  | "session_required"
  | "gone"
  | "grant_expired"
  | "grant_exhausted"
  | "grant_revoked"
  | "nothing_matured"
  | "too_many_lots"
  | "insufficient_funds"
  | "blockhash_expired"
  | "transaction_failed"
  | "invalid_transaction"
  | "method_not_allowed"
  | "chain_unavailable"
  | "embeddings_unavailable"
  | "staking_not_configured"
  | "too_many_streams";

/** The HTTP status of each code: the shared ones, and this API's own. */
const STATUS: Readonly<Record<ErrorCode, ContentfulStatusCode>> = {
  ...BASE_STATUS,
  invalid_transaction: 400,
  session_required: 403,
  method_not_allowed: 405,
  nothing_matured: 409,
  too_many_lots: 409,
  insufficient_funds: 409,
  blockhash_expired: 409,
  transaction_failed: 409,
  gone: 410,
  too_many_streams: 429,
  grant_expired: 410,
  grant_exhausted: 410,
  grant_revoked: 410,
  chain_unavailable: 503,
  embeddings_unavailable: 503,
  staking_not_configured: 503,
};

/** The HTTP status of `code` (docs/protocol.md §1.4 "Error codes"). */
export function codeToStatus(code: ErrorCode): ContentfulStatusCode {
  return STATUS[code];
}

/** An error with one of the core API's codes, rendered by the app's error handler. */
export class ApiError extends HttpApiError<ErrorCode> {}

/**
 * The core API's error handler (@verifiable-memory/http-kit's, with this app's statuses): typed errors of the
 * packages keep their codes (auth, memory domain, cursors, chain).
 */
export function handleError(logger: Logger) {
  return createErrorHandler<ErrorCode>({ logger, codeToStatus, translate: translateError });
}

/** The packages' typed errors as API errors; undefined for any other error. */
function translateError(err: Error): ApiError | undefined {
  if (err instanceof AuthError || err instanceof MemoryDomainError) {
    return new ApiError(err.code, err.message, (err as { details?: unknown }).details);
  }
  if (err instanceof InvalidCursorError) {
    return new ApiError("invalid_request", "invalid cursor", [
      { path: ["cursor"], message: "the cursor is not valid for this list" },
    ]);
  }
  if (err instanceof ChainUnavailableError) {
    return new ApiError("chain_unavailable", "the chain RPC is unavailable");
  }
  if (err instanceof ConfirmationTimeoutError) {
    return new ApiError(
      "chain_unavailable",
      "the transaction was sent but not confirmed in time; check its signature later",
      { signature: err.signature },
    );
  }
  if (err instanceof EmbeddingsError) {
    return new ApiError(
      "embeddings_unavailable",
      `the embedding model could not embed the query (${err.code}); try again, or rank by relevance`,
    );
  }
  if (err instanceof StakingNotConfiguredError) {
    return new ApiError("staking_not_configured", err.message);
  }
  if (err instanceof StakeTransactionRefusedError) {
    return err.code === "invalid_signature"
      ? new ApiError("invalid_transaction", "the transaction's signature does not verify")
      : err.code === "staking_not_configured"
        ? new ApiError("staking_not_configured", err.message)
        : new ApiError(err.code, err.message, { logs: err.logs });
  }
  return undefined;
}
