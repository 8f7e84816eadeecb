/**
 * The program derived address of `@verifiable-memory/commitment-account` against the reference:
 * `PublicKey.findProgramAddressSync` / `createProgramAddressSync` of @solana/web3.js, on fixed and
 * random keys, and the refusals of bad keys and seeds.
 */
import { PublicKey } from "@solana/web3.js";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  COMMITMENT_SEED,
  createProgramAddress,
  findCommitmentAddress,
  findProgramAddress,
} from "../src/index.js";

const PROGRAM_ID = "J51ibhpr3HHMXSvELsAC5jeB6R9ik3KR4fCYTEZdGYvz";
const OWNER = "9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM";

function reference(owner: Uint8Array, programId: Uint8Array): { address: string; bump: number } {
  const [address, bump] = PublicKey.findProgramAddressSync(
    [Buffer.from(COMMITMENT_SEED, "utf8"), Buffer.from(owner)],
    new PublicKey(programId),
  );
  return { address: address.toBase58(), bump };
}

describe("findCommitmentAddress", () => {
  it("gives web3.js's address and bump for a fixed owner under the local program id", () => {
    const ours = findCommitmentAddress(OWNER, PROGRAM_ID);
    expect(ours).toEqual(
      reference(new PublicKey(OWNER).toBytes(), new PublicKey(PROGRAM_ID).toBytes()),
    );
    // The same inputs as bytes give the same answer.
    expect(
      findCommitmentAddress(new PublicKey(OWNER).toBytes(), new PublicKey(PROGRAM_ID).toBytes()),
    ).toEqual(ours);
  });

  it("agrees with web3.js on random owners and program ids", () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 32, maxLength: 32 }),
        fc.uint8Array({ minLength: 32, maxLength: 32 }),
        (owner, programId) => {
          expect(findCommitmentAddress(owner, programId)).toEqual(reference(owner, programId));
        },
      ),
      { numRuns: 300 },
    );
  });

  it("finds bumps below 255 the way the runtime does (first off-curve bump from 255 down)", () => {
    // Owners whose bump-255 hash lies on the curve exist (about half of all owners): find some.
    let lowered = 0;
    for (let i = 0; i < 64; i++) {
      const owner = new Uint8Array(32).fill(i);
      const ours = findCommitmentAddress(owner, PROGRAM_ID);
      expect(ours).toEqual(reference(owner, new PublicKey(PROGRAM_ID).toBytes()));
      if (ours.bump < 255) {
        lowered++;
      }
    }
    expect(lowered).toBeGreaterThan(0);
  });

  it("refuses keys that are not 32 bytes of base58, naming the argument", () => {
    expect(() => findCommitmentAddress("not base58 0OIl", PROGRAM_ID)).toThrow(
      /owner must be a base58 public key/,
    );
    expect(() => findCommitmentAddress(OWNER, "abc")).toThrow(/programId must be 32 bytes, got 3/);
    expect(() => findCommitmentAddress(new Uint8Array(31), PROGRAM_ID)).toThrow(
      /owner must be 32 bytes, got 31/,
    );
    expect(() => findCommitmentAddress(42 as unknown as string, PROGRAM_ID)).toThrow(TypeError);
  });
});

describe("createProgramAddress / findProgramAddress", () => {
  it("matches createProgramAddressSync, null exactly where web3.js refuses an on-curve hash", () => {
    const program = new PublicKey(PROGRAM_ID);
    let onCurve = 0;
    for (let bump = 255; bump >= 200; bump--) {
      const seeds = [Buffer.from("vault"), new PublicKey(OWNER).toBuffer(), Buffer.from([bump])];
      let expected: string | null;
      try {
        expected = PublicKey.createProgramAddressSync(seeds, program).toBase58();
      } catch {
        expected = null;
        onCurve++;
      }
      const ours = createProgramAddress(seeds, PROGRAM_ID);
      expect(ours === null ? null : new PublicKey(ours).toBase58()).toBe(expected);
    }
    expect(onCurve).toBeGreaterThan(0);
  });

  it("takes any seeds, as web3.js does", () => {
    const seeds = [new TextEncoder().encode("stake_config")];
    const [address, bump] = PublicKey.findProgramAddressSync(seeds, new PublicKey(PROGRAM_ID));
    expect(findProgramAddress(seeds, PROGRAM_ID)).toEqual({ address: address.toBase58(), bump });
  });

  it("refuses more than 16 seeds and seeds over 32 bytes", () => {
    expect(() => createProgramAddress(new Array(17).fill(new Uint8Array(1)), PROGRAM_ID)).toThrow(
      /at most 16 seeds, got 17/,
    );
    expect(() => createProgramAddress([new Uint8Array(33)], PROGRAM_ID)).toThrow(
      /a seed is at most 32 bytes, got 33/,
    );
    expect(() => findProgramAddress(new Array(16).fill(new Uint8Array(1)), PROGRAM_ID)).toThrow(
      RangeError,
    );
  });
});
