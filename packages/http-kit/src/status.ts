/**
 * The HTTP status of each error code both APIs answer (docs/protocol.md §1.4 "Error codes"): the
 * codes this package emits, the sign-in and credential codes, and the memory domain's. Each app
 * spreads {@link BASE_STATUS} into its own exhaustive table (`Record<ErrorCode, status>`), so a
 * code without a status does not compile, and a shared code has one status in both APIs.
 * @module
 */
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { BaseErrorCode } from "./errors.js";

/** The error codes both APIs answer, with the same status in each. */
export type SharedErrorCode =
  | BaseErrorCode
  | "invalid_public_key"
  | "malformed_message"
  | "unauthorized"
  | "nonce_not_found"
  | "challenge_expired"
  | "message_mismatch"
  | "invalid_signature"
  | "insufficient_scope"
  | "forbidden"
  | "not_found"
  | "conflict"
  | "challenges_exhausted";

/** The status of each shared code (docs/protocol.md §1.4 "Error codes"). */
export const BASE_STATUS: Readonly<Record<SharedErrorCode, ContentfulStatusCode>> = {
  invalid_request: 400,
  invalid_public_key: 400,
  malformed_message: 400,
  unauthorized: 401,
  nonce_not_found: 401,
  challenge_expired: 401,
  message_mismatch: 401,
  invalid_signature: 401,
  insufficient_scope: 403,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  rate_limited: 429,
  internal: 500,
  database_unavailable: 503,
  migrations_pending: 503,
  challenges_exhausted: 503,
};
