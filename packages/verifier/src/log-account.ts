/**
 * Reading the deployment's checkpoint log account straight from a Solana JSON-RPC endpoint
 * (docs/protocol.md §7.1 "The commitment account", §13.5 "The checkpoint log"): the PDA
 * `["checkpoint-log", authority]` and its 89-byte layout from `@verifiable-memory/commitment-account`,
 * one `getAccountInfo` call.
 * @module
 */
import {
  decodeCheckpointLog,
  findCheckpointLogAddress,
  InvalidCommitmentDataError,
} from "@verifiable-memory/commitment-account";
import { toHex } from "@verifiable-memory/merkle-log";
import { InvalidAccountError, type ReadAccountOptions, readAccountData } from "./account.js";

/** A checkpoint log account as read from the chain. */
export interface OnChainCheckpointLog {
  /** The account address (the PDA), base58. */
  readonly account: string;
  /** The program that owns the account, base58. */
  readonly programId: string;
  /** The only key that writes it, base58 (a seed of the address). */
  readonly authority: string;
  /** The checkpoint log's root, lowercase hex (zero before the first commit). */
  readonly root: string;
  /** Entries covered by `root`. */
  readonly size: number;
  /** Number of commits so far. */
  readonly nonce: number;
}

/**
 * The checkpoint log account of `authority` under `programId`:
 * `findProgramAddress(["checkpoint-log", authority], programId)`.
 * @returns the address, base58.
 * @throws TypeError naming the argument that is not base58 of 32 bytes.
 */
export function checkpointLogAddress(authority: string, programId: string): string {
  return findCheckpointLogAddress(authority, programId).address;
}

/**
 * Reads and decodes the checkpoint log account at `account`, and checks that the address is the
 * PDA of the authority it stores (so the account is that authority's, whoever the bundle says).
 * @returns the decoded account, or null when no account exists at that address.
 * @throws ChainReadError when the RPC cannot be read (unknown, never "absent").
 * @throws InvalidAccountError when the account is not owned by `programId`, is not a checkpoint
 *   log account, holds a size or nonce above 2^53 − 1, or is not at its authority's PDA.
 */
export async function readCheckpointLogAccount(
  rpcUrl: string,
  account: string,
  programId: string,
  options: ReadAccountOptions = {},
): Promise<OnChainCheckpointLog | null> {
  const value = await readAccountData(rpcUrl, account, options);
  if (value === null) {
    return null;
  }
  if (value.owner !== programId) {
    throw new InvalidAccountError(`account is owned by ${value.owner}, not by ${programId}`);
  }
  let decoded: ReturnType<typeof decodeCheckpointLog>;
  try {
    decoded = decodeCheckpointLog(value.data);
  } catch (error) {
    if (error instanceof InvalidCommitmentDataError) {
      throw new InvalidAccountError(error.message);
    }
    throw error;
  }
  const max = BigInt(Number.MAX_SAFE_INTEGER);
  if (decoded.size > max || decoded.nonce > max) {
    throw new InvalidAccountError("size or nonce exceeds 2^53 - 1");
  }
  if (checkpointLogAddress(decoded.authority, programId) !== account) {
    throw new InvalidAccountError(
      `${account} is not the checkpoint log PDA of the authority it stores (${decoded.authority})`,
    );
  }
  return {
    account,
    programId,
    authority: decoded.authority,
    root: toHex(decoded.root),
    size: Number(decoded.size),
    nonce: Number(decoded.nonce),
  };
}
