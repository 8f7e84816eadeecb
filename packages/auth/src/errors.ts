/**
 * Typed sign-in and credential errors (CONTRACT §2, §3, §11). The HTTP apps map each code to a
 * status in one place; this package knows nothing of HTTP.
 * @module
 */

/** Every failure this package reports, named as in CONTRACT §2. */
export type AuthErrorCode =
  | "invalid_public_key"
  | "invalid_request"
  | "malformed_message"
  | "nonce_not_found"
  | "challenge_expired"
  | "message_mismatch"
  | "invalid_signature"
  | "unauthorized";

/** A sign-in or credential failure with its CONTRACT code. */
export class AuthError extends Error {
  readonly code: AuthErrorCode;

  constructor(code: AuthErrorCode, message: string) {
    super(message);
    this.name = "AuthError";
    this.code = code;
  }
}
