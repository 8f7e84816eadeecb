/**
 * @svc/commitment-program: the on-chain commitment program (C, SBPF v0) and what clients
 * need to use it: the committed ELF path, the local program id, the Anchor IDL, the wire
 * format and a real-loader deployment helper for litesvm.
 * Source: CONTRACT.md §6 and §11; programs/commitment/README.md.
 * @module
 */

export {
  BPF_UPGRADEABLE_LOADER_ID,
  type DeployedProgram,
  type DeployOptions,
  deployCommitmentProgram,
  ProgramDeployError,
} from "./deploy.js";
export { commitmentIdl, idlFor } from "./idl.js";
export {
  COMMIT_DISCRIMINATOR,
  COMMITMENT_ACCOUNT_DISCRIMINATOR,
  COMMITMENT_ACCOUNT_SIZE,
  COMMITMENT_LAYOUT,
  COMMITMENT_SEED,
  type CommitInstructionArgs,
  type CommitmentAccount,
  CommitmentErrorCode,
  type CommitmentErrorName,
  createCommitInstruction,
  createInitializeInstruction,
  decodeCommitment,
  findCommitmentAddress,
  INITIALIZE_DISCRIMINATOR,
  type InitializeInstructionArgs,
  InvalidCommitmentDataError,
} from "./layout.js";
export { LOCAL_PROGRAM_ID, programSoPath } from "./program.js";
