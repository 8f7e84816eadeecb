/**
 * Wire format of the commitment program: Anchor discriminators, the 121-byte account layout,
 * the error codes, the PDA derivation and raw instruction builders (no Anchor needed).
 * Source: docs/protocol.md §7; Anchor discriminators sha256("global:<ix>")[..8] and
 * sha256("account:<Name>")[..8]; Borsh encoding (u64 little-endian, fixed arrays verbatim).
 * @module
 */

import { createHash } from "node:crypto";
import { PublicKey, SystemProgram, TransactionInstruction } from "@solana/web3.js";

function discriminator(preimage: string): readonly number[] {
  return Object.freeze([...createHash("sha256").update(preimage).digest().subarray(0, 8)]);
}

/** sha256("global:initialize")[..8]. */
export const INITIALIZE_DISCRIMINATOR: readonly number[] = discriminator("global:initialize");
/** sha256("global:commit")[..8]. */
export const COMMIT_DISCRIMINATOR: readonly number[] = discriminator("global:commit");
/** sha256("account:Commitment")[..8], the first 8 bytes of every commitment account. */
export const COMMITMENT_ACCOUNT_DISCRIMINATOR: readonly number[] =
  discriminator("account:Commitment");

/** Size in bytes of a commitment account: 8 + 32 + 32 + 32 + 8 + 8 + 1. */
export const COMMITMENT_ACCOUNT_SIZE = 121;

/** First PDA seed of a commitment account (UTF-8 "commitment"). */
export const COMMITMENT_SEED = "commitment";

/** Byte offsets of the commitment account fields. */
export const COMMITMENT_LAYOUT = Object.freeze({
  discriminator: 0,
  authority: 8,
  owner: 40,
  root: 72,
  memoryCount: 104,
  nonce: 112,
  bump: 120,
});

/** Custom program error codes (`InstructionError(i, Custom(code))`), as in the IDL. */
export const CommitmentErrorCode = Object.freeze({
  /** Signer missing, or not the stored authority. */
  Unauthorized: 6000,
  /** memoryCount below the stored count. */
  CountDecreased: 6001,
  /** expectedNonce differs from the stored nonce. */
  NonceMismatch: 6002,
  /** Wrong owner, discriminator, size, PDA, writability, or not the system program. */
  InvalidAccount: 6003,
  /** Unknown discriminator or instruction data of the wrong length. */
  InvalidInstruction: 6004,
  /** initialize on an existing commitment account. */
  AlreadyInitialized: 6005,
  /** Fewer accounts than the instruction needs. */
  NotEnoughAccounts: 6006,
  /** The stored nonce is u64::MAX. */
  NonceOverflow: 6007,
  /** The rent sysvar could not be read or gives no finite threshold. */
  RentUnavailable: 6008,
  /** unstake with no lot whose unlockAt ≤ the chain clock. */
  NothingMatured: 6009,
  /** stake into a vault that already holds MAX_STAKE_LOTS lots. */
  TooManyLots: 6010,
  /** The vault is not the signer's own PDA ["vault", signer], or records another owner. */
  WrongOwner: 6011,
  /** stake of 0 lamports. */
  ZeroAmount: 6012,
  /** A sum or the unlock time would overflow 64 bits. */
  ArithmeticOverflow: 6013,
  /** Lock period 0 or above MAX_LOCK_PERIOD_SECONDS. */
  InvalidLockPeriod: 6014,
  /** stake before initialize_stake_config. */
  StakeNotConfigured: 6015,
} as const);

/** Name of a commitment program error. */
export type CommitmentErrorName = keyof typeof CommitmentErrorCode;

/** Decoded commitment account. */
export interface CommitmentAccount {
  readonly authority: PublicKey;
  readonly owner: PublicKey;
  /** 32-byte Merkle root (all zero before the first commit). */
  readonly root: Uint8Array;
  readonly memoryCount: bigint;
  /** Number of commits so far; the next commit must pass it as expectedNonce. */
  readonly nonce: bigint;
  readonly bump: number;
}

/** Account data that is not a commitment account. */
export class InvalidCommitmentDataError extends Error {
  override readonly name = "InvalidCommitmentDataError";
}

const U64_MAX = (1n << 64n) - 1n;

function u64le(value: bigint, name: string): Buffer {
  if (typeof value !== "bigint" || value < 0n || value > U64_MAX) {
    throw new RangeError(`${name} must be a bigint in 0..2^64-1, got ${String(value)}`);
  }
  const out = Buffer.alloc(8);
  out.writeBigUInt64LE(value);
  return out;
}

/**
 * Derives the commitment PDA of `owner`: seeds ["commitment", owner bytes] under `programId`.
 * Returns [address, bump]. Source: docs/protocol.md §7.
 */
