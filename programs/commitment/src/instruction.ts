/**
 * What the instruction builders of admin.ts and stake.ts share: account metas by use, the two
 * account lists several instructions start with, and the instruction itself (Anchor
 * discriminator followed by the Borsh-encoded arguments).
 * Source: docs/protocol.md §7.2 "Instructions", §11.2 "Instructions"; Anchor discriminators
 * sha256("global:<ix>")[..8]; Borsh (Pubkey as 32 bytes, u64 little-endian).
 * @module
 */

import {
  type AccountMeta,
  type PublicKey,
  SystemProgram,
  TransactionInstruction,
} from "@solana/web3.js";

/** How an instruction uses an account: signs and is written, is written, or is only read. */
export type AccountUse = "signer-writable" | "signer" | "writable" | "readonly";

/** The account meta of `pubkey` used as `use`. */
export function accountMeta(pubkey: PublicKey, use: AccountUse): AccountMeta {
  return {
    pubkey,
    isSigner: use === "signer-writable" || use === "signer",
    isWritable: use === "signer-writable" || use === "writable",
  };
}

/**
 * The accounts of an owner's vault instruction: [owner (signer, writable), the owner's vault PDA
 * ["vault", owner] (writable)] (`stake` continues the list, `unstake` and `sweep_vault` end it).
 */
export function ownerVaultAccounts(owner: PublicKey, vault: PublicKey): AccountMeta[] {
  return [accountMeta(owner, "signer-writable"), accountMeta(vault, "writable")];
}

/**
 * The accounts of an instruction only the program's upgrade authority may send, creating a
 * configuration PDA: [upgrade authority (signer, writable: it pays), the PDA (writable), the
 * program's ProgramData (read: the loader-v3 record of the upgrade authority), system program].
 */
export function upgradeAuthorityAccounts(
  upgradeAuthority: PublicKey,
  pda: PublicKey,
  programData: PublicKey,
): AccountMeta[] {
  return [
    accountMeta(upgradeAuthority, "signer-writable"),
    accountMeta(pda, "writable"),
    accountMeta(programData, "readonly"),
    accountMeta(SystemProgram.programId, "readonly"),
  ];
}

/**
 * An instruction of the program `programId` over `keys`: data = `discriminator` (8 bytes) ||
 * each of `args` (already Borsh-encoded) in order.
 */
export function programInstruction(
  programId: PublicKey,
  keys: AccountMeta[],
  discriminator: readonly number[],
  ...args: Buffer[]
): TransactionInstruction {
  return new TransactionInstruction({
    programId,
    keys,
    data: Buffer.concat([Buffer.from(discriminator), ...args]),
  });
}
