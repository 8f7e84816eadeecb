/**
 * Wire format of the staking half of the commitment program: the stake configuration account
 * (one per deployment: the lock period, set once by the program's upgrade authority), the stake
 * vault of each owner (PDA ["vault", owner], up to {@link MAX_STAKE_LOTS} lots
 * `{ amount, unlockAt }`), the instruction encoders and a decoder that recognises the staking
 * instructions of a transaction.
 * Source: docs/staking.md and programs/commitment/README.md; Anchor discriminators
 * sha256("global:<ix>")[..8] and sha256("account:<Name>")[..8]; Borsh (u64/i64 little-endian,
 * fixed arrays verbatim); loader-v3 ProgramData layout (agave `sdk/loader-v3-interface`).
 * @module
 */

import { PublicKey, SystemProgram, type TransactionInstruction } from "@solana/web3.js";
import { anchorDiscriminator as discriminator } from "@verifiable-memory/commitment-account";
import {
  accountMeta,
  ownerVaultAccounts,
  programInstruction,
  upgradeAuthorityAccounts,
} from "./instruction.js";
import { BPF_UPGRADEABLE_LOADER_ID } from "./program.js";

/** sha256("global:initialize_stake_config")[..8]. */
export const INITIALIZE_STAKE_CONFIG_DISCRIMINATOR: readonly number[] = discriminator(
  "global:initialize_stake_config",
);
/** sha256("global:stake")[..8]. */
export const STAKE_DISCRIMINATOR: readonly number[] = discriminator("global:stake");
/** sha256("global:unstake")[..8]. */
export const UNSTAKE_DISCRIMINATOR: readonly number[] = discriminator("global:unstake");
/** sha256("account:StakeConfig")[..8]. */
export const STAKE_CONFIG_ACCOUNT_DISCRIMINATOR: readonly number[] =
  discriminator("account:StakeConfig");
/** sha256("account:StakeVault")[..8]. */
export const STAKE_VAULT_ACCOUNT_DISCRIMINATOR: readonly number[] =
  discriminator("account:StakeVault");

/** PDA seed of the stake configuration account (UTF-8 "stake_config"; the only seed). */
export const STAKE_CONFIG_SEED = "stake_config";
/** First PDA seed of a stake vault (UTF-8 "vault"), followed by the owner's 32 bytes. */
export const VAULT_SEED = "vault";
/** Most lots a vault holds at once; a further stake fails with `TooManyLots` until an unstake. */
export const MAX_STAKE_LOTS = 32;
/** Longest lock period the program accepts, seconds (10 × 365 days). */
export const MAX_LOCK_PERIOD_SECONDS = 315_360_000n;

/** Size in bytes of the stake configuration account: 8 + 32 + 8 + 1. */
export const STAKE_CONFIG_ACCOUNT_SIZE = 49;
/** Size in bytes of one lot: amount u64 + unlockAt i64. */
export const STAKE_LOT_SIZE = 16;
/** Size in bytes of a stake vault: 8 + 32 + 1 + 1 + 6 (padding) + 32 × 16. */
export const STAKE_VAULT_ACCOUNT_SIZE = 48 + MAX_STAKE_LOTS * STAKE_LOT_SIZE;

/** Byte offsets of the stake configuration fields. */
export const STAKE_CONFIG_LAYOUT = Object.freeze({
  discriminator: 0,
  authority: 8,
  lockPeriodSeconds: 40,
  bump: 48,
});

/** Byte offsets of the stake vault fields; lot `i` starts at `lots + 16 i`. */
export const STAKE_VAULT_LAYOUT = Object.freeze({
  discriminator: 0,
  owner: 8,
  bump: 40,
  lotCount: 41,
  lots: 48,
});

/** Decoded stake configuration account. */
export interface StakeConfigAccount {
  /** The upgrade authority that initialised the configuration. */
  readonly authority: PublicKey;
  /** Seconds between a stake and the maturity of its lot. */
  readonly lockPeriodSeconds: bigint;
  readonly bump: number;
}

/** One lot of a stake vault. */
export interface StakeLot {
  /** Lamports deposited by one `stake`. */
  readonly amountLamports: bigint;
  /** Unix time (seconds, the chain's clock) from which the lot can be unstaked. */
  readonly unlockAt: bigint;
}

/** Decoded stake vault account. */
export interface StakeVaultAccount {
  readonly owner: PublicKey;
  readonly bump: number;
  /** Lots in deposit order (unstake keeps the order of the remaining lots). */
  readonly lots: readonly StakeLot[];
}

/** Account data that is not a stake configuration or stake vault account. */
export class InvalidStakeDataError extends Error {
  override readonly name = "InvalidStakeDataError";
}

const U64_MAX = (1n << 64n) - 1n;

function view(data: Uint8Array): Buffer {
  return Buffer.from(data.buffer, data.byteOffset, data.length);
}

