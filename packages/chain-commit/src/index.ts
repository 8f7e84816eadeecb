/**
 * @verifiable-memory/chain-commit: the one chain client of the service (docs/protocol.md §7) — commitment account
 * reads and commits over standard Solana JSON-RPC (@solana/web3.js) with the program's Anchor IDL,
 * typed chain errors, the authority keypair file loader, and a keypair-free reader for auditors.
 * Source: docs/protocol.md §6, §7, §1; packages/chain-commit/README.md.
 * @module
 */

export { type CommitmentAccount, commitmentAddress, decodeCommitmentAccount } from "./account.js";
export {
  type BatchCommitOutcome,
  type BatchCommitRequest,
  MAX_LEGACY_TRANSACTION_BYTES,
} from "./batch.js";
export { type CheckpointLogState, readCheckpointLogAt } from "./checkpoint-log.js";
export {
  ChainClient,
  type ChainConfig,
  type CommitResult,
  clusterFromRpcUrl,
  type ReadOptions,
  readCommitmentFromRpc,
  type TransactionSummary,
} from "./client.js";
export {
  ChainError,
  ChainUnavailableError,
  ConfirmationTimeoutError,
  CountDecreasedError,
  InsufficientFundsError,
  InvalidCommitmentAccountError,
  KeypairFileError,
  NonceRaceError,
  RootMismatchError,
  TransactionFailedError,
  UnauthorizedAuthorityError,
} from "./errors.js";
export { loadKeypairFile } from "./keypair.js";
export {
  type StakeLot,
  type StakeRefusalCode,
  type StakeState,
  StakeTransactionRefusedError,
  StakingClient,
  type StakingClientConfig,
  StakingNotConfiguredError,
  type SubmitResult,
} from "./staking.js";
