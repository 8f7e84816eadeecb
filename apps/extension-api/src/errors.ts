/**
 * The closed set of error codes of the extension API and their HTTP statuses (docs/protocol.md §1, §9),
 * mapped in exactly one place; rendering is @verifiable-memory/http-kit's.
 * @module
 */
import { AuthError, type AuthErrorCode } from "@verifiable-memory/auth";
import {
  type BaseErrorCode,
  createErrorHandler,
  ApiError as HttpApiError,
} from "@verifiable-memory/http-kit";
import { MemoryDomainError } from "@verifiable-memory/memory";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { Logger } from "pino";
import { InvalidRedirectUriError } from "./services/connect.js";

/** Every error code the extension API emits. */
export type ErrorCode =
  | AuthErrorCode
  | BaseErrorCode
  | "invalid_redirect_uri"
  | "not_found"
  | "forbidden"
  | "conflict";

/** The HTTP status of each code. Exhaustive: a new code does not compile without one. */
export function codeToStatus(code: ErrorCode): ContentfulStatusCode {
  switch (code) {
    case "invalid_request":
    case "invalid_public_key":
    case "malformed_message":
    case "invalid_redirect_uri":
      return 400;
    case "unauthorized":
    case "nonce_not_found":
    case "challenge_expired":
    case "message_mismatch":
    case "invalid_signature":
      return 401;
    case "forbidden":
    case "insufficient_scope":
      return 403;
    case "conflict":
      return 409;
    case "not_found":
      return 404;
    case "payload_too_large":
      return 413;
    case "unsupported_media_type":
      return 415;
    case "rate_limited":
      return 429;
    case "database_unavailable":
    case "migrations_pending":
      return 503;
    case "internal":
      return 500;
  }
}

/** An error with one of the extension API's codes. */
export class ApiError extends HttpApiError<ErrorCode> {}

/** The extension API's error handler: the packages' typed errors keep their codes. */
export function handleError(logger: Logger) {
  return createErrorHandler<ErrorCode>({ logger, codeToStatus, translate: translateError });
}

function translateError(err: Error): ApiError | undefined {
  if (err instanceof AuthError || err instanceof MemoryDomainError) {
    return new ApiError(err.code, err.message, (err as { details?: unknown }).details);
  }
  if (err instanceof InvalidRedirectUriError) {
    return new ApiError("invalid_redirect_uri", err.message);
  }
  return undefined;
}
