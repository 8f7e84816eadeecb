/**
 * Wire format of the commitment program: Anchor discriminators, the 121-byte account layout,
 * the error codes, the PDA derivation and raw instruction builders (no Anchor needed).
 * Source: docs/protocol.md §7; Anchor discriminators sha256("global:<ix>")[..8] and
 * sha256("account:<Name>")[..8]; Borsh encoding (u64 little-endian, fixed arrays verbatim).
 * @module
 */

import { PublicKey, SystemProgram, TransactionInstruction } from "@solana/web3.js";
import {
  anchorDiscriminator,
  findCommitmentAddress as commitmentAddressOf,
} from "@verifiable-memory/commitment-account";
import { findAnchorConfigAddress } from "./admin.js";

export {
  COMMITMENT_ACCOUNT_DISCRIMINATOR,
  COMMITMENT_ACCOUNT_SIZE,
  COMMITMENT_LAYOUT,
  COMMITMENT_SEED,
  type CommitmentAccount,
  decodeCommitment,
  InvalidCommitmentDataError,
} from "@verifiable-memory/commitment-account";

/** sha256("global:initialize")[..8]. */
export const INITIALIZE_DISCRIMINATOR: readonly number[] = anchorDiscriminator("global:initialize");
/** sha256("global:commit")[..8]. */
export const COMMIT_DISCRIMINATOR: readonly number[] = anchorDiscriminator("global:commit");
/** sha256("global:commit_many")[..8]. */
export const COMMIT_MANY_DISCRIMINATOR: readonly number[] =
  anchorDiscriminator("global:commit_many");
/** Bytes of one commit_many entry: root (32) ‖ memory_count u64 LE ‖ expected_nonce u64 LE. */
export const COMMIT_ENTRY_SIZE = 48;

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
  /** commit at the stored memory_count with a different root. */
  RootMismatch: 6016,
  /** sweep_vault on a vault holding lots and nothing above rent + lots. */
  NothingToSweep: 6017,
} as const);

/** Name of a commitment program error. */
export type CommitmentErrorName = keyof typeof CommitmentErrorCode;

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
 * The commitment PDA of `owner` as web3.js keys: seeds ["commitment", owner bytes] under
 * `programId`, derived by `@verifiable-memory/commitment-account` (docs/protocol.md
 * §7.1 "The commitment account").
 * @returns [address, bump].
 */
export function findCommitmentAddress(owner: PublicKey, programId: PublicKey): [PublicKey, number] {
  const { address, bump } = commitmentAddressOf(owner.toBytes(), programId.toBytes());
  return [new PublicKey(address), bump];
}

/** Arguments of {@link createInitializeInstruction}. */
export interface InitializeInstructionArgs {
  readonly programId: PublicKey;
  /**
   * Signer, payer and future authority of the commitment: the owner, or the anchor authority of
   * the deployment's anchor configuration.
   */
  readonly authority: PublicKey;
  readonly owner: PublicKey;
  /** The owner's commitment PDA when the caller has it memoized (else derived here). */
  readonly commitment?: PublicKey;
}

/**
 * Builds `initialize(owner)`: accounts [authority (signer, writable), commitment PDA
 * (writable), system program, anchor config PDA ["anchor_config"]], data = discriminator ||
 * owner. Same bytes as Anchor's `program.methods.initialize(owner).accounts({ authority })
 * .instruction()`.
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
      { pubkey: findAnchorConfigAddress(args.programId)[0], isSigner: false, isWritable: false },
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

/** One entry of {@link createCommitManyInstruction}. */
export interface CommitEntry {
  /** The owner's commitment PDA. */
  readonly commitment: PublicKey;
  /** 32-byte Merkle root. */
  readonly root: Uint8Array;
  /** u64, ≥ the stored count (and with the stored root when equal to it). */
  readonly memoryCount: bigint;
  /** u64, must equal the stored nonce. */
  readonly expectedNonce: bigint;
}

/**
 * Builds `commit_many(entries)`: accounts [authority (signer), then each entry's commitment PDA
 * (writable) in entry order], data = discriminator || u32 LE entry count || per entry root ||
 * memoryCount u64 LE || expectedNonce u64 LE (Borsh `Vec<CommitEntry>`).
 * @throws RangeError for no entries, a root that is not 32 bytes or a count that is not a u64.
 */
export function createCommitManyInstruction(args: {
  readonly programId: PublicKey;
  readonly authority: PublicKey;
  readonly entries: readonly CommitEntry[];
}): TransactionInstruction {
  if (args.entries.length === 0) {
    throw new RangeError("commit_many needs at least one entry");
  }
  const count = Buffer.alloc(4);
  count.writeUInt32LE(args.entries.length);
  const parts: Buffer[] = [Buffer.from(COMMIT_MANY_DISCRIMINATOR), count];
  for (const entry of args.entries) {
    if (!(entry.root instanceof Uint8Array) || entry.root.length !== 32) {
      throw new RangeError(`root must be 32 bytes, got ${entry.root?.length}`);
    }
    parts.push(
      Buffer.from(entry.root),
      u64le(entry.memoryCount, "memoryCount"),
      u64le(entry.expectedNonce, "expectedNonce"),
    );
  }
  return new TransactionInstruction({
    programId: args.programId,
    keys: [
      { pubkey: args.authority, isSigner: true, isWritable: false },
      ...args.entries.map((entry) => ({
        pubkey: entry.commitment,
        isSigner: false,
        isWritable: true,
      })),
    ],
    data: Buffer.concat(parts),
  });
}

/**
 * The refused entry of a failed `commit_many`, from its logs: the program logs
 * "commit_many: entry refused" and then `sol_log_64_(index, code, 0, 0, 0)`.
 * @returns `{ index, code }`, or null when the logs name no refused entry.
 */
export function refusedCommitEntry(
  logs: readonly string[],
): { readonly index: number; readonly code: number } | null {
  const at = logs.findIndex((line) => line.endsWith("commit_many: entry refused"));
  const match =
    at >= 0 ? /Program log: 0x([0-9a-f]+), 0x([0-9a-f]+),/.exec(logs[at + 1] ?? "") : null;
  return match
    ? { index: Number.parseInt(match[1] ?? "", 16), code: Number.parseInt(match[2] ?? "", 16) }
    : null;
}
