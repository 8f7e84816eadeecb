/**
 * `commit_many` in the deployed program (litesvm, real loader): several owners' commitments
 * updated by one instruction in one legacy transaction, each entry held to commit's checks
 * (6000–6003, 6016), one refused entry failing the whole transaction and named in the logs, so
 * the caller retries without it.
 * Source: docs/protocol.md §7.2 "Instructions".
 * @module
 */

import { Keypair, type PublicKey, Transaction, TransactionInstruction } from "@solana/web3.js";
import { FailedTransactionMetadata } from "litesvm";
import { beforeAll, describe, expect, test } from "vitest";
import {
  CommitmentErrorCode,
  createCommitManyInstruction,
  decodeCommitment,
  refusedCommitEntry,
} from "../src/index.js";
import {
  assertSuccess,
  customErrorCode,
  deployedHarness,
  fundedKeypair,
  type Harness,
  initializeCommitment,
  type SendResult,
  send,
  snapshot,
} from "./harness.js";

const root = (byte: number): Uint8Array => new Uint8Array(32).fill(byte);

let h: Harness;
let authority: Keypair;
beforeAll(() => {
  h = deployedHarness();
  authority = fundedKeypair(h.svm);
});

function users(n: number): { owner: PublicKey; commitment: PublicKey }[] {
  return Array.from({ length: n }, () => initializeCommitment(h, authority));
}

function commitMany(
  entries: { commitment: PublicKey; root: Uint8Array; count: number; nonce: number }[],
  signer: Keypair = authority,
): SendResult {
  return send(h.svm, signer, [
    createCommitManyInstruction({
      programId: h.programId,
      authority: signer.publicKey,
      entries: entries.map((e) => ({
        commitment: e.commitment,
        root: e.root,
        memoryCount: BigInt(e.count),
        expectedNonce: BigInt(e.nonce),
      })),
    }),
  ]);
}

function logs(result: SendResult): string[] {
  return result instanceof FailedTransactionMetadata ? result.meta().logs() : result.logs();
}

describe("commit_many", () => {
  test("commits every entry in one transaction", () => {
    const batch = users(3);
    assertSuccess(
      commitMany(
        batch.map((u, i) => ({
          commitment: u.commitment,
          root: root(i + 1),
          count: i + 1,
          nonce: 0,
        })),
      ),
    );
    batch.forEach((u, i) => {
      const stored = decodeCommitment(snapshot(h.svm, u.commitment).data);
      expect(stored.memoryCount).toBe(BigInt(i + 1));
      expect(stored.nonce).toBe(1n);
      expect([...stored.root]).toEqual([...root(i + 1)]);
    });
  });

  test("one stale nonce fails the whole transaction, names the entry, and the retry without it lands", () => {
    const batch = users(4);
    const before = batch.map((u) => snapshot(h.svm, u.commitment).data);
    const entries = batch.map((u) => ({
      commitment: u.commitment,
      root: root(9),
      count: 3,
      nonce: 0,
    }));
    const stale = { ...entries[2], nonce: 1 } as (typeof entries)[number];
    entries[2] = stale;
    const failed = commitMany(entries);
    expect(customErrorCode(failed)).toBe(CommitmentErrorCode.NonceMismatch);
    expect(refusedCommitEntry(logs(failed))).toEqual({
      index: 2,
      code: CommitmentErrorCode.NonceMismatch,
    });
    batch.forEach((u, i) => {
      expect(snapshot(h.svm, u.commitment).data.equals(before[i] as Buffer)).toBe(true);
    });
    assertSuccess(commitMany(entries.filter((_, i) => i !== 2)));
    expect(decodeCommitment(snapshot(h.svm, batch[0]?.commitment as PublicKey).data).nonce).toBe(
      1n,
    );
    expect(decodeCommitment(snapshot(h.svm, batch[2]?.commitment as PublicKey).data).nonce).toBe(
      0n,
    );
  });

  test("each entry is held to commit's checks: 6000, 6001, 6003 and 6016", () => {
    const [a, b] = users(2) as [
      { owner: PublicKey; commitment: PublicKey },
      { owner: PublicKey; commitment: PublicKey },
    ];
    assertSuccess(commitMany([{ commitment: a.commitment, root: root(1), count: 5, nonce: 0 }]));
    const ok = { commitment: b.commitment, root: root(1), count: 1, nonce: 0 };
    const cases: [Parameters<typeof commitMany>[0][number], number][] = [
      [
        { commitment: a.commitment, root: root(1), count: 4, nonce: 1 },
        CommitmentErrorCode.CountDecreased,
      ],
      [
        { commitment: a.commitment, root: root(2), count: 5, nonce: 1 },
        CommitmentErrorCode.RootMismatch,
      ],
      [
        { commitment: Keypair.generate().publicKey, root: root(1), count: 5, nonce: 0 },
        CommitmentErrorCode.InvalidAccount,
      ],
    ];
    for (const [entry, code] of cases) {
      const result = commitMany([ok, entry]);
      expect(customErrorCode(result)).toBe(code);
      expect(refusedCommitEntry(logs(result))).toEqual({ index: 1, code });
    }
    const stranger = fundedKeypair(h.svm);
    expect(customErrorCode(commitMany([ok], stranger))).toBe(CommitmentErrorCode.Unauthorized);
    // The same account twice is refused rather than committed twice.
    expect(customErrorCode(commitMany([ok, { ...ok, nonce: 1 }]))).toBe(
      CommitmentErrorCode.InvalidAccount,
    );
    expect(decodeCommitment(snapshot(h.svm, b.commitment).data).nonce).toBe(0n);
  });

  test("malformed data and missing accounts are refused", () => {
    const [u] = users(1) as [{ owner: PublicKey; commitment: PublicKey }];
    const good = createCommitManyInstruction({
      programId: h.programId,
      authority: authority.publicKey,
      entries: [{ commitment: u.commitment, root: root(1), memoryCount: 1n, expectedNonce: 0n }],
    });
    const variant = (data: Buffer, keys = good.keys) =>
      send(h.svm, authority, [new TransactionInstruction({ programId: h.programId, keys, data })]);
    expect(customErrorCode(variant(good.data.subarray(0, good.data.length - 1)))).toBe(
      CommitmentErrorCode.InvalidInstruction,
    );
    const two = Buffer.from(good.data);
    two.writeUInt32LE(2, 8);
    expect(customErrorCode(variant(two))).toBe(CommitmentErrorCode.InvalidInstruction);
    const zero = Buffer.from(good.data.subarray(0, 12));
    zero.writeUInt32LE(0, 8);
    expect(customErrorCode(variant(zero))).toBe(CommitmentErrorCode.InvalidInstruction);
    expect(customErrorCode(variant(good.data, good.keys.slice(0, 1)))).toBe(
      CommitmentErrorCode.NotEnoughAccounts,
    );
  });

  test("twelve owners fit one legacy transaction", () => {
    const batch = users(12);
    const tx = new Transaction({
      feePayer: authority.publicKey,
      recentBlockhash: h.svm.latestBlockhash(),
    }).add(
      createCommitManyInstruction({
        programId: h.programId,
        authority: authority.publicKey,
        entries: batch.map((u) => ({
          commitment: u.commitment,
          root: root(3),
          memoryCount: 2n,
          expectedNonce: 0n,
        })),
      }),
    );
    tx.sign(authority);
    expect(tx.serialize().length).toBeLessThanOrEqual(1232);
    assertSuccess(h.svm.sendTransaction(tx));
    for (const u of batch) {
      expect(decodeCommitment(snapshot(h.svm, u.commitment).data).nonce).toBe(1n);
    }
  });
});
