/**
 * Behaviour of the deployed commitment program (initialize, commit and every refusal), run in
 * litesvm after a real BPF Upgradeable Loader deployment.
 * Source: docs/protocol.md §7 and §1; the instruction and error list.
 * @module
 */

import { randomBytes } from "node:crypto";
import {
  type AccountMeta,
  TransactionInstruction as Ix,
  Keypair,
  PublicKey,
  SystemProgram,
  type TransactionInstruction,
} from "@solana/web3.js";
import { Rent } from "litesvm";
import { beforeAll, describe, expect, test } from "vitest";
import {
  COMMIT_DISCRIMINATOR,
  COMMITMENT_ACCOUNT_DISCRIMINATOR,
  COMMITMENT_ACCOUNT_SIZE,
  COMMITMENT_LAYOUT,
  CommitmentErrorCode,
  createCommitInstruction,
  createInitializeInstruction,
  decodeCommitment,
  findCommitmentAddress,
  INITIALIZE_DISCRIMINATOR,
} from "../src/index.js";
import {
  assertSuccess,
  customErrorCode,
  deployedHarness,
  fundedKeypair,
  type Harness,
  initializeCommitment,
  send,
  snapshot,
} from "./harness.js";

let h: Harness;
let authority: Keypair;

beforeAll(() => {
  h = deployedHarness();
  authority = fundedKeypair(h.svm);
});

function commitIx(
  owner: PublicKey,
  root: Uint8Array,
  memoryCount: bigint,
  expectedNonce: bigint,
  signer: PublicKey = authority.publicKey,
): TransactionInstruction {
  return createCommitInstruction({
    programId: h.programId,
    authority: signer,
    owner,
    root,
    memoryCount,
    expectedNonce,
  });
}

/** The commit instruction with its commitment account replaced by `account`. */
function commitOn(account: PublicKey, nonce: bigint, writable = true): TransactionInstruction {
  const ix = commitIx(Keypair.generate().publicKey, randomBytes(32), 1n, nonce);
  return new Ix({
    programId: h.programId,
    keys: [
      { pubkey: authority.publicKey, isSigner: true, isWritable: false },
      { pubkey: account, isSigner: false, isWritable: writable },
    ],
    data: ix.data,
  });
}

function raw(data: Buffer, keys: AccountMeta[]): TransactionInstruction {
  return new Ix({ programId: h.programId, keys, data });
}

/** The account metas of an initialize instruction, named. */
function initializeMetas(ix: TransactionInstruction): [AccountMeta, AccountMeta, AccountMeta] {
  const [authorityMeta, commitmentMeta, systemMeta] = ix.keys;
  if (!authorityMeta || !commitmentMeta || !systemMeta) {
    throw new Error("initialize instruction must have 3 accounts");
  }
  return [authorityMeta, commitmentMeta, systemMeta];
}

