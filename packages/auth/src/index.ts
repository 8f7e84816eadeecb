/**
 * `@verifiable-memory/auth`: the sign-in checks shared by the core and extension APIs (docs/protocol.md §2): challenges,
 * the five ordered verification checks, session JWTs, API keys and bearer resolution.
 * @module
 */
export {
  API_KEY_PREFIX,
  API_KEY_STORED_PREFIX_LENGTH,
  type ApiKeyGrant,
  type CreatedApiKey,
  createApiKey,
  hashApiKey,
} from "./api-keys.js";
export { type AuthContext, resolveBearer } from "./bearer.js";
export {
  type Challenge,
  DEFAULT_MAX_OUTSTANDING_CHALLENGES,
  issueChallenge,
  type SignInConfig,
} from "./challenge.js";
export { AuthError, type AuthErrorCode } from "./errors.js";
export {
  EXTENSION_TOKEN_BYTES,
  EXTENSION_TOKEN_TTL_SECONDS,
  type ExtensionAuthContext,
  hashExtensionToken,
  type IssuedExtensionToken,
  isExtensionRedirectUri,
  issueExtensionToken,
  resolveExtensionToken,
  revokeExtensionToken,
} from "./extension-session.js";
export { decodePublicKey } from "./public-key.js";
export { requireScope } from "./scopes.js";
export {
  issueSessionToken,
  SESSION_CLOCK_SKEW_SECONDS,
  SESSION_TTL_SECONDS,
  type SessionClaims,
  verifySessionToken,
} from "./session.js";
export { createUserLoader, MAX_USERS_PER_LOOKUP, type UserLoader } from "./user-loader.js";
export { type VerifiedSignIn, verifySignIn } from "./verify.js";
