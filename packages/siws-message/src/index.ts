/**
 * `@verifiable-memory/siws-message`: the Sign-In With Solana message of docs/protocol.md §2 (EIP-4361 layout as
 * adopted by the Solana wallet standard), with no runtime dependencies, shared by wallet,
 * browser and verifier. Also exports the small base58 and timestamp utilities it is built on.
 * @module
 */
export type { SignInMessageFields } from "./_fields.js";
export { Base58DecodeError, base58Decode, base58Encode } from "./base58.js";
export {
  buildSignInMessage,
  parseSignInMessage,
  SIGN_IN_TTL_MS,
  SignInMessageFieldError,
  SignInMessageParseError,
  signInStatement,
} from "./message.js";
export { generateNonce, NONCE_BYTES, type RandomBytes } from "./nonce.js";
export { formatTimestamp, parseTimestamp, TimestampParseError } from "./timestamp.js";
