/**
 * `@verifiable-memory/commitment-account`: the on-chain accounts of the verifiable memory service,
 * for anyone who reads them: the commitment account (the PDA `["commitment", owner]` under the
 * program, computed as the Solana runtime does, and its 121-byte data) and the deployment's
 * checkpoint log account (the PDA `["checkpoint-log", authority]` and its 89-byte data)
 * (docs/protocol.md §7.1 "The commitment account"). Pure: `@noble/hashes`, `@noble/ed25519` and
 * `bs58`, no Node built-ins, no I/O, no native code. The service's chain client and the verifier
 * both use it, so the layouts exist once.
 * @module
 */
export {
  COMMITMENT_SEED,
  createProgramAddress,
  findCommitmentAddress,
  findProgramAddress,
  MAX_SEED_BYTES,
  MAX_SEEDS,
  type ProgramAddress,
} from "./address.js";
export {
  CHECKPOINT_LOG_ACCOUNT_DISCRIMINATOR,
  CHECKPOINT_LOG_ACCOUNT_SIZE,
  CHECKPOINT_LOG_LAYOUT,
  CHECKPOINT_LOG_SEED,
  type CheckpointLogAccount,
  decodeCheckpointLog,
  findCheckpointLogAddress,
} from "./checkpoint-log.js";
export { PUBLIC_KEY_BYTES, type PublicKeyInput, publicKeyBytes, publicKeyText } from "./keys.js";
export {
  anchorDiscriminator,
  COMMITMENT_ACCOUNT_DISCRIMINATOR,
  COMMITMENT_ACCOUNT_SIZE,
  COMMITMENT_LAYOUT,
  type CommitmentAccount,
  type CommitmentAccountFields,
  decodeCommitment,
  encodeCommitment,
  InvalidCommitmentDataError,
} from "./layout.js";