describe("initialize", () => {
  test("creates the exact 121-byte, rent-exempt, program-owned account", () => {
    const owner = Keypair.generate().publicKey;
    const { commitment, bump } = initializeCommitment(h, authority, owner);
    const [expectedAddress, expectedBump] = PublicKey.findProgramAddressSync(
      [Buffer.from("commitment"), owner.toBuffer()],
      h.programId,
    );
    expect(commitment.equals(expectedAddress)).toBe(true);
    expect(bump).toBe(expectedBump);

    const account = h.svm.getAccount(commitment);
    expect(account?.owner.equals(h.programId)).toBe(true);
    expect(account?.executable).toBe(false);
    expect(account?.data.length).toBe(COMMITMENT_ACCOUNT_SIZE);
    expect(BigInt(account?.lamports ?? 0)).toBe(h.svm.minimumBalanceForRentExemption(121n));

    const data = Buffer.from(account?.data ?? []);
    const L = COMMITMENT_LAYOUT;
    expect([...data.subarray(0, 8)]).toEqual([...COMMITMENT_ACCOUNT_DISCRIMINATOR]);
    expect(
      data.subarray(L.authority, L.authority + 32).equals(authority.publicKey.toBuffer()),
    ).toBe(true);
    expect(data.subarray(L.owner, L.owner + 32).equals(owner.toBuffer())).toBe(true);
    expect(data.subarray(L.root, L.root + 32).equals(Buffer.alloc(32))).toBe(true);
    expect(data.readBigUInt64LE(L.memoryCount)).toBe(0n);
    expect(data.readBigUInt64LE(L.nonce)).toBe(0n);
    expect(data[L.bump]).toBe(expectedBump);
  });

  test("authority pays: its balance drops by the rent-exempt minimum plus the fee", () => {
    const payer = fundedKeypair(h.svm);
    const before = h.svm.getBalance(payer.publicKey) ?? 0n;
    initializeCommitment(h, payer);
    const after = h.svm.getBalance(payer.publicKey) ?? 0n;
    expect(before - after).toBe(h.svm.minimumBalanceForRentExemption(121n) + 5000n);
  });

  test("re-initialize is refused with AlreadyInitialized, by anyone, state unchanged", () => {
    const { owner, commitment } = initializeCommitment(h, authority);
    assertSuccess(send(h.svm, authority, [commitIx(owner, randomBytes(32), 3n, 0n)]));
    const before = snapshot(h.svm, commitment);
    for (const signer of [authority, fundedKeypair(h.svm)]) {
      const result = send(h.svm, signer, [
        createInitializeInstruction({ programId: h.programId, authority: signer.publicKey, owner }),
      ]);
      expect(customErrorCode(result)).toBe(CommitmentErrorCode.AlreadyInitialized);
    }
    expect(snapshot(h.svm, commitment)).toEqual(before);
  });

  test("a pre-funded PDA is topped up, allocated and assigned instead of failing", () => {
    const owner = Keypair.generate().publicKey;
    const [commitment] = findCommitmentAddress(owner, h.programId);
    assertSuccess(
      send(h.svm, authority, [
        SystemProgram.transfer({
          fromPubkey: authority.publicKey,
          toPubkey: commitment,
          lamports: 1_000_000,
        }),
      ]),
    );
    initializeCommitment(h, authority, owner);
    const account = h.svm.getAccount(commitment);
    expect(account?.owner.equals(h.programId)).toBe(true);
    expect(BigInt(account?.lamports ?? 0)).toBe(h.svm.minimumBalanceForRentExemption(121n));
    expect(decodeCommitment(account?.data ?? new Uint8Array()).owner).toBe(owner.toBase58());
  });

  test("an over-funded PDA keeps its lamports", () => {
    const owner = Keypair.generate().publicKey;
    const [commitment] = findCommitmentAddress(owner, h.programId);
    const lamports = 5_000_000;
    assertSuccess(
      send(h.svm, authority, [
        SystemProgram.transfer({ fromPubkey: authority.publicKey, toPubkey: commitment, lamports }),
      ]),
    );
    initializeCommitment(h, authority, owner);
    expect(h.svm.getAccount(commitment)?.lamports).toBe(lamports);
  });

  test("the PDA of another owner, a wrong system program or a read-only PDA is refused", () => {
    const owner = Keypair.generate().publicKey;
    const good = createInitializeInstruction({
      programId: h.programId,
      authority: authority.publicKey,
      owner,
    });
    const [otherPda] = findCommitmentAddress(Keypair.generate().publicKey, h.programId);
    const [a, c, s] = initializeMetas(good);
    const variants: AccountMeta[][] = [
      [a, { ...c, pubkey: otherPda }, s],
      [a, c, { ...s, pubkey: h.programId }],
      [a, { ...c, isWritable: false }, s],
    ];
    for (const keys of variants) {
      const result = send(h.svm, authority, [raw(good.data, keys)]);
      expect(customErrorCode(result)).toBe(CommitmentErrorCode.InvalidAccount);
    }
    expect(h.svm.getAccount(findCommitmentAddress(owner, h.programId)[0])).toBeNull();
  });

  test("an authority that does not sign is refused with Unauthorized", () => {
    const owner = Keypair.generate().publicKey;
    const good = createInitializeInstruction({
      programId: h.programId,
      authority: authority.publicKey,
      owner,
    });
    const keys = good.keys.map((k, i) => (i === 0 ? { ...k, isSigner: false } : k));
    const result = send(h.svm, fundedKeypair(h.svm), [raw(good.data, keys)]);
    expect(customErrorCode(result)).toBe(CommitmentErrorCode.Unauthorized);
  });

  test("short or long data and missing accounts are refused", () => {
    const good = createInitializeInstruction({
      programId: h.programId,
      authority: authority.publicKey,
      owner: Keypair.generate().publicKey,
    });
    const cases: [Buffer, AccountMeta[], number][] = [
      [good.data.subarray(0, 39), good.keys, CommitmentErrorCode.InvalidInstruction],
      [
        Buffer.concat([good.data, Buffer.from([0])]),
        good.keys,
        CommitmentErrorCode.InvalidInstruction,
      ],
      [good.data, good.keys.slice(0, 2), CommitmentErrorCode.NotEnoughAccounts],
    ];
    for (const [data, keys, code] of cases) {
      expect(customErrorCode(send(h.svm, authority, [raw(data, keys)]))).toBe(code);
    }
  });

  test("rent-exempt minimum from the sysvar, without floats, matches the runtime's f64 maths", () => {
    const local = deployedHarness();
    const payer = fundedKeypair(local.svm);
    const cases: [bigint, number][] = [
      [3480n, 2.0], // mainnet values
      [1234n, 1.7],
      [999n, 0.3],
      [1n, Math.PI],
      // 298800 × (1/3 as f64) is just below 99600; the f64 product rounds up to exactly 99600,
      // so truncating the exact product instead would give 99599.
      [1200n, 1 / 3],
      [7n, 1e-9], // rounds to 0 lamports: the program funds 1 lamport, as the bank's minimum
    ];
    for (const [perByteYear, threshold] of cases) {
      local.svm.setRent(new Rent(perByteYear, threshold, 50));
      const { commitment } = initializeCommitment(local, payer);
      const expected = local.svm.minimumBalanceForRentExemption(121n);
      expect(BigInt(local.svm.getAccount(commitment)?.lamports ?? -1), `${threshold}`).toBe(
        expected,
      );
    }
  });
});

