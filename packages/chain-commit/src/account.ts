/**
 * The commitment account: its address (PDA `["commitment", owner]` under the program) and its
 * decoding through the program's Anchor IDL (@coral-xyz/anchor BorshCoder).
 * Source: CONTRACT.md §6, §11 (8-byte discriminator, authority, owner, root, memoryCount u64 LE,
 * nonce u64 LE, bump; 121 bytes); programs/commitment/idl/commitment.json.
 * @module
 */

import anchor from "@coral-xyz/anchor";
import { PublicKey } from "@solana/web3.js";
import {
  COMMITMENT_ACCOUNT_DISCRIMINATOR,
  COMMITMENT_ACCOUNT_SIZE,
  COMMITMENT_SEED,
  commitmentIdl,
} from "@svc/commitment-program";
import { InvalidCommitmentAccountError } from "./errors.js";

type BN = InstanceType<typeof anchor.BN>;

/** The IDL's Borsh coder (instruction and account layouts; the IDL address is irrelevant here). */
export const commitmentCoder = new anchor.BorshCoder(commitmentIdl);

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
 * under `programId`.
 * @throws TypeError if either argument is not a base58 public key.
 * @example commitmentAddress(LOCAL_PROGRAM_ID, wallet).toBase58()
 * Source: CONTRACT.md §6.
 */
export function commitmentAddress(
  programId: string | PublicKey,
  owner: string | PublicKey,
): PublicKey {
  const [address] = PublicKey.findProgramAddressSync(
    [Buffer.from(COMMITMENT_SEED, "utf8"), toPublicKey(owner, "owner").toBuffer()],
    toPublicKey(programId, "programId"),
  );
  return address;
}

function safeNumber(value: BN, field: string): number {
  if (value.bitLength() > 53) {
    throw new RangeError(`${field} ${value.toString()} exceeds Number.MAX_SAFE_INTEGER`);
  }
  return value.toNumber();
}

/**
 * Decodes commitment account data with the IDL's account coder.
 * @param data exactly 121 bytes starting with sha256("account:Commitment")[..8].
 * @throws InvalidCommitmentAccountError on a wrong size or discriminator; RangeError when
 *   memoryCount or nonce exceeds 2^53 - 1.
 * Source: CONTRACT.md §11.
 */
export function decodeCommitmentAccount(data: Uint8Array): Omit<CommitmentAccount, "address"> {
  if (data.length !== COMMITMENT_ACCOUNT_SIZE) {
    throw new InvalidCommitmentAccountError(
      `expected ${COMMITMENT_ACCOUNT_SIZE} bytes, got ${data.length}`,
    );
  }
  if (!COMMITMENT_ACCOUNT_DISCRIMINATOR.every((byte, i) => data[i] === byte)) {
    throw new InvalidCommitmentAccountError("discriminator is not sha256('account:Commitment')");
  }
  const decoded = commitmentCoder.accounts.decode("Commitment", Buffer.from(data)) as {
    authority: PublicKey;
    owner: PublicKey;
    root: number[];
    memory_count: BN;
    nonce: BN;
    bump: number;
  };
  return {
    authority: decoded.authority.toBase58(),
    owner: decoded.owner.toBase58(),
    root: Uint8Array.from(decoded.root),
    memoryCount: safeNumber(decoded.memory_count, "memoryCount"),
    nonce: safeNumber(decoded.nonce, "nonce"),
    bump: decoded.bump,
  };
}
