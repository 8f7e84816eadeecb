/**
 * Program derived addresses (PDAs), computed the way the Solana runtime does, and the commitment
 * account's address: the PDA of seeds `["commitment", owner bytes]` under the program id
 * (docs/protocol.md §7.1 "The commitment account").
 *
 * Source: the Solana runtime's `Pubkey::create_program_address` and `find_program_address`
 * (solana-program `pubkey.rs`): `SHA-256(seed₁ ‖ … ‖ seedₙ ‖ programId ‖ "ProgramDerivedAddress")`,
 * valid only when the 32 bytes are not a point of the ed25519 curve (so no private key exists);
 * `find_program_address` appends a one-byte bump seed, tried from 255 down to 0, and takes the
 * first valid address. At most 16 seeds (the bump included) of at most 32 bytes each.
 * @module
 */
import { Point } from "@noble/ed25519";
import { sha256 } from "@noble/hashes/sha2.js";
import { type PublicKeyInput, publicKeyBytes, publicKeyText } from "./keys.js";

/** Most seeds of one address, the bump seed included. */
export const MAX_SEEDS = 16;
/** Most bytes of one seed. */
export const MAX_SEED_BYTES = 32;
/** First PDA seed of a commitment account (UTF-8 "commitment"). */
export const COMMITMENT_SEED = "commitment";

const PDA_MARKER = new TextEncoder().encode("ProgramDerivedAddress");

/** A program derived address and the bump seed that made it valid. */
export interface ProgramAddress {
  /** The address, base58. */
  readonly address: string;
  /** The bump seed (0–255) appended to the seeds. */
  readonly bump: number;
}

/** Whether 32 bytes decode to a point of the ed25519 curve (RFC 8032 §5.1.3 decoding). */
function isOnCurve(bytes: Uint8Array): boolean {
  try {
    Point.fromBytes(bytes);
    return true;
  } catch {
    return false;
  }
}

function concat(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, part) => n + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

/**
 * The address `create_program_address(seeds, programId)` gives, or null when it falls on the
 * ed25519 curve (the runtime refuses it: try another bump).
 * @throws RangeError when there are more than 16 seeds or a seed is longer than 32 bytes.
 */
export function createProgramAddress(
  seeds: readonly Uint8Array[],
  programId: PublicKeyInput,
): Uint8Array | null {
  if (seeds.length > MAX_SEEDS) {
    throw new RangeError(`at most ${MAX_SEEDS} seeds, got ${seeds.length}`);
  }
  for (const seed of seeds) {
    if (seed.length > MAX_SEED_BYTES) {
      throw new RangeError(`a seed is at most ${MAX_SEED_BYTES} bytes, got ${seed.length}`);
    }
  }
  const hash = sha256(concat([...seeds, publicKeyBytes(programId, "programId"), PDA_MARKER]));
  return isOnCurve(hash) ? null : hash;
}

/**
 * `find_program_address(seeds, programId)`: the first valid address with a bump seed from 255
 * down to 0 appended.
 * @param seeds at most 15 seeds of at most 32 bytes (the bump is the 16th).
 * @throws RangeError on too many or too long seeds, or (with probability ~2^-256) when no bump
 *   gives a valid address.
 * @throws TypeError when `programId` is not a 32-byte public key.
 */
export function findProgramAddress(
  seeds: readonly Uint8Array[],
  programId: PublicKeyInput,
): ProgramAddress {
  const program = publicKeyBytes(programId, "programId");
  for (let bump = 255; bump >= 0; bump--) {
    const address = createProgramAddress([...seeds, Uint8Array.of(bump)], program);
    if (address !== null) {
      return { address: publicKeyText(address), bump };
    }
  }
  throw new RangeError("no bump seed gives a valid program address");
}

/**
 * The commitment account of `owner`: `find_program_address(["commitment", owner], programId)`
 * (docs/protocol.md §7.1 "The commitment account").
 * @param owner the wallet whose log is committed: base58 or 32 bytes.
 * @param programId the commitment program: base58 or 32 bytes.
 * @returns the account's address (base58) and its bump seed.
 * @throws TypeError naming the argument that is not a 32-byte public key.
 * @example findCommitmentAddress(wallet, programId).address
 */
export function findCommitmentAddress(
  owner: PublicKeyInput,
  programId: PublicKeyInput,
): ProgramAddress {
  return findProgramAddress(
    [new TextEncoder().encode(COMMITMENT_SEED), publicKeyBytes(owner, "owner")],
    programId,
  );
}
