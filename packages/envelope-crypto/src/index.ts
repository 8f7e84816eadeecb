/**
 * `@verifiable-memory/envelope-crypto`: per-user data keys wrapped under the master key, and memory bodies,
 * recall segments, memory vectors, recall vector segments and grant search queries sealed under the data key, with AES-256-GCM on node:crypto (docs/protocol.md §4).
 * @module
 */
export {
  ENVELOPE_VERSION,
  GRANT_QUERY_VERSION,
  SEGMENT_VERSION,
  VECTOR_SEGMENT_VERSION,
  VECTOR_VERSION,
  WRAPPED_KEY_VERSION,
} from "./_format.js";
export { pooledRandom, type RandomSource } from "./_random.js";
export {
  type BodyContext,
  decryptBody,
  encryptBody,
  type SealedBody,
} from "./body.js";
export { generateDataKey, unwrapDataKey, wrapDataKey, wrappedKeyId } from "./data-key.js";
export { DecryptionError, type DecryptionErrorCode } from "./errors.js";
export { decryptGrantQuery, encryptGrantQuery, type GrantQueryContext } from "./grant-query.js";
export { type MasterKey, MasterKeyring } from "./keyring.js";
export { MASTER_KEY_ID_BYTES, masterKeyId, parseMasterKey } from "./master-key.js";
export { decryptSegment, encryptSegment, type SegmentContext } from "./segment.js";
export { decryptVector, encryptVector, type VectorContext } from "./vector.js";
export {
  decryptVectorSegment,
  encryptVectorSegment,
  type VectorSegmentContext,
} from "./vector-segment.js";
