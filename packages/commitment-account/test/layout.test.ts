/**
 * The commitment account codec: Anchor discriminators against SHA-256 computed by node:crypto,
 * encode/decode round trips over random fields, and the refusals of data that is not a
 * commitment account. (The bytes the real program writes are decoded in programs/commitment's
 * tests, which run the program.)
 */
import { createHash, randomBytes } from "node:crypto";
import { PublicKey } from "@solana/web3.js";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  anchorDiscriminator,
  COMMITMENT_ACCOUNT_DISCRIMINATOR,
  COMMITMENT_ACCOUNT_SIZE,
  COMMITMENT_LAYOUT,
  decodeCommitment,
  encodeCommitment,
  InvalidCommitmentDataError,
} from "../src/index.js";

const u64 = fc.bigInt({ min: 0n, max: (1n << 64n) - 1n });
const key = fc.uint8Array({ minLength: 32, maxLength: 32 });

describe("anchorDiscriminator", () => {
  it("is the first 8 bytes of SHA-256 of the preimage", () => {
    for (const preimage of ["account:Commitment", "global:commit", "global:initialize", ""]) {
      const expected = [...createHash("sha256").update(preimage).digest().subarray(0, 8)];
      expect([...anchorDiscriminator(preimage)]).toEqual(expected);
    }
    expect([...COMMITMENT_ACCOUNT_DISCRIMINATOR]).toEqual([
      ...createHash("sha256").update("account:Commitment").digest().subarray(0, 8),
    ]);
    expect(Object.isFrozen(COMMITMENT_ACCOUNT_DISCRIMINATOR)).toBe(true);
  });
});

describe("decodeCommitment / encodeCommitment", () => {
  it("decodes a hand-built account field by field (u64 little-endian)", () => {
    const authority = new PublicKey(randomBytes(32));
    const owner = new PublicKey(randomBytes(32));
    const root = randomBytes(32);
    const data = Buffer.alloc(COMMITMENT_ACCOUNT_SIZE);
    Buffer.from(COMMITMENT_ACCOUNT_DISCRIMINATOR).copy(data, 0);
    authority.toBuffer().copy(data, COMMITMENT_LAYOUT.authority);
    owner.toBuffer().copy(data, COMMITMENT_LAYOUT.owner);
    root.copy(data, COMMITMENT_LAYOUT.root);
    data.writeBigUInt64LE(2n ** 63n + 5n, COMMITMENT_LAYOUT.memoryCount);
    data.writeBigUInt64LE(7n, COMMITMENT_LAYOUT.nonce);
    data[COMMITMENT_LAYOUT.bump] = 253;
    // A view into a larger buffer decodes the same (byteOffset respected).
    const framed = Buffer.concat([Buffer.alloc(3), data]).subarray(3);
    for (const bytes of [data, framed]) {
      const decoded = decodeCommitment(bytes);
      expect(decoded).toEqual({
        authority: authority.toBase58(),
        owner: owner.toBase58(),
        root: new Uint8Array(root),
        memoryCount: 2n ** 63n + 5n,
        nonce: 7n,
        bump: 253,
      });
    }
    expect(Buffer.from(encodeCommitment(decodeCommitment(data)))).toEqual(data);
  });

  it("round-trips random fields", () => {
    fc.assert(
      fc.property(
        key,
        key,
        key,
        u64,
        u64,
        fc.integer({ min: 0, max: 255 }),
        (authority, owner, root, memoryCount, nonce, bump) => {
          const data = encodeCommitment({ authority, owner, root, memoryCount, nonce, bump });
          expect(data).toHaveLength(COMMITMENT_ACCOUNT_SIZE);
          const decoded = decodeCommitment(data);
          expect(new PublicKey(decoded.authority).toBytes()).toEqual(authority);
          expect(new PublicKey(decoded.owner).toBytes()).toEqual(owner);
          expect(decoded.root).toEqual(root);
          expect([decoded.memoryCount, decoded.nonce, decoded.bump]).toEqual([
            memoryCount,
            nonce,
            bump,
          ]);
        },
      ),
      { numRuns: 200 },
    );
  });

  it("returns a root that does not alias the account data", () => {
    const data = encodeCommitment({
      authority: new Uint8Array(32).fill(1),
      owner: new Uint8Array(32).fill(2),
      root: new Uint8Array(32).fill(3),
      memoryCount: 1n,
      nonce: 1n,
      bump: 255,
    });
    const decoded = decodeCommitment(data);
    data[COMMITMENT_LAYOUT.root] = 9;
    expect(decoded.root[0]).toBe(3);
  });

  it("refuses data of the wrong size or with another discriminator", () => {
    const good = encodeCommitment({
      authority: new Uint8Array(32),
      owner: new Uint8Array(32),
      root: new Uint8Array(32),
      memoryCount: 0n,
      nonce: 0n,
      bump: 0,
    });
    expect(() => decodeCommitment(good.subarray(0, 120))).toThrow(
      new InvalidCommitmentDataError("commitment account data must be 121 bytes, got 120"),
    );
    expect(() => decodeCommitment(new Uint8Array(122))).toThrow(InvalidCommitmentDataError);
    for (let i = 0; i < 8; i++) {
      const bad = Uint8Array.from(good);
      bad[i] = (bad[i] as number) ^ 0x80;
      expect(() => decodeCommitment(bad)).toThrow(/discriminator/);
    }
  });

  it("refuses fields it cannot encode", () => {
    const fields = {
      authority: new Uint8Array(32),
      owner: new Uint8Array(32),
      root: new Uint8Array(32),
      memoryCount: 0n,
      nonce: 0n,
      bump: 0,
    };
    expect(() => encodeCommitment({ ...fields, root: new Uint8Array(31) })).toThrow(RangeError);
    expect(() => encodeCommitment({ ...fields, memoryCount: -1n })).toThrow(/memoryCount/);
    expect(() => encodeCommitment({ ...fields, nonce: 1n << 64n })).toThrow(/nonce/);
    expect(() => encodeCommitment({ ...fields, bump: 256 })).toThrow(/bump/);
    expect(() => encodeCommitment({ ...fields, owner: "x" })).toThrow(/owner must be 32 bytes/);
  });
});
