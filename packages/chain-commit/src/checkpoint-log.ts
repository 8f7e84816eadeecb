/**
 * The checkpoint log account as the chain client sees it (docs/protocol.md §7.1 "The commitment
 * account", §13.5 "The checkpoint log"): one account per anchor authority at PDA
 * ["checkpoint-log", authority], read with JS numbers and written by ONE legacy transaction
 * (`initialize_checkpoint_log` on first use, then `commit_checkpoint_log`).
 * @module
 */
import type { Commitment, Connection, PublicKey, TransactionInstruction } from "@solana/web3.js";
import {
  createCommitCheckpointLogInstruction,
  createInitializeCheckpointLogInstruction,
  decodeCheckpointLog,
  findCheckpointLogAddress,
} from "@verifiable-memory/commitment-program";
import { InvalidCommitmentAccountError } from "./errors.js";
import { readProgramAccount } from "./rpc.js";

/** A decoded checkpoint log account (u64 values above 2^53 - 1 are refused). */
export interface CheckpointLogState {
  /** The account's address (the PDA), base58. */
  readonly address: string;
  /** The only key that writes it, base58. */
  readonly authority: string;
  /** Root of the checkpoint log at `size` entries, 32 bytes (zero before the first commit). */
  readonly root: Uint8Array;
  /** Entries covered by `root`. */
  readonly size: number;
  /** Commits so far; the next commit passes it as `expectedNonce`. */
  readonly nonce: number;
}

function safeNumber(value: bigint, name: string, address: string): number {
  if (value > BigInt(Number.MAX_SAFE_INTEGER)) {
    throw new InvalidCommitmentAccountError(`${name} ${value} is above 2^53 - 1`, address);
  }
  return Number(value);
}

/**
 * Reads the checkpoint log account of `authority`.
 * @returns the account, or null when none exists at its PDA.
 * @throws ChainUnavailableError when the read fails (never null then); InvalidCommitmentAccountError
 *   when the PDA holds an account of another owner or layout.
 */
export async function readCheckpointLogAt(
  connection: Connection,
  program: PublicKey,
  authority: PublicKey,
  commitment: Commitment,
): Promise<CheckpointLogState | null> {
  const address = findCheckpointLogAddress(authority, program)[0];
  const id = address.toBase58();
  const info = await readProgramAccount(connection, program, address, commitment);
  if (!info) {
    return null;
  }
  let decoded: ReturnType<typeof decodeCheckpointLog>;
  try {
    decoded = decodeCheckpointLog(info.data);
  } catch (error) {
    throw new InvalidCommitmentAccountError((error as Error).message, id);
  }
  return {
    address: id,
    authority: decoded.authority.toBase58(),
    root: decoded.root,
    size: safeNumber(decoded.size, "size", id),
    nonce: safeNumber(decoded.nonce, "nonce", id),
  };
}

/**
 * The instructions of one checkpoint-log anchor: `initialize_checkpoint_log` when `initialize`
 * (the account does not exist yet), then `commit_checkpoint_log(root, size, expectedNonce)`.
 * @throws RangeError for a root that is not 32 bytes or a negative or unsafe number.
 */
export function checkpointLogInstructions(args: {
  readonly program: PublicKey;
  readonly authority: PublicKey;
  readonly root: Uint8Array;
  readonly size: number;
  readonly expectedNonce: number;
  readonly initialize: boolean;
}): TransactionInstruction[] {
  for (const [name, value] of [
    ["size", args.size],
    ["expectedNonce", args.expectedNonce],
  ] as const) {
    if (!Number.isSafeInteger(value) || value < 0) {
      throw new RangeError(`${name} must be an integer in 0..2^53-1, got ${value}`);
    }
  }
  const ids = { programId: args.program, authority: args.authority };
  return [
    ...(args.initialize ? [createInitializeCheckpointLogInstruction(ids)] : []),
    createCommitCheckpointLogInstruction({
      ...ids,
      root: args.root,
      size: BigInt(args.size),
      expectedNonce: BigInt(args.expectedNonce),
    }),
  ];
}
