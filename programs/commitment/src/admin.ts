/**
 * Wire format of the program's safeguards: the anchor configuration (PDA ["anchor_config"], the
 * one key besides the owner that may create a commitment account, set by the upgrade
 * authority), `set_authority` (a commitment's authority replaced by its current authority or its
 * owner) and `sweep_vault` (the owner closes an empty stake vault or takes the lamports above
 * rent + stake).
 * Source: docs/protocol.md §7.1 "The commitment account", §7.2 "Instructions", §11.2
 * "Instructions"; Anchor discriminators sha256("global:<ix>")[..8] and
 * sha256("account:<Name>")[..8]; Borsh (Pubkey as 32 bytes).
 * @module
 */

import { PublicKey, type TransactionInstruction } from "@solana/web3.js";
import { anchorDiscriminator as discriminator } from "@verifiable-memory/commitment-account";
import {
  accountMeta,
  ownerVaultAccounts,
  programInstruction,
  upgradeAuthorityAccounts,
} from "./instruction.js";
import { findProgramDataAddress, findVaultAddress } from "./stake.js";

/** sha256("global:set_anchor_config")[..8]. */
export const SET_ANCHOR_CONFIG_DISCRIMINATOR: readonly number[] = discriminator(
  "global:set_anchor_config",
);
/** sha256("global:set_authority")[..8]. */
export const SET_AUTHORITY_DISCRIMINATOR: readonly number[] = discriminator("global:set_authority");
/** sha256("global:sweep_vault")[..8]. */
export const SWEEP_VAULT_DISCRIMINATOR: readonly number[] = discriminator("global:sweep_vault");
/** sha256("account:AnchorConfig")[..8]. */
export const ANCHOR_CONFIG_ACCOUNT_DISCRIMINATOR: readonly number[] =
  discriminator("account:AnchorConfig");
/** PDA seed of the anchor configuration (UTF-8 "anchor_config"; the only seed). */
export const ANCHOR_CONFIG_SEED = "anchor_config";
/** Size in bytes of the anchor configuration account: 8 + 32 + 1. */
export const ANCHOR_CONFIG_ACCOUNT_SIZE = 41;

/** Decoded anchor configuration. */
export interface AnchorConfigAccount {
  /** The key that may create any owner's commitment account (besides the owner). */
  readonly anchorAuthority: PublicKey;
  readonly bump: number;
}

/**
 * Derives the anchor configuration PDA: seeds ["anchor_config"] under `programId`.
 * @returns [address, bump].
 */
export function findAnchorConfigAddress(programId: PublicKey): [PublicKey, number] {
  return PublicKey.findProgramAddressSync([Buffer.from(ANCHOR_CONFIG_SEED, "utf8")], programId);
}

/**
 * Decodes anchor configuration data (exactly 41 bytes, starting with its discriminator).
 * @throws RangeError on a wrong length or discriminator.
 */
export function decodeAnchorConfig(data: Uint8Array): AnchorConfigAccount {
  if (data.length !== ANCHOR_CONFIG_ACCOUNT_SIZE) {
    throw new RangeError(
      `anchor config data must be ${ANCHOR_CONFIG_ACCOUNT_SIZE} bytes, got ${data.length}`,
    );
  }
  if (!ANCHOR_CONFIG_ACCOUNT_DISCRIMINATOR.every((b, i) => data[i] === b)) {
    throw new RangeError("account discriminator is not sha256('account:AnchorConfig')");
  }
  return { anchorAuthority: new PublicKey(data.subarray(8, 40)), bump: data[40] ?? 0 };
}

/** Arguments of {@link createSetAnchorConfigInstruction}. */
export interface SetAnchorConfigArgs {
  readonly programId: PublicKey;
  /** The program's upgrade authority: signs and pays for the account's creation. */
  readonly upgradeAuthority: PublicKey;
  /** The deployment's anchor authority (AUTHORITY_KEYPAIR_PATH's public key). */
  readonly anchorAuthority: PublicKey;
}

/**
 * Builds `set_anchor_config(anchor_authority)`: accounts [upgrade authority (signer, writable),
 * anchor config PDA (writable), ProgramData, system program], data = discriminator || key.
 */
export function createSetAnchorConfigInstruction(
  args: SetAnchorConfigArgs,
): TransactionInstruction {
  return programInstruction(
    args.programId,
    upgradeAuthorityAccounts(
      args.upgradeAuthority,
      findAnchorConfigAddress(args.programId)[0],
      findProgramDataAddress(args.programId),
    ),
    SET_ANCHOR_CONFIG_DISCRIMINATOR,
    args.anchorAuthority.toBuffer(),
  );
}

/** Arguments of {@link createSetAuthorityInstruction}. */
export interface SetAuthorityArgs {
  readonly programId: PublicKey;
  /** The commitment's current authority or its owner; signs. */
  readonly signer: PublicKey;
  /** The commitment account (PDA ["commitment", owner]). */
  readonly commitment: PublicKey;
  /** The key that may commit from now on. */
  readonly newAuthority: PublicKey;
}

/**
 * Builds `set_authority(new_authority)`: accounts [signer, commitment PDA (writable)], data =
 * discriminator || new authority.
 */
export function createSetAuthorityInstruction(args: SetAuthorityArgs): TransactionInstruction {
  return programInstruction(
    args.programId,
    [accountMeta(args.signer, "signer"), accountMeta(args.commitment, "writable")],
    SET_AUTHORITY_DISCRIMINATOR,
    args.newAuthority.toBuffer(),
  );
}

/** Arguments of {@link createSweepVaultInstruction}. */
export interface SweepVaultArgs {
  readonly programId: PublicKey;
  /** The vault's owner: signs and receives the lamports. */
  readonly owner: PublicKey;
}

/**
 * Builds `sweep_vault()`: accounts [owner (signer, writable), vault PDA ["vault", owner]
 * (writable)], data = discriminator.
 */
export function createSweepVaultInstruction(args: SweepVaultArgs): TransactionInstruction {
  return programInstruction(
    args.programId,
    ownerVaultAccounts(args.owner, findVaultAddress(args.owner, args.programId)[0]),
    SWEEP_VAULT_DISCRIMINATOR,
  );
}
