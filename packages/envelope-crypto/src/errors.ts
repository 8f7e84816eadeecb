/**
 * Typed errors of envelope encryption. Messages never carry key material or plaintext.
 * @module
 */

/** Why an envelope could not be opened. */
export type DecryptionErrorCode =
  | "unsupported_version"
  | "authentication_failed"
  | "malformed"
  | "unknown_master_key";

/**
 * Thrown when a wrapped data key or a sealed body cannot be opened: wrong key, wrong associated
 * data (another user or memory), any flipped bit, an unknown format version, truncated input, or
 * (`unknown_master_key`, from `MasterKeyring.unwrap`) a wrap naming a master key id that is not
 * configured.
 */
export class DecryptionError extends Error {
  readonly code: DecryptionErrorCode;

  constructor(code: DecryptionErrorCode, message: string) {
    super(message);
    this.name = "DecryptionError";
    this.code = code;
  }
}