export function findCommitmentAddress(owner: PublicKey, programId: PublicKey): [PublicKey, number] {
  return PublicKey.findProgramAddressSync(
    [Buffer.from(COMMITMENT_SEED, "utf8"), owner.toBuffer()],
    programId,
  );
}

/**
 * Decodes commitment account data (exactly 121 bytes, starting with the account
 * discriminator). Source: docs/protocol.md §7.
 * @throws InvalidCommitmentDataError on a wrong length or discriminator.
 */
export function decodeCommitment(data: Uint8Array): CommitmentAccount {
  if (data.length !== COMMITMENT_ACCOUNT_SIZE) {
    throw new InvalidCommitmentDataError(
      `commitment account data must be ${COMMITMENT_ACCOUNT_SIZE} bytes, got ${data.length}`,
    );
  }
  const bytes = Buffer.from(data.buffer, data.byteOffset, data.length);
  if (!COMMITMENT_ACCOUNT_DISCRIMINATOR.every((b, i) => bytes[i] === b)) {
    throw new InvalidCommitmentDataError(
      "account discriminator is not sha256('account:Commitment')",
    );
  }
  const L = COMMITMENT_LAYOUT;
  return {
    authority: new PublicKey(bytes.subarray(L.authority, L.authority + 32)),
    owner: new PublicKey(bytes.subarray(L.owner, L.owner + 32)),
    root: new Uint8Array(bytes.subarray(L.root, L.root + 32)),
    memoryCount: bytes.readBigUInt64LE(L.memoryCount),
    nonce: bytes.readBigUInt64LE(L.nonce),
    bump: bytes[L.bump] ?? 0,
  };
}

/** Arguments of {@link createInitializeInstruction}. */
export interface InitializeInstructionArgs {
  readonly programId: PublicKey;
  /** Signer, payer and future authority of the commitment. */
  readonly authority: PublicKey;
  readonly owner: PublicKey;
  /** The owner's commitment PDA when the caller has it memoized (else derived here). */
  readonly commitment?: PublicKey;
}

/**
 * Builds `initialize(owner)`: accounts [authority (signer, writable), commitment PDA
 * (writable), system program], data = discriminator || owner. Same bytes as Anchor's
 * `program.methods.initialize(owner).accounts({ authority }).instruction()`.
 */
export function createInitializeInstruction(
  args: InitializeInstructionArgs,
): TransactionInstruction {
  const commitment = args.commitment ?? findCommitmentAddress(args.owner, args.programId)[0];
  return new TransactionInstruction({
    programId: args.programId,
    keys: [
      { pubkey: args.authority, isSigner: true, isWritable: true },
      { pubkey: commitment, isSigner: false, isWritable: true },
      { pubkey: SystemProgram.programId, isSigner: false, isWritable: false },
    ],
    data: Buffer.concat([Buffer.from(INITIALIZE_DISCRIMINATOR), args.owner.toBuffer()]),
  });
}

/** Arguments of {@link createCommitInstruction}. */
export interface CommitInstructionArgs {
  readonly programId: PublicKey;
  /** The stored authority; must sign. */
  readonly authority: PublicKey;
  /** Owner whose commitment PDA is updated. */
  readonly owner: PublicKey;
  /** 32-byte Merkle root. */
  readonly root: Uint8Array;
  /** u64, must be ≥ the stored count. */
  readonly memoryCount: bigint;
  /** u64, must equal the stored nonce. */
  readonly expectedNonce: bigint;
  /** The owner's commitment PDA when the caller has it memoized (else derived here). */
  readonly commitment?: PublicKey;
}

/**
 * Builds `commit(root, memoryCount, expectedNonce)`: accounts [authority (signer), commitment
 * PDA (writable)], data = discriminator || root || memoryCount u64 LE || expectedNonce u64 LE.
 * @throws RangeError if `root` is not 32 bytes or a count is not a u64 bigint.
 */
export function createCommitInstruction(args: CommitInstructionArgs): TransactionInstruction {
  if (!(args.root instanceof Uint8Array) || args.root.length !== 32) {
    throw new RangeError(`root must be 32 bytes, got ${args.root?.length}`);
  }
  const commitment = args.commitment ?? findCommitmentAddress(args.owner, args.programId)[0];
  return new TransactionInstruction({
    programId: args.programId,
    keys: [
      { pubkey: args.authority, isSigner: true, isWritable: false },
      { pubkey: commitment, isSigner: false, isWritable: true },
    ],
    data: Buffer.concat([
      Buffer.from(COMMIT_DISCRIMINATOR),
      Buffer.from(args.root),
      u64le(args.memoryCount, "memoryCount"),
      u64le(args.expectedNonce, "expectedNonce"),
    ]),
  });
}