function startsWith(bytes: Buffer, prefix: readonly number[]): boolean {
  return prefix.every((b, i) => bytes[i] === b);
}

/**
 * Derives the stake configuration PDA: seeds ["stake_config"] under `programId`.
 * Returns [address, bump].
 */
export function findStakeConfigAddress(programId: PublicKey): [PublicKey, number] {
  return PublicKey.findProgramAddressSync([Buffer.from(STAKE_CONFIG_SEED, "utf8")], programId);
}

/**
 * Derives the stake vault PDA of `owner`: seeds ["vault", owner bytes] under `programId`.
 * Returns [address, bump].
 */
export function findVaultAddress(owner: PublicKey, programId: PublicKey): [PublicKey, number] {
  return PublicKey.findProgramAddressSync(
    [Buffer.from(VAULT_SEED, "utf8"), owner.toBuffer()],
    programId,
  );
}

/**
 * Derives the loader-v3 ProgramData address of `programId`: PDA([programId]) under the BPF
 * Upgradeable Loader. Its account holds the upgrade authority that may initialise staking.
 */
export function findProgramDataAddress(programId: PublicKey): PublicKey {
  return PublicKey.findProgramAddressSync([programId.toBuffer()], BPF_UPGRADEABLE_LOADER_ID)[0];
}

/**
 * Decodes stake configuration data (exactly 49 bytes, starting with its discriminator).
 * @throws InvalidStakeDataError on a wrong length or discriminator.
 */
export function decodeStakeConfig(data: Uint8Array): StakeConfigAccount {
  const bytes = view(data);
  if (bytes.length !== STAKE_CONFIG_ACCOUNT_SIZE) {
    throw new InvalidStakeDataError(
      `stake config data must be ${STAKE_CONFIG_ACCOUNT_SIZE} bytes, got ${bytes.length}`,
    );
  }
  if (!startsWith(bytes, STAKE_CONFIG_ACCOUNT_DISCRIMINATOR)) {
    throw new InvalidStakeDataError("account discriminator is not sha256('account:StakeConfig')");
  }
  const L = STAKE_CONFIG_LAYOUT;
  return {
    authority: new PublicKey(bytes.subarray(L.authority, L.authority + 32)),
    lockPeriodSeconds: bytes.readBigUInt64LE(L.lockPeriodSeconds),
    bump: bytes[L.bump] ?? 0,
  };
}

/**
 * Decodes stake vault data (exactly {@link STAKE_VAULT_ACCOUNT_SIZE} bytes, starting with its
 * discriminator); returns the first `lotCount` lots.
 * @throws InvalidStakeDataError on a wrong length, discriminator or a lot count above 32.
 */
export function decodeStakeVault(data: Uint8Array): StakeVaultAccount {
  const bytes = view(data);
  if (bytes.length !== STAKE_VAULT_ACCOUNT_SIZE) {
    throw new InvalidStakeDataError(
      `stake vault data must be ${STAKE_VAULT_ACCOUNT_SIZE} bytes, got ${bytes.length}`,
    );
  }
  if (!startsWith(bytes, STAKE_VAULT_ACCOUNT_DISCRIMINATOR)) {
    throw new InvalidStakeDataError("account discriminator is not sha256('account:StakeVault')");
  }
  const L = STAKE_VAULT_LAYOUT;
  const lotCount = bytes[L.lotCount] ?? 0;
  if (lotCount > MAX_STAKE_LOTS) {
    throw new InvalidStakeDataError(`lot count ${lotCount} exceeds ${MAX_STAKE_LOTS}`);
  }
  const lots: StakeLot[] = [];
  for (let i = 0; i < lotCount; i++) {
    const at = L.lots + i * STAKE_LOT_SIZE;
    lots.push({
      amountLamports: bytes.readBigUInt64LE(at),
      unlockAt: bytes.readBigInt64LE(at + 8),
    });
  }
  return {
    owner: new PublicKey(bytes.subarray(L.owner, L.owner + 32)),
    bump: bytes[L.bump] ?? 0,
    lots,
  };
}

function u64le(value: bigint, name: string): Buffer {
  if (typeof value !== "bigint" || value < 0n || value > U64_MAX) {
    throw new RangeError(`${name} must be a bigint in 0..2^64-1, got ${String(value)}`);
  }
  const out = Buffer.alloc(8);
  out.writeBigUInt64LE(value);
  return out;
}

/** Arguments of {@link createInitializeStakeConfigInstruction}. */
export interface InitializeStakeConfigArgs {
  readonly programId: PublicKey;
  /** The program's upgrade authority: signer and payer. */
  readonly authority: PublicKey;
  /** Lock period in seconds, 1..{@link MAX_LOCK_PERIOD_SECONDS}. */
  readonly lockPeriodSeconds: bigint;
}