describe("commit", () => {
  test("stores root and count and advances the nonce; an equal count with the same root is allowed", () => {
    const { owner, commitment } = initializeCommitment(h, authority);
    const root1 = randomBytes(32);
    assertSuccess(send(h.svm, authority, [commitIx(owner, root1, 5n, 0n)]));
    let state = decodeCommitment(h.svm.getAccount(commitment)?.data ?? new Uint8Array());
    expect(Buffer.from(state.root).equals(root1)).toBe(true);
    expect(state.memoryCount).toBe(5n);
    expect(state.nonce).toBe(1n);

    assertSuccess(send(h.svm, authority, [commitIx(owner, root1, 5n, 1n)]));
    state = decodeCommitment(h.svm.getAccount(commitment)?.data ?? new Uint8Array());
    expect(Buffer.from(state.root).equals(root1)).toBe(true);
    expect(state.memoryCount).toBe(5n);
    expect(state.nonce).toBe(2n);
    expect(state.authority).toBe(authority.publicKey.toBase58());
    expect(state.owner).toBe(owner.toBase58());
  });

  test("a smaller count is refused with CountDecreased and leaves the state unchanged", () => {
    const { owner, commitment } = initializeCommitment(h, authority);
    assertSuccess(send(h.svm, authority, [commitIx(owner, randomBytes(32), 10n, 0n)]));
    const before = snapshot(h.svm, commitment);
    const result = send(h.svm, authority, [commitIx(owner, randomBytes(32), 9n, 1n)]);
    expect(customErrorCode(result)).toBe(CommitmentErrorCode.CountDecreased);
    expect(snapshot(h.svm, commitment)).toEqual(before);
  });

  test("a wrong nonce (stale or ahead) is refused with NonceMismatch", () => {
    const { owner, commitment } = initializeCommitment(h, authority);
    assertSuccess(send(h.svm, authority, [commitIx(owner, randomBytes(32), 1n, 0n)]));
    const before = snapshot(h.svm, commitment);
    for (const nonce of [0n, 2n, (1n << 64n) - 1n]) {
      const result = send(h.svm, authority, [commitIx(owner, randomBytes(32), 2n, nonce)]);
      expect(customErrorCode(result)).toBe(CommitmentErrorCode.NonceMismatch);
    }
    expect(snapshot(h.svm, commitment)).toEqual(before);
  });

  test("a signer other than the authority, or an unsigned authority, is Unauthorized", () => {
    const { owner, commitment } = initializeCommitment(h, authority);
    const before = snapshot(h.svm, commitment);
    const intruder = fundedKeypair(h.svm);
    const byIntruder = send(h.svm, intruder, [
      commitIx(owner, randomBytes(32), 1n, 0n, intruder.publicKey),
    ]);
    expect(customErrorCode(byIntruder)).toBe(CommitmentErrorCode.Unauthorized);

    const good = commitIx(owner, randomBytes(32), 1n, 0n);
    const keys = good.keys.map((k, i) => (i === 0 ? { ...k, isSigner: false } : k));
    const unsigned = send(h.svm, intruder, [raw(good.data, keys)]);
    expect(customErrorCode(unsigned)).toBe(CommitmentErrorCode.Unauthorized);
    expect(snapshot(h.svm, commitment)).toEqual(before);
  });

  test("accounts that are not a program-owned commitment PDA are refused", () => {
    const { commitment } = initializeCommitment(h, authority);
    const data = snapshot(h.svm, commitment).data;
    const lamports = Number(h.svm.minimumBalanceForRentExemption(121n));
    const place = (owner: PublicKey, bytes: Uint8Array): PublicKey => {
      const address = Keypair.generate().publicKey;
      h.svm.setAccount(address, { lamports, data: bytes, owner, executable: false });
      return address;
    };
    const badDiscriminator = Buffer.from(data);
    badDiscriminator[0] = (badDiscriminator[0] ?? 0) ^ 1;
    const accounts = [
      place(SystemProgram.programId, data), // same bytes, not owned by the program
      place(Keypair.generate().publicKey, data), // owned by another program
      place(h.programId, data), // program-owned copy that is not the PDA
      place(h.programId, badDiscriminator),
      place(h.programId, data.subarray(0, 120)),
      place(h.programId, Buffer.concat([data, Buffer.alloc(1)])),
      authority.publicKey,
    ];
    for (const account of accounts) {
      const before = snapshot(h.svm, account);
      const result = send(h.svm, authority, [commitOn(account, 0n)]);
      expect(customErrorCode(result)).toBe(CommitmentErrorCode.InvalidAccount);
      expect(snapshot(h.svm, account).data).toEqual(before.data);
    }
    const readOnly = send(h.svm, authority, [commitOn(commitment, 0n, false)]);
    expect(customErrorCode(readOnly)).toBe(CommitmentErrorCode.InvalidAccount);
  });

  test("a nonce at u64::MAX cannot advance (NonceOverflow)", () => {
    const { owner, commitment } = initializeCommitment(h, authority);
    const account = h.svm.getAccount(commitment);
    const data = Buffer.from(account?.data ?? []);
    const max = (1n << 64n) - 1n;
    data.writeBigUInt64LE(max, COMMITMENT_LAYOUT.nonce);
    h.svm.setAccount(commitment, {
      lamports: account?.lamports ?? 0,
      data,
      owner: h.programId,
      executable: false,
    });
    const result = send(h.svm, authority, [commitIx(owner, randomBytes(32), 1n, max)]);
    expect(customErrorCode(result)).toBe(CommitmentErrorCode.NonceOverflow);
  });

  test("extra and duplicated accounts after the required ones are tolerated", () => {
    const { owner, commitment } = initializeCommitment(h, authority);
    const good = commitIx(owner, randomBytes(32), 4n, 0n);
    const readOnly = (pubkey: PublicKey): AccountMeta => ({
      pubkey,
      isSigner: false,
      isWritable: false,
    });
    const keys = [
      ...good.keys,
      ...good.keys,
      readOnly(SystemProgram.programId),
      ...Array.from({ length: 4 }, () => readOnly(Keypair.generate().publicKey)),
    ];
    assertSuccess(send(h.svm, authority, [raw(good.data, keys)]));
    expect(decodeCommitment(snapshot(h.svm, commitment).data).nonce).toBe(1n);
  });

  test("data of the wrong length, unknown discriminators and missing accounts are refused", () => {
    const { owner } = initializeCommitment(h, authority);
    const good = commitIx(owner, randomBytes(32), 1n, 0n);
    const unknown = Buffer.from(good.data);
    unknown[7] = (unknown[7] ?? 0) ^ 0x80;
    const cases: [Buffer, AccountMeta[], number][] = [
      [Buffer.alloc(0), good.keys, CommitmentErrorCode.InvalidInstruction],
      [
        Buffer.from(COMMIT_DISCRIMINATOR).subarray(0, 7),
        good.keys,
        CommitmentErrorCode.InvalidInstruction,
      ],
      [good.data.subarray(0, 55), good.keys, CommitmentErrorCode.InvalidInstruction],
      [
        Buffer.concat([good.data, Buffer.alloc(1)]),
        good.keys,
        CommitmentErrorCode.InvalidInstruction,
      ],
      [unknown, good.keys, CommitmentErrorCode.InvalidInstruction],
      [Buffer.from(INITIALIZE_DISCRIMINATOR), good.keys, CommitmentErrorCode.InvalidInstruction],
      [good.data, good.keys.slice(0, 1), CommitmentErrorCode.NotEnoughAccounts],
      [good.data, [], CommitmentErrorCode.NotEnoughAccounts],
    ];
    for (const [data, keys, code] of cases) {
      expect(customErrorCode(send(h.svm, authority, [raw(data, keys)]))).toBe(code);
    }
  });

  test("costs stay within a few thousand compute units", () => {
    const payer = fundedKeypair(h.svm);
    // initialize searches the PDA's bump from 255 down, each miss costing one more hash: measure an
    // owner whose bump is 255 (the common case), so the bound does not depend on a random key.
    let owner = Keypair.generate().publicKey;
    while (findCommitmentAddress(owner, h.programId)[1] !== 255) {
      owner = Keypair.generate().publicKey;
    }
    const init = assertSuccess(
      send(h.svm, payer, [
        createInitializeInstruction({ programId: h.programId, authority: payer.publicKey, owner }),
      ]),
    );
    const commit = assertSuccess(
      send(h.svm, payer, [
        createCommitInstruction({
          programId: h.programId,
          authority: payer.publicKey,
          owner,
          root: randomBytes(32),
          memoryCount: 1n,
          expectedNonce: 0n,
        }),
      ]),
    );
    // Without an anchor configuration (this harness sets none) initialize also searches the
    // configuration's address; hardening.test.ts bounds the configured path.
    expect(init.computeUnitsConsumed()).toBeLessThan(20_000n);
    expect(commit.computeUnitsConsumed()).toBeLessThan(6_000n);
  });
});
