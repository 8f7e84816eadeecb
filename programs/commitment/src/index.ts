/**
 * @verifiable-memory/commitment-program: the on-chain commitment program (C, SBPF v0) and what clients
 * need to use it: the committed ELF path, the local program id, the Anchor IDL, the wire
 * format of commitments and stake vaults. The real-loader deployment helper for litesvm is the
 * separate entry point `@verifiable-memory/commitment-program/deploy` (it loads litesvm's native module).
 * Source: docs/protocol.md §7 and §1; programs/commitment/README.md.
 * @module
 */

export {
  ANCHOR_CONFIG_ACCOUNT_DISCRIMINATOR,
  ANCHOR_CONFIG_ACCOUNT_SIZE,
  ANCHOR_CONFIG_SEED,
  type AnchorConfigAccount,
  createSetAnchorConfigInstruction,
  createSetAuthorityInstruction,
  createSweepVaultInstruction,
  decodeAnchorConfig,
  findAnchorConfigAddress,
  SET_ANCHOR_CONFIG_DISCRIMINATOR,
  SET_AUTHORITY_DISCRIMINATOR,
  type SetAnchorConfigArgs,
  type SetAuthorityArgs,
  SWEEP_VAULT_DISCRIMINATOR,
  type SweepVaultArgs,
} from "./admin.js";
export {
  CHECKPOINT_LOG_ACCOUNT_DISCRIMINATOR,
  CHECKPOINT_LOG_ACCOUNT_SIZE,
  CHECKPOINT_LOG_SEED,
  type CheckpointLogAccount,
  COMMIT_CHECKPOINT_LOG_DISCRIMINATOR,
  createCommitCheckpointLogInstruction,
  createInitializeCheckpointLogInstruction,
  decodeCheckpointLog,
  findCheckpointLogAddress,
  INITIALIZE_CHECKPOINT_LOG_DISCRIMINATOR,
} from "./checkpoint-log.js";
export { commitmentIdl, idlFor } from "./idl.js";
export {
  COMMIT_DISCRIMINATOR,
  COMMIT_ENTRY_SIZE,
  COMMIT_MANY_DISCRIMINATOR,
  COMMITMENT_ACCOUNT_DISCRIMINATOR,
  COMMITMENT_ACCOUNT_SIZE,
  COMMITMENT_LAYOUT,
  COMMITMENT_SEED,
  type CommitEntry,
  type CommitInstructionArgs,
  type CommitmentAccount,
  CommitmentErrorCode,
  type CommitmentErrorName,
  createCommitInstruction,
  createCommitManyInstruction,
  createInitializeInstruction,
  decodeCommitment,
  findCommitmentAddress,
  INITIALIZE_DISCRIMINATOR,
  type InitializeInstructionArgs,
  InvalidCommitmentDataError,
  refusedCommitEntry,
} from "./layout.js";
export { BPF_UPGRADEABLE_LOADER_ID, LOCAL_PROGRAM_ID, programSoPath } from "./program.js";
export {
  createInitializeStakeConfigInstruction,
  createStakeInstruction,
  createUnstakeInstruction,
  decodeStakeConfig,
  decodeStakeVault,
  decodeStakingInstruction,
  findProgramDataAddress,
  findStakeConfigAddress,
  findVaultAddress,
  INITIALIZE_STAKE_CONFIG_DISCRIMINATOR,
  type InitializeStakeConfigArgs,
  InvalidStakeDataError,
  MAX_LOCK_PERIOD_SECONDS,
  MAX_STAKE_LOTS,
  STAKE_CONFIG_ACCOUNT_DISCRIMINATOR,
  STAKE_CONFIG_ACCOUNT_SIZE,
  STAKE_CONFIG_LAYOUT,
  STAKE_CONFIG_SEED,
  STAKE_DISCRIMINATOR,
  STAKE_LOT_SIZE,
  STAKE_VAULT_ACCOUNT_DISCRIMINATOR,
  STAKE_VAULT_ACCOUNT_SIZE,
  STAKE_VAULT_LAYOUT,
  type StakeConfigAccount,
  type StakeInstructionArgs,
  type StakeLot,
  type StakeVaultAccount,
  type StakingInstruction,
  UNSTAKE_DISCRIMINATOR,
  type UnstakeInstructionArgs,
  VAULT_SEED,
} from "./stake.js";
