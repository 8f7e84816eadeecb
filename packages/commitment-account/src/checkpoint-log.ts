/**
 * The checkpoint log account's address and data: one per anchor authority at the PDA
 * `["checkpoint-log", authority]`, 89 bytes written by the commitment program's
 * `initialize_checkpoint_log` and `commit_checkpoint_log` (docs/protocol.md §7.1 "The commitment
 * account", §13.5 "The checkpoint log"), in Anchor's account format.
 *
 * | offset | bytes | field                          |
 * | ------ | ----- | ------------------------------ |
 * | 0      | 8     | discriminator                  |
 * | 8      | 32    | authority (a seed)             |
 * | 40     | 32    | root (all zero before a commit)|
 * | 72     | 8     | size, u64 LE                   |
 * | 80     | 8     | nonce, u64 LE                  |
 * | 88     | 1     | bump                           |
 * @module
 */
import { findProgramAddress, type ProgramAddress } from "./address.js";
import { PUBLIC_KEY_BYTES, type PublicKeyInput, publicKeyBytes, publicKeyText } from "./keys.js";
import { anchorDiscriminator, InvalidCommitmentDataError } from "./layout.js";

/** First seed of the checkpoint log account (UTF-8, 14 bytes); the authority's 32 bytes follow. */
export const CHECKPOINT_LOG_SEED = "checkpoint-log";

/** `SHA-256("account:CheckpointLog")[..8]`, the first 8 bytes of every checkpoint log account. */
export const CHECKPOINT_LOG_ACCOUNT_DISCRIMINATOR: readonly number[] =
  anchorDiscriminator("account:CheckpointLog");

/** Size in bytes of a checkpoint log account: 8 + 32 + 32 + 8 + 8 + 1. */
export const CHECKPOINT_LOG_ACCOUNT_SIZE = 89;

/** Byte offsets of the checkpoint log account fields. */
export const CHECKPOINT_LOG_LAYOUT = Object.freeze({
  discriminator: 0,
  authority: 8,
  root: 40,
  size: 72,
  nonce: 80,
  bump: 88,
});

/** A decoded checkpoint log account. */
export interface CheckpointLogAccount {
  /** The only key that writes it (the second seed of its address), base58. */
  readonly authority: string;
  /** The checkpoint log's root at `size` entries, 32 bytes (all zero before the first commit). */
  readonly root: Uint8Array;
  /** Entries covered by `root` (u64). */
  readonly size: bigint;
  /** Commits so far (u64). */
  readonly nonce: bigint;
  /** The account address's bump seed. */
  readonly bump: number;
}

/**
 * The checkpoint log account of `authority`:
 * `find_program_address(["checkpoint-log", authority], programId)` (docs/protocol.md §7.1 "The
 * commitment account").
 * @param authority the anchor authority: base58 or 32 bytes.
 * @param programId the commitment program: base58 or 32 bytes.
 * @returns the account's address (base58) and its bump seed.
 * @throws TypeError naming the argument that is not a 32-byte public key.
 */
export function findCheckpointLogAddress(
  authority: PublicKeyInput,
  programId: PublicKeyInput,
): ProgramAddress {
  return findProgramAddress(
    [new TextEncoder().encode(CHECKPOINT_LOG_SEED), publicKeyBytes(authority, "authority")],
    programId,
  );
}

/**
 * Decodes checkpoint log account data (docs/protocol.md §7.1 "The commitment account").
 * @param data exactly 89 bytes starting with {@link CHECKPOINT_LOG_ACCOUNT_DISCRIMINATOR}.
 * @returns the fields; the authority in base58, size and nonce as bigints, `root` a copy.
 * @throws InvalidCommitmentDataError on a wrong length or discriminator.
 */
export function decodeCheckpointLog(data: Uint8Array): CheckpointLogAccount {
  if (data.length !== CHECKPOINT_LOG_ACCOUNT_SIZE) {
    throw new InvalidCommitmentDataError(
      `checkpoint log account data must be ${CHECKPOINT_LOG_ACCOUNT_SIZE} bytes, got ${data.length}`,
    );
  }
  if (!CHECKPOINT_LOG_ACCOUNT_DISCRIMINATOR.every((byte, i) => data[i] === byte)) {
    throw new InvalidCommitmentDataError(
      "account discriminator is not sha256('account:CheckpointLog')",
    );
  }
  const L = CHECKPOINT_LOG_LAYOUT;
  const view = new DataView(data.buffer, data.byteOffset, data.length);
  return {
    authority: publicKeyText(data.subarray(L.authority, L.authority + PUBLIC_KEY_BYTES)),
    root: Uint8Array.from(data.subarray(L.root, L.root + 32)),
    size: view.getBigUint64(L.size, true),
    nonce: view.getBigUint64(L.nonce, true),
    bump: data[L.bump] as number,
  };
}
