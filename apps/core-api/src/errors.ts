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
import {
  type BaseErrorCode,
  createErrorHandler,
  ApiError as HttpApiError,
} from "@verifiable-memory/http-kit";
import { MemoryDomainError } from "@verifiable-memory/memory";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { Logger } from "pino";

/** Every error code the core API emits. */
export type ErrorCode =
  | AuthErrorCode
  | BaseErrorCode
  | "forbidden"
  | "session_required"
  | "not_found"
  | "conflict"
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
  | "staking_not_configured";

/** The HTTP status of each code. Exhaustive: a new code does not compile without one. */
export function codeToStatus(code: ErrorCode): ContentfulStatusCode {
  switch (code) {
    case "invalid_request":
    case "invalid_transaction":
    case "invalid_public_key":
    case "malformed_message":
      return 400;
    case "unauthorized":
    case "nonce_not_found":
    case "challenge_expired":
    case "message_mismatch":
    case "invalid_signature":
      return 401;
    case "forbidden":
    case "session_required":
    case "insufficient_scope":
      return 403;
    case "not_found":
      return 404;
    case "method_not_allowed":
      return 405;
    case "conflict":
    case "nothing_matured":
    case "too_many_lots":
    case "insufficient_funds":
    case "blockhash_expired":
    case "transaction_failed":
      return 409;
    case "gone":
    case "grant_expired":
    case "grant_exhausted":
    case "grant_revoked":
      return 410;
    case "payload_too_large":
      return 413;
    case "unsupported_media_type":
      return 415;
    case "rate_limited":
      return 429;
    case "chain_unavailable":
    case "staking_not_configured":
    case "database_unavailable":
    case "migrations_pending":
      return 503;
    case "internal":
      return 500;
  }
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
