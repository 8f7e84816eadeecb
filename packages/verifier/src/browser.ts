/**
 * `@verifiable-memory/verifier` in a browser (the package's `"browser"` export condition): everything of
 * the Node.js entry but the `svc-verify` command line, hashing with `@noble/hashes` (`#sha256`).
 *
 * `@verifiable-memory/verifier`: permissionless verification of a memory's proof bundle against the chain
 * (docs/protocol.md §4, §2 Authorization rule 4; docs/protocol.md §4, §6). `verifyBundle` is the core; the
 * `svc-verify` command line is a thin shell over it. It never trusts the memory API: the only
 * thing it may ask it for (with `apiUrl`) is a public RFC 9162 consistency proof that bridges an
 * old bundle to the on-chain root, and that proof is verified, not believed (docs/protocol.md §6.3).
 * @module
 */
export {
  type AccountData,
  ChainReadError,
  commitmentAddress,
  decodeCommitmentAccount,
  InvalidAccountError,
  type OnChainCommitment,
  type ReadAccountOptions,
  readAccountData,
  readCommitmentAccount,
} from "./account.js";
export {
  type BundleAnchor,
  type BundleCheckpoint,
  BundleFormatError,
  type CheckpointLogAnchor,
  type CheckpointLogProof,
  type ParsedInput,
  type ProofBundle,
  parseInput,
} from "./bundle.js";
export {
  ConsistencyFetchError,
  type ConsistencyFetcherOptions,
  type ConsistencyRequest,
  consistencyFetcher,
  consistencyUrl,
  type FetchConsistency,
  type FetchLogConsistency,
  type LogConsistencyRequest,
  logConsistencyFetcher,
  proofOfAnswer,
} from "./consistency.js";
export {
  contentHashOf,
  type LeafData,
  type LeafDataV1,
  type LeafDataV2,
  type LeafWriter,
  leafDataBytes,
  leafHashOf,
} from "./leaf.js";
export {
  checkpointLogAddress,
  type OnChainCheckpointLog,
  readCheckpointLogAccount,
} from "./log-account.js";
export { logKeysFromInfo, parseLogKeys } from "./log-keys.js";
export type {
  ConsistencyBridge,
  VerifyCheck,
  VerifyCheckName,
  VerifyPath,
  VerifyReason,
  VerifyResult,
} from "./result.js";
export { type VerifyOptions, verifyBundle } from "./verify.js";
export {
  checkWitnessPolicy,
  parseWitnessKeys,
  type WitnessPolicyResult,
} from "./witness-policy.js";