/**
 * Builds `initialize_stake_config(lock_period_seconds)`: accounts [authority (signer,
 * writable), stake config PDA (writable), ProgramData of the program, system program], data =
 * discriminator || lock period u64 LE. The program refuses a signer that is not the upgrade
 * authority recorded in ProgramData, and a second initialisation.
 * @throws RangeError if the lock period is not a u64 bigint.
 */
export function createInitializeStakeConfigInstruction(
  args: InitializeStakeConfigArgs,
): TransactionInstruction {
  return programInstruction(
    args.programId,
    upgradeAuthorityAccounts(
      args.authority,
      findStakeConfigAddress(args.programId)[0],
      findProgramDataAddress(args.programId),
    ),
    INITIALIZE_STAKE_CONFIG_DISCRIMINATOR,
    u64le(args.lockPeriodSeconds, "lockPeriodSeconds"),
  );
}

/** Arguments of {@link createStakeInstruction}. */
export interface StakeInstructionArgs {
  readonly programId: PublicKey;
  /** The vault's owner: signer, payer of the vault's rent and of the deposit. */
  readonly owner: PublicKey;
  /** Lamports to deposit, ≥ 1. */
  readonly amountLamports: bigint;
}

/**
 * Builds `stake(amount)`: accounts [owner (signer, writable), owner's vault PDA (writable),
 * stake config PDA, system program], data = discriminator || amount u64 LE. The program creates
 * the vault on first use and appends a lot maturing after the configured lock period.
 * @throws RangeError if the amount is not a u64 bigint.
 */
export function createStakeInstruction(args: StakeInstructionArgs): TransactionInstruction {
  return programInstruction(
    args.programId,
    [
      ...ownerVaultAccounts(args.owner, findVaultAddress(args.owner, args.programId)[0]),
      accountMeta(findStakeConfigAddress(args.programId)[0], "readonly"),
      accountMeta(SystemProgram.programId, "readonly"),
    ],
    STAKE_DISCRIMINATOR,
    u64le(args.amountLamports, "amountLamports"),
  );
}

/** Arguments of {@link createUnstakeInstruction}. */
export interface UnstakeInstructionArgs {
  readonly programId: PublicKey;
  /** The vault's owner: signer and recipient of every matured lot. */
  readonly owner: PublicKey;
}

/**
 * Builds `unstake()`: accounts [owner (signer, writable), owner's vault PDA (writable)], data =
 * discriminator. The program pays every lot whose unlockAt ≤ the chain clock to the owner.
 */
export function createUnstakeInstruction(args: UnstakeInstructionArgs): TransactionInstruction {
  return programInstruction(
    args.programId,
    ownerVaultAccounts(args.owner, findVaultAddress(args.owner, args.programId)[0]),
    UNSTAKE_DISCRIMINATOR,
  );
}

/** A staking instruction recognised by {@link decodeStakingInstruction}. */
export type StakingInstruction =
  | { readonly kind: "stake"; readonly owner: PublicKey; readonly amountLamports: bigint }
  | { readonly kind: "unstake"; readonly owner: PublicKey };

function sameKeys(
  actual: TransactionInstruction["keys"],
  expected: TransactionInstruction["keys"],
): boolean {
  return (
    actual.length === expected.length &&
    actual.every(
      (meta, i) =>
        meta.pubkey.equals(expected[i]?.pubkey ?? PublicKey.default) &&
        meta.isSigner === expected[i]?.isSigner &&
        meta.isWritable === expected[i]?.isWritable,
    )
  );
}

/**
 * Recognises a `stake` or `unstake` instruction of this program exactly as
 * {@link createStakeInstruction} / {@link createUnstakeInstruction} build it (program id, data,
 * and every account meta including the owner's own vault and signer/writable flags). Returns
 * null for anything else, so a relay can refuse every other instruction.
 */
export function decodeStakingInstruction(
  instruction: TransactionInstruction,
  programId: PublicKey,
): StakingInstruction | null {
  if (!instruction.programId.equals(programId) || instruction.keys.length === 0) {
    return null;
  }
  const owner = instruction.keys[0]?.pubkey;
  if (owner === undefined) {
    return null;
  }
  const data = view(instruction.data);
  if (data.length === 16 && startsWith(data, STAKE_DISCRIMINATOR)) {
    const amountLamports = data.readBigUInt64LE(8);
    const expected = createStakeInstruction({ programId, owner, amountLamports });
    return sameKeys(instruction.keys, expected.keys)
      ? { kind: "stake", owner, amountLamports }
      : null;
  }
  if (data.length === 8 && startsWith(data, UNSTAKE_DISCRIMINATOR)) {
    const expected = createUnstakeInstruction({ programId, owner });
    return sameKeys(instruction.keys, expected.keys) ? { kind: "unstake", owner } : null;
  }
  return null;
}
