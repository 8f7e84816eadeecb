/**
 * Typed sign-in and credential errors (docs/protocol.md §2, §3, §2). The HTTP apps map each code to a
 * status in one place; this package knows nothing of HTTP.
 * @module
 */

/** Every failure this package reports, named as in docs/protocol.md §2. */
export type AuthErrorCode =
  | "invalid_public_key"
  | "invalid_request"
  | "malformed_message"
  | "nonce_not_found"
  | "challenge_expired"
  | "message_mismatch"
  | "invalid_signature"
  | "unauthorized"
  | "insufficient_scope"
  | "challenges_exhausted";

/** A sign-in or credential failure with its protocol error code (docs/protocol.md §1). */
export class AuthError extends Error {
  readonly code: AuthErrorCode;

  constructor(code: AuthErrorCode, message: string) {
    super(message);
    this.name = "AuthError";
    this.code = code;
  }
}
