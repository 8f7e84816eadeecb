/**
 * The hand-written Anchor IDL of the commitment program (Anchor 0.30+ IDL spec, as
 * @coral-xyz/anchor 0.32 reads it). It describes c/commitment.c and is kept in sync with it by
 * hand; test/idl.test.ts checks discriminators, error codes and sizes against the program.
 * Source: Anchor `idl` spec 0.1.0 (anchor-lang-idl-spec), programs/commitment/idl/commitment.json.
 * @module
 */

import type { Idl } from "@coral-xyz/anchor";
import { PublicKey } from "@solana/web3.js";
import idlJson from "../idl/commitment.json" with { type: "json" };

/** The committed IDL; its `address` is {@link LOCAL_PROGRAM_ID}. Treat as read-only. */
export const commitmentIdl: Idl = idlJson as Idl;

/**
 * Returns a deep copy of {@link commitmentIdl} whose `address` is `programId` (base58), for a
 * deployment under another program id (devnet, mainnet: SERVICE_PROGRAM_ID).
 * @throws TypeError if `programId` is not a base58 32-byte public key.
 * Source: Anchor 0.30 `Program` takes the program id from `idl.address`.
 */
export function idlFor(programId: string): Idl {
  let key: PublicKey;
  try {
    key = new PublicKey(programId);
  } catch {
    throw new TypeError(`programId must be a base58 public key, got ${JSON.stringify(programId)}`);
  }
  const copy = structuredClone(commitmentIdl);
  copy.address = key.toBase58();
  return copy;
}
