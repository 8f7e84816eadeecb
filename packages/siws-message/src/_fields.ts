/**
 * Value rules for each field of the sign-in message, shared by the builder and the parser so the
 * two accept exactly the same values (docs/protocol.md §2.2 "The message"; EIP-4361 "Message
 * Format" for domain, URI and statement; docs/protocol.md §2 and §1). Internal: not in the barrel.
 * @module
 */
import { Base58DecodeError, base58Decode, maxBase58Length } from "./base58.js";
import { NONCE_BYTES } from "./nonce.js";
import { timestampProblem } from "./timestamp.js";

/** The nine fields of the sign-in message, in message order (EIP-4361 / wallet-standard names). */
export interface SignInMessageFields {
  /** RFC 3986 authority (`host[:port]`) asking for the sign-in, e.g. `example.com`. */
  readonly domain: string;
  /** The wallet's ed25519 public key: 32 bytes, base58. */
  readonly address: string;
  /** One line of human-readable text, e.g. from `signInStatement`. */
  readonly statement: string;
  /** RFC 3986 URI of the resource being signed in to, e.g. `https://example.com`. */
  readonly uri: string;
  /** Message format version; always `"1"`. */
  readonly version: "1";
  /** Chain ID, e.g. `devnet` (any non-empty token without whitespace). */
  readonly chainId: string;
  /** 16 random bytes, base58 (see `generateNonce`). */
  readonly nonce: string;
  /** `YYYY-MM-DDTHH:mm:ss.sssZ`. */
  readonly issuedAt: string;
  /** `YYYY-MM-DDTHH:mm:ss.sssZ`. */
  readonly expirationTime: string;
}

/** Field names in message order. */
export const FIELD_NAMES = [
  "domain",
  "address",
  "statement",
  "uri",
  "version",
  "chainId",
  "nonce",
  "issuedAt",
  "expirationTime",
] as const satisfies readonly (keyof SignInMessageFields)[];

// RFC 3986 §3.2 authority characters: unreserved, pct-encoded, sub-delims, ":", "@", "[", "]".
const DOMAIN = /^[A-Za-z0-9\-._~%!$&'()*+,;=:@[\]]+$/;
// RFC 3986 §3: scheme ":" then URI characters (unreserved, reserved, "%").
const URI = /^[A-Za-z][A-Za-z0-9+.-]*:[A-Za-z0-9\-._~%!$&'()*+,;=:@/?#[\]]+$/;
// Control characters (C0, DEL, C1), lone surrogates (they would not survive UTF-8 encoding, so
// the signed bytes would differ from the text) and the Unicode line and paragraph separators.
const STATEMENT = /^[^\p{Cc}\p{Cs}\u2028\u2029]+$/u;
const CHAIN_ID = /^[^\s\p{Cc}\p{Cs}]+$/u;

function base58Problem(value: string, what: string, byteLength: number): string | undefined {
  // Bound the length first: base58 decoding is quadratic and the text is untrusted.
  if (value.length > maxBase58Length(byteLength)) {
    return `${what} is too long to be ${byteLength} bytes of base58`;
  }
  let bytes: Uint8Array;
  try {
    bytes = base58Decode(value);
  } catch (error) {
    if (error instanceof Base58DecodeError) {
      return `${what} is not base58 (invalid character at index ${error.index})`;
    }
    throw error;
  }
  if (bytes.length !== byteLength) {
    return `${what} decodes to ${bytes.length} bytes, expected ${byteLength}`;
  }
  return undefined;
}

/** Each field's rule: why `value` is not acceptable, or undefined when it is. */
export const FIELD_PROBLEM: {
  readonly [K in keyof SignInMessageFields]: (value: string) => string | undefined;
} = {
  domain: (value) =>
    DOMAIN.test(value)
      ? undefined
      : "domain must be a non-empty RFC 3986 authority (host[:port]) without spaces",
  address: (value) => base58Problem(value, "public key", 32),
  statement: (value) => {
    if (value.length === 0) {
      return "statement must not be empty";
    }
    if (!STATEMENT.test(value)) {
      return "statement must not contain line breaks, control characters or lone surrogates";
    }
    if (/^\s|\s$/u.test(value)) {
      return "statement must not start or end with whitespace";
    }
    return undefined;
  },
  uri: (value) =>
    URI.test(value) ? undefined : "URI must be an RFC 3986 URI (scheme:...) without spaces",
  version: (value) => (value === "1" ? undefined : 'version must be "1"'),
  chainId: (value) =>
    CHAIN_ID.test(value)
      ? undefined
      : "chain ID must be a non-empty token without whitespace or control characters",
  nonce: (value) => base58Problem(value, "nonce", NONCE_BYTES),
  issuedAt: (value) => {
    const problem = timestampProblem(value);
    return problem === undefined ? undefined : `issued-at time: ${problem}`;
  },
  expirationTime: (value) => {
    const problem = timestampProblem(value);
    return problem === undefined ? undefined : `expiration time: ${problem}`;
  },
};
