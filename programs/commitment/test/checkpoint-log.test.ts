/**
 * The checkpoint log account in the deployed program (litesvm, real loader): created only by its
 * own authority at PDA ["checkpoint-log", authority], written only by it, with commit's rules
 * (size never decreases, the same root at an equal size, the nonce advances by one).
 * Source: docs/protocol.md §7.2 "Instructions".
 * @module
 */

import { Keypair, TransactionInstruction } from "@solana/web3.js";
import { describe, expect, test } from "vitest";
import {
  CHECKPOINT_LOG_ACCOUNT_SIZE,
  CommitmentErrorCode,
  createCommitCheckpointLogInstruction,
  createInitializeCheckpointLogInstruction,
  decodeCheckpointLog,
  findCheckpointLogAddress,
} from "../src/index.js";
import {
  assertSuccess,
  customErrorCode,
  deployedHarness,
  fundedKeypair,
  send,
  snapshot,
} from "./harness.js";

const root = (byte: number): Uint8Array => new Uint8Array(32).fill(byte);

describe("checkpoint log account", () => {
  test("its authority creates and commits it; sizes, roots and nonces follow commit's rules", () => {
    const h = deployedHarness();
    const authority = fundedKeypair(h.svm);
    const [address, bump] = findCheckpointLogAddress(authority.publicKey, h.programId);
    const commit = (signer: Keypair, r: Uint8Array, size: bigint, nonce: bigint, as = signer) =>
      send(h.svm, signer, [
        createCommitCheckpointLogInstruction({
          programId: h.programId,
          authority: as.publicKey,
          root: r,
          size,
          expectedNonce: nonce,
        }),
      ]);
    assertSuccess(
      send(h.svm, authority, [
        createInitializeCheckpointLogInstruction({
          programId: h.programId,
          authority: authority.publicKey,
        }),
        createCommitCheckpointLogInstruction({
          programId: h.programId,
          authority: authority.publicKey,
          root: root(1),
          size: 10n,
          expectedNonce: 0n,
        }),
      ]),
    );
    const account = snapshot(h.svm, address);
    expect(account.data.length).toBe(CHECKPOINT_LOG_ACCOUNT_SIZE);
    expect(account.lamports).toBe(
      Number(h.svm.minimumBalanceForRentExemption(BigInt(CHECKPOINT_LOG_ACCOUNT_SIZE))),
    );
    const stored = decodeCheckpointLog(account.data);
    expect(stored).toMatchObject({ size: 10n, nonce: 1n, bump });
    expect(stored.authority.toBase58()).toBe(authority.publicKey.toBase58());
    expect([...stored.root]).toEqual([...root(1)]);

    expect(customErrorCode(commit(authority, root(2), 9n, 1n))).toBe(
      CommitmentErrorCode.CountDecreased,
    );
    expect(customErrorCode(commit(authority, root(2), 10n, 1n))).toBe(
      CommitmentErrorCode.RootMismatch,
    );
    expect(customErrorCode(commit(authority, root(2), 11n, 0n))).toBe(
      CommitmentErrorCode.NonceMismatch,
    );
    assertSuccess(commit(authority, root(1), 10n, 1n));
    assertSuccess(commit(authority, root(3), 12n, 2n));
    expect(decodeCheckpointLog(snapshot(h.svm, address).data)).toMatchObject({
      size: 12n,
      nonce: 3n,
    });

    // Another key signing for this account is Unauthorized.
    const stranger = fundedKeypair(h.svm);
    const forged = createCommitCheckpointLogInstruction({
      programId: h.programId,
      authority: authority.publicKey,
      root: root(4),
      size: 13n,
      expectedNonce: 3n,
    });
    const keys = forged.keys.map((key, i) =>
      i === 0 ? { ...key, pubkey: stranger.publicKey } : key,
    );
    expect(
      customErrorCode(
        send(h.svm, stranger, [
          new TransactionInstruction({ programId: h.programId, keys, data: forged.data }),
        ]),
      ),
    ).toBe(CommitmentErrorCode.Unauthorized);
    expect(
      customErrorCode(
        send(h.svm, authority, [
          createInitializeCheckpointLogInstruction({
            programId: h.programId,
            authority: authority.publicKey,
          }),
        ]),
      ),
    ).toBe(CommitmentErrorCode.AlreadyInitialized);
  });

  test("nobody creates another key's checkpoint log", () => {
    const h = deployedHarness();
    const victim = Keypair.generate();
    const stranger = fundedKeypair(h.svm);
    const ix = createInitializeCheckpointLogInstruction({
      programId: h.programId,
      authority: stranger.publicKey,
    });
    const keys = ix.keys.map((key, i) =>
      i === 1
        ? { ...key, pubkey: findCheckpointLogAddress(victim.publicKey, h.programId)[0] }
        : key,
    );
    expect(
      customErrorCode(
        send(h.svm, stranger, [
          new TransactionInstruction({ programId: h.programId, keys, data: ix.data }),
        ]),
      ),
    ).toBe(CommitmentErrorCode.InvalidAccount);
    expect(h.svm.getAccount(findCheckpointLogAddress(victim.publicKey, h.programId)[0])).toBeNull();
  });
});
