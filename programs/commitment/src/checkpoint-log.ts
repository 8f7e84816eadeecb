/**
 * Wire format of the checkpoint log account: one per anchor authority at PDA
 * ["checkpoint-log", authority], holding the root, size and nonce of the deployment's checkpoint
 * log, written only by that authority under commit's rules (size never decreases, the same root
 * at an equal size, the nonce advances by one).
 * Source: docs/protocol.md §7.1 "The commitment account", §7.2 "Instructions"; Anchor
 * discriminators sha256("global:<ix>")[..8] and sha256("account:<Name>")[..8]; Borsh.
 * @module
 */

import { PublicKey, SystemProgram, TransactionInstruction } from "@solana/web3.js";
import { anchorDiscriminator as discriminator } from "@verifiable-memory/commitment-account";

/** sha256("global:initialize_checkpoint_log")[..8]. */
export const INITIALIZE_CHECKPOINT_LOG_DISCRIMINATOR: readonly number[] = discriminator(
  "global:initialize_checkpoint_log",
);
/** sha256("global:commit_checkpoint_log")[..8]. */
export const COMMIT_CHECKPOINT_LOG_DISCRIMINATOR: readonly number[] = discriminator(
  "global:commit_checkpoint_log",
);
/** sha256("account:CheckpointLog")[..8]. */
export const CHECKPOINT_LOG_ACCOUNT_DISCRIMINATOR: readonly number[] =
  discriminator("account:CheckpointLog");
/** First PDA seed of the checkpoint log account (UTF-8), followed by the authority's 32 bytes. */
export const CHECKPOINT_LOG_SEED = "checkpoint-log";
/** Size in bytes of the checkpoint log account: 8 + 32 + 32 + 8 + 8 + 1. */
export const CHECKPOINT_LOG_ACCOUNT_SIZE = 89;

/** Decoded checkpoint log account. */
export interface CheckpointLogAccount {
  /** The only key that writes it (a PDA seed). */
  readonly authority: PublicKey;
  /** Root of the checkpoint log at `size` (zero before the first commit). */
  readonly root: Uint8Array;
  readonly size: bigint;
  /** Commits so far. */
  readonly nonce: bigint;
  readonly bump: number;
}

/**
 * Derives the checkpoint log PDA of `authority`: seeds ["checkpoint-log", authority bytes].
 * @returns [address, bump].
 */
export function findCheckpointLogAddress(
  authority: PublicKey,
  programId: PublicKey,
): [PublicKey, number] {
  return PublicKey.findProgramAddressSync(
    [Buffer.from(CHECKPOINT_LOG_SEED, "utf8"), authority.toBuffer()],
    programId,
  );
}

/**
 * Decodes checkpoint log data (exactly 89 bytes, starting with its discriminator).
 * @throws RangeError on a wrong length or discriminator.
 */
export function decodeCheckpointLog(data: Uint8Array): CheckpointLogAccount {
  if (data.length !== CHECKPOINT_LOG_ACCOUNT_SIZE) {
    throw new RangeError(
      `checkpoint log data must be ${CHECKPOINT_LOG_ACCOUNT_SIZE} bytes, got ${data.length}`,
    );
  }
  if (!CHECKPOINT_LOG_ACCOUNT_DISCRIMINATOR.every((b, i) => data[i] === b)) {
    throw new RangeError("account discriminator is not sha256('account:CheckpointLog')");
  }
  const view = Buffer.from(data.buffer, data.byteOffset, data.length);
  return {
    authority: new PublicKey(data.subarray(8, 40)),
    root: Uint8Array.from(data.subarray(40, 72)),
    size: view.readBigUInt64LE(72),
    nonce: view.readBigUInt64LE(80),
    bump: data[88] ?? 0,
  };
}

/**
 * Builds `initialize_checkpoint_log()`: accounts [authority (signer, writable, pays), its
 * checkpoint log PDA (writable), system program], data = discriminator.
 */
export function createInitializeCheckpointLogInstruction(args: {
  readonly programId: PublicKey;
  readonly authority: PublicKey;
}): TransactionInstruction {
  return new TransactionInstruction({
    programId: args.programId,
    keys: [
      { pubkey: args.authority, isSigner: true, isWritable: true },
      {
        pubkey: findCheckpointLogAddress(args.authority, args.programId)[0],
        isSigner: false,
        isWritable: true,
      },
      { pubkey: SystemProgram.programId, isSigner: false, isWritable: false },
    ],
    data: Buffer.from(INITIALIZE_CHECKPOINT_LOG_DISCRIMINATOR),
  });
}

/**
 * Builds `commit_checkpoint_log(root, size, expectedNonce)`: accounts [authority (signer), its
 * checkpoint log PDA (writable)], data = discriminator ‖ root ‖ size u64 LE ‖ expectedNonce u64 LE.
 * @throws RangeError if `root` is not 32 bytes or a number is not a u64 bigint.
 */
export function createCommitCheckpointLogInstruction(args: {
  readonly programId: PublicKey;
  readonly authority: PublicKey;
  readonly root: Uint8Array;
  readonly size: bigint;
  readonly expectedNonce: bigint;
}): TransactionInstruction {
  if (!(args.root instanceof Uint8Array) || args.root.length !== 32) {
    throw new RangeError(`root must be 32 bytes, got ${args.root?.length}`);
  }
  const numbers = Buffer.alloc(16);
  for (const [at, value, name] of [
    [0, args.size, "size"],
    [8, args.expectedNonce, "expectedNonce"],
  ] as const) {
    if (typeof value !== "bigint" || value < 0n || value >= 1n << 64n) {
      throw new RangeError(`${name} must be a bigint in 0..2^64-1, got ${String(value)}`);
    }
    numbers.writeBigUInt64LE(value, at);
  }
  return new TransactionInstruction({
    programId: args.programId,
    keys: [
      { pubkey: args.authority, isSigner: true, isWritable: false },
      {
        pubkey: findCheckpointLogAddress(args.authority, args.programId)[0],
        isSigner: false,
        isWritable: true,
      },
    ],
    data: Buffer.concat([
      Buffer.from(COMMIT_CHECKPOINT_LOG_DISCRIMINATOR),
      Buffer.from(args.root),
      numbers,
    ]),
  });
}
