/**
 * The commitment account as the service sees it: its address (PDA `["commitment", owner]` under
 * the program) and its decoding into JS numbers, on top of the one codec
 * (`findCommitmentAddress`, `decodeCommitment` of @verifiable-memory/commitment-account).
 * Source: docs/protocol.md §7 (121-byte layout: 8-byte discriminator, authority, owner, root,
 * memoryCount u64 LE, nonce u64 LE, bump).
 * @module
 */

import { PublicKey } from "@solana/web3.js";
import {
  decodeCommitment,
  findCommitmentAddress,
  InvalidCommitmentDataError,
} from "@verifiable-memory/commitment-account";
import { InvalidCommitmentAccountError } from "./errors.js";

/** A decoded commitment account. Numbers are JS numbers (u64 values above 2^53 - 1 are refused). */
export interface CommitmentAccount {
  /** The account's address (the PDA), base58. */
  readonly address: string;
  /** Key allowed to commit, base58. */
  readonly authority: string;
  /** The user whose log is committed, base58. */
  readonly owner: string;
  /** Latest committed Merkle root, 32 bytes (all zero before the first commit). */
  readonly root: Uint8Array;
  /** Leaves covered by `root`. */
  readonly memoryCount: number;
  /** Commits so far; the next commit must pass it as `expectedNonce`. */
  readonly nonce: number;
  /** PDA bump seed. */
  readonly bump: number;
}

/**
 * Parses `value` as a base58 public key.
 * @throws TypeError naming `what` when it is not one.
 */
export function toPublicKey(value: string | PublicKey, what: string): PublicKey {
  if (value instanceof PublicKey) {
    return value;
  }
  try {
    return new PublicKey(value);
  } catch {
    throw new TypeError(`${what} must be a base58 public key, got ${JSON.stringify(value)}`);
  }
}

/**
 * The commitment account address of `owner`: PDA of seeds `["commitment", owner pubkey bytes]`
 * under `programId` (`findCommitmentAddress` of @verifiable-memory/commitment-account).
 * @throws TypeError if either argument is not a base58 public key.
 * @example commitmentAddress(wallet, LOCAL_PROGRAM_ID).toBase58()
 */
export function commitmentAddress(
  owner: string | PublicKey,
  programId: string | PublicKey,
): PublicKey {
  const { address } = findCommitmentAddress(
    toPublicKey(owner, "owner").toBytes(),
    toPublicKey(programId, "programId").toBytes(),
  );
  return new PublicKey(address);
}

function safeNumber(value: bigint, field: string): number {
  if (value > BigInt(Number.MAX_SAFE_INTEGER)) {
    throw new RangeError(`${field} ${value.toString()} exceeds Number.MAX_SAFE_INTEGER`);
  }
  return Number(value);
}

/**
 * Decodes commitment account data with @verifiable-memory/commitment-account's codec.
 * @param data exactly 121 bytes starting with sha256("account:Commitment")[..8].
 * @throws InvalidCommitmentAccountError on a wrong size or discriminator; RangeError when
 *   memoryCount or nonce exceeds 2^53 - 1.
 */
export function decodeCommitmentAccount(data: Uint8Array): Omit<CommitmentAccount, "address"> {
  let decoded: ReturnType<typeof decodeCommitment>;
  try {
    decoded = decodeCommitment(data);
  } catch (error) {
    if (error instanceof InvalidCommitmentDataError) {
      throw new InvalidCommitmentAccountError(error.message);
    }
    throw error;
  }
  return {
    authority: decoded.authority,
    owner: decoded.owner,
    root: decoded.root,
    memoryCount: safeNumber(decoded.memoryCount, "memoryCount"),
    nonce: safeNumber(decoded.nonce, "nonce"),
    bump: decoded.bump,
  };
}
