/**
 * `@svc/envelope-crypto`: per-user data keys wrapped under the master key, and memory bodies
 * sealed under the data key, with AES-256-GCM on node:crypto (spec §1, §2, §5; STYLE.md §21).
 * @module
 */
export { ENVELOPE_VERSION } from "./_format.js";
export { pooledRandom, type RandomSource } from "./_random.js";
export {
  type BodyContext,
  decryptBody,
  encryptBody,
  type SealedBody,
} from "./body.js";
export { generateDataKey, unwrapDataKey, wrapDataKey } from "./data-key.js";
export { DecryptionError, type DecryptionErrorCode } from "./errors.js";
export { parseMasterKey } from "./master-key.js";
