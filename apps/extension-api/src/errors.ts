/**
 * The closed set of error codes of the extension API and their HTTP statuses (docs/protocol.md §1, §9),
 * mapped in exactly one place; rendering is @verifiable-memory/http-kit's.
 * @module
 */
import { AuthError, type AuthErrorCode } from "@verifiable-memory/auth";
import {
  BASE_STATUS,
  createErrorHandler,
  ApiError as HttpApiError,
  type SharedErrorCode,
} from "@verifiable-memory/http-kit";
import { MemoryDomainError } from "@verifiable-memory/memory";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { Logger } from "pino";
import { InvalidRedirectUriError } from "./services/connect.js";

/** Every error code the extension API emits. */
export type ErrorCode = AuthErrorCode | SharedErrorCode | "invalid_redirect_uri";

/** The HTTP status of each code: the shared ones, and this API's own. */
const STATUS: Readonly<Record<ErrorCode, ContentfulStatusCode>> = {
  ...BASE_STATUS,
  invalid_redirect_uri: 400,
};

/** The HTTP status of `code` (docs/protocol.md §1.4 "Error codes"). */
export function codeToStatus(code: ErrorCode): ContentfulStatusCode {
  return STATUS[code];
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
