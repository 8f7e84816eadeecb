/**
 * Property test: random instruction data and random account lists sent by anyone but the
 * authority never change an existing commitment account and never break the harness (every
 * transaction yields a result: success or a transaction error).
 * Source: docs/protocol.md §7 (only the authority's signed, well-formed commit changes the state).
 * @module
 */

import { type AccountMeta, Keypair, PublicKey, TransactionInstruction } from "@solana/web3.js";
import fc from "fast-check";
import { FailedTransactionMetadata } from "litesvm";
import { expect, test } from "vitest";
import {
  COMMIT_DISCRIMINATOR,
  CommitmentErrorCode,
  createCommitInstruction,
  INITIALIZE_DISCRIMINATOR,
} from "../src/index.js";
import {
  assertSuccess,
  customErrorCode,
  deployedHarness,
  fundedKeypair,
  initializeCommitment,
  send,
  snapshot,
} from "./harness.js";

test("random instructions from non-authorities never change the commitment", () => {
  const h = deployedHarness();
  const authority = fundedKeypair(h.svm);
  const attacker = fundedKeypair(h.svm);
  const { owner, commitment } = initializeCommitment(h, authority);
  assertSuccess(
    send(h.svm, authority, [
      createCommitInstruction({
        programId: h.programId,
        authority: authority.publicKey,
        owner,
        root: new Uint8Array(32).fill(7),
        memoryCount: 3n,
        expectedNonce: 0n,
      }),
    ]),
  );
  const before = snapshot(h.svm, commitment);

  // Accounts the fuzzer may pass; only the attacker (the fee payer) can sign.
  const pool: PublicKey[] = [
    attacker.publicKey,
    authority.publicKey,
    commitment,
    owner,
    h.programId,
    PublicKey.default,
    new PublicKey("SysvarRent111111111111111111111111111111111"),
    Keypair.generate().publicKey,
  ];
  const meta = fc.record({
    index: fc.nat({ max: pool.length - 1 }),
    isSigner: fc.boolean(),
    isWritable: fc.boolean(),
  });
  const data = fc.oneof(
    fc.uint8Array({ maxLength: 80 }),
    fc
      .tuple(
        fc.constantFrom(INITIALIZE_DISCRIMINATOR, COMMIT_DISCRIMINATOR),
        fc.uint8Array({ maxLength: 64 }),
      )
      .map(([prefix, rest]) => Uint8Array.from([...prefix, ...rest])),
    fc
      .tuple(
        fc.constantFrom(32, 48),
        fc.constantFrom(INITIALIZE_DISCRIMINATOR, COMMIT_DISCRIMINATOR),
        fc.uint8Array({ minLength: 48, maxLength: 48 }),
      )
      .map(([length, prefix, rest]) => Uint8Array.from([...prefix, ...rest.subarray(0, length)])),
  );

  const codes = new Set<number | null>();
  let successes = 0;
  fc.assert(
    fc.property(data, fc.array(meta, { maxLength: 6 }), (bytes, metas) => {
      const keys: AccountMeta[] = metas.map(({ index, isSigner, isWritable }) => {
        const pubkey = pool[index] ?? attacker.publicKey;
        return { pubkey, isSigner: isSigner && pubkey.equals(attacker.publicKey), isWritable };
      });
      const ix = new TransactionInstruction({
        programId: h.programId,
        keys,
        data: Buffer.from(bytes),
      });
      const result = send(h.svm, attacker, [ix]);
      if (result instanceof FailedTransactionMetadata) {
        codes.add(customErrorCode(result));
      } else {
        successes++;
      }
      expect(snapshot(h.svm, commitment)).toEqual(before);
    }),
    { numRuns: 300 },
  );
  // Nothing an outsider sends can succeed here, and the runs reach past the data checks.
  expect(successes).toBe(0);
  expect(codes).toContain(CommitmentErrorCode.InvalidInstruction);
  expect(codes).toContain(CommitmentErrorCode.NotEnoughAccounts);
});
