/**
 * Commitment account address and decoding: the PDA matches the program package's derivation,
 * the IDL decoder reads every field of docs/protocol.md §7's layout, and malformed data is refused.
 * Source: docs/protocol.md §7, §1.
 * @module
 */

import { Keypair, PublicKey } from "@solana/web3.js";
import {
  COMMITMENT_ACCOUNT_DISCRIMINATOR,
  COMMITMENT_LAYOUT,
  findCommitmentAddress,
  LOCAL_PROGRAM_ID,
} from "@verifiable-memory/commitment-program";
import { describe, expect, it } from "vitest";
import {
  commitmentAddress,
  decodeCommitmentAccount,
  InvalidCommitmentAccountError,
} from "../src/index.js";

function accountData(fields: {
  authority: PublicKey;
  owner: PublicKey;
  root: Uint8Array;
  memoryCount: bigint;
  nonce: bigint;
  bump: number;
}): Uint8Array {
  const data = Buffer.alloc(121);
  Buffer.from(COMMITMENT_ACCOUNT_DISCRIMINATOR).copy(data, 0);
  fields.authority.toBuffer().copy(data, COMMITMENT_LAYOUT.authority);
  fields.owner.toBuffer().copy(data, COMMITMENT_LAYOUT.owner);
  Buffer.from(fields.root).copy(data, COMMITMENT_LAYOUT.root);
  data.writeBigUInt64LE(fields.memoryCount, COMMITMENT_LAYOUT.memoryCount);
  data.writeBigUInt64LE(fields.nonce, COMMITMENT_LAYOUT.nonce);
  data[COMMITMENT_LAYOUT.bump] = fields.bump;
  return data;
}

describe("commitmentAddress", () => {
  it("is the PDA of ['commitment', owner] under the program, for strings and keys alike", () => {
    const owner = Keypair.generate().publicKey;
    const [expected] = findCommitmentAddress(owner, new PublicKey(LOCAL_PROGRAM_ID));
    expect(commitmentAddress(owner.toBase58(), LOCAL_PROGRAM_ID).equals(expected)).toBe(true);
    expect(commitmentAddress(owner, new PublicKey(LOCAL_PROGRAM_ID)).equals(expected)).toBe(true);
  });

  it("throws TypeError naming the malformed argument", () => {
    expect(() => commitmentAddress(Keypair.generate().publicKey, "bad")).toThrow(/programId/);
    expect(() => commitmentAddress("0OIl", LOCAL_PROGRAM_ID)).toThrow(/owner/);
  });
});

describe("decodeCommitmentAccount", () => {
  const fields = {
    authority: Keypair.generate().publicKey,
    owner: Keypair.generate().publicKey,
    root: Uint8Array.from({ length: 32 }, (_, i) => 255 - i),
    memoryCount: 123_456_789_012n,
    nonce: 77n,
    bump: 253,
  };

  it("decodes every field of the 121-byte layout", () => {
    expect(decodeCommitmentAccount(accountData(fields))).toEqual({
      authority: fields.authority.toBase58(),
      owner: fields.owner.toBase58(),
      root: fields.root,
      memoryCount: 123_456_789_012,
      nonce: 77,
      bump: 253,
    });
  });

  it("refuses a wrong size or discriminator", () => {
    const good = accountData(fields);
    expect(() => decodeCommitmentAccount(good.subarray(0, 120))).toThrow(
      InvalidCommitmentAccountError,
    );
    const wrongTag = Uint8Array.from(good);
    wrongTag[0] = (wrongTag[0] ?? 0) ^ 1;
    expect(() => decodeCommitmentAccount(wrongTag)).toThrow(InvalidCommitmentAccountError);
  });

  it("throws RangeError for a count or nonce above 2^53 - 1 instead of rounding", () => {
    expect(() =>
      decodeCommitmentAccount(accountData({ ...fields, memoryCount: 2n ** 53n })),
    ).toThrow(RangeError);
    expect(() =>
      decodeCommitmentAccount(accountData({ ...fields, nonce: 2n ** 64n - 1n })),
    ).toThrow(RangeError);
    expect(decodeCommitmentAccount(accountData({ ...fields, nonce: 2n ** 53n - 1n })).nonce).toBe(
      Number.MAX_SAFE_INTEGER,
    );
  });
});
