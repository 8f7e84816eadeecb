/**
 * The program's safeguards, each run in litesvm against the committed ELF deployed through the
 * real loader, and each failing on the program before them: (a) only the owner or the anchor
 * authority of the deployment's anchor configuration creates a commitment account, (b) a commit
 * at the stored count must keep the stored root, (c) `set_authority` hands a commitment to a new
 * key (signed by its authority or its owner), (d) `sweep_vault` closes an empty vault or pays the
 * lamports above rent + stake to its owner.
 * Source: docs/protocol.md §7.2 "Instructions", §11.2 "Instructions".
 * @module
 */

import { Keypair, type PublicKey, SystemProgram } from "@solana/web3.js";
import { beforeAll, describe, expect, test } from "vitest";
import {
  CommitmentErrorCode,
  createCommitInstruction,
  createInitializeInstruction,
  createSetAnchorConfigInstruction,
  createSetAuthorityInstruction,
  createStakeInstruction,
  createSweepVaultInstruction,
  createUnstakeInstruction,
  decodeAnchorConfig,
  decodeCommitment,
  findAnchorConfigAddress,
  findCommitmentAddress,
  findVaultAddress,
  STAKE_VAULT_ACCOUNT_SIZE,
} from "../src/index.js";
import {
  assertSuccess,
  customErrorCode,
  deployedHarness,
  fundedKeypair,
  type Harness,
  initializeCommitment,
  initializeStakeConfig,
  send,
  setUnixTimestamp,
  snapshot,
} from "./harness.js";

const FEE = 5_000;
const root = (byte: number): Uint8Array => new Uint8Array(32).fill(byte);

function setAnchorConfig(h: Harness, signer: Keypair, anchorAuthority: PublicKey) {
  return send(h.svm, signer, [
    createSetAnchorConfigInstruction({
      programId: h.programId,
      upgradeAuthority: signer.publicKey,
      anchorAuthority,
    }),
  ]);
}

function initialize(h: Harness, signer: Keypair, owner: PublicKey) {
  return send(h.svm, signer, [
    createInitializeInstruction({ programId: h.programId, authority: signer.publicKey, owner }),
  ]);
}

function commit(
  h: Harness,
  authority: Keypair,
  owner: PublicKey,
  r: Uint8Array,
  count: number,
  nonce: number,
) {
  return send(h.svm, authority, [
    createCommitInstruction({
      programId: h.programId,
      authority: authority.publicKey,
      owner,
      root: r,
      memoryCount: BigInt(count),
      expectedNonce: BigInt(nonce),
    }),
  ]);
}

describe("(a) who may create a commitment account", () => {
  let h: Harness;
  let anchor: Keypair;
  beforeAll(() => {
    h = deployedHarness();
    anchor = fundedKeypair(h.svm);
  });

  test("without an anchor configuration anyone may (a deployment not yet configured)", () => {
    const stranger = fundedKeypair(h.svm);
    assertSuccess(initialize(h, stranger, Keypair.generate().publicKey));
  });

  test("only the upgrade authority sets the anchor configuration", () => {
    const stranger = fundedKeypair(h.svm);
    expect(customErrorCode(setAnchorConfig(h, stranger, stranger.publicKey))).toBe(
      CommitmentErrorCode.Unauthorized,
    );
    expect(h.svm.getAccount(findAnchorConfigAddress(h.programId)[0])).toBeNull();
    assertSuccess(setAnchorConfig(h, h.payer, anchor.publicKey));
    const config = snapshot(h.svm, findAnchorConfigAddress(h.programId)[0]);
    expect(decodeAnchorConfig(config.data).anchorAuthority.toBase58()).toBe(
      anchor.publicKey.toBase58(),
    );
  });

  test("a stranger can no longer squat a wallet's account; the anchor authority and the owner can", () => {
    const victim = Keypair.generate().publicKey;
    const stranger = fundedKeypair(h.svm);
    expect(customErrorCode(initialize(h, stranger, victim))).toBe(CommitmentErrorCode.Unauthorized);
    expect(h.svm.getAccount(findCommitmentAddress(victim, h.programId)[0])).toBeNull();

    // Leaving the configuration out does not get around it.
    const [commitment] = findCommitmentAddress(victim, h.programId);
    const threeAccounts = createInitializeInstruction({
      programId: h.programId,
      authority: stranger.publicKey,
      owner: victim,
    });
    threeAccounts.keys.length = 3;
    expect(customErrorCode(send(h.svm, stranger, [threeAccounts]))).toBe(
      CommitmentErrorCode.NotEnoughAccounts,
    );
    // Nor does passing another account in its place.
    const fake = createInitializeInstruction({
      programId: h.programId,
      authority: stranger.publicKey,
      owner: victim,
    });
    const keys = fake.keys;
    if (keys[3]) {
      keys[3] = { ...keys[3], pubkey: Keypair.generate().publicKey };
    }
    expect(customErrorCode(send(h.svm, stranger, [fake]))).toBe(CommitmentErrorCode.InvalidAccount);

    const created = assertSuccess(initialize(h, anchor, victim));
    // The program finds both PDAs' bumps on chain: each bump below 255 costs one more
    // create_program_address (1 500 compute units), so the line depends on the random wallet.
    const bumpSearches =
      255 -
      findCommitmentAddress(victim, h.programId)[1] +
      (255 - findAnchorConfigAddress(h.programId)[1]);
    expect(created.computeUnitsConsumed()).toBeLessThan(10_000n + 1_500n * BigInt(bumpSearches));
    const stored = decodeCommitment(snapshot(h.svm, commitment).data);
    expect(stored.authority).toBe(anchor.publicKey.toBase58());

    const owner = fundedKeypair(h.svm);
    assertSuccess(initialize(h, owner, owner.publicKey));
    const own = decodeCommitment(
      snapshot(h.svm, findCommitmentAddress(owner.publicKey, h.programId)[0]).data,
    );
    expect(own.authority).toBe(owner.publicKey.toBase58());
  });

  test("the upgrade authority replaces the anchor authority; the old one is refused after", () => {
    const next = fundedKeypair(h.svm);
    assertSuccess(setAnchorConfig(h, h.payer, next.publicKey));
    expect(customErrorCode(initialize(h, anchor, Keypair.generate().publicKey))).toBe(
      CommitmentErrorCode.Unauthorized,
    );
    assertSuccess(initialize(h, next, Keypair.generate().publicKey));
    // The anchor authority itself cannot move the configuration.
    expect(customErrorCode(setAnchorConfig(h, next, next.publicKey))).toBe(
      CommitmentErrorCode.Unauthorized,
    );
  });
});

describe("(b) a commit at the stored count keeps the stored root", () => {
  test("equal count with another root is RootMismatch and changes nothing; the same root passes", () => {
    const h = deployedHarness();
    const authority = fundedKeypair(h.svm);
    const { owner, commitment } = initializeCommitment(h, authority);
    assertSuccess(commit(h, authority, owner, root(1), 5, 0));
    const before = snapshot(h.svm, commitment);
    expect(customErrorCode(commit(h, authority, owner, root(2), 5, 1))).toBe(
      CommitmentErrorCode.RootMismatch,
    );
    expect(snapshot(h.svm, commitment).data.equals(before.data)).toBe(true);
    assertSuccess(commit(h, authority, owner, root(1), 5, 1));
    assertSuccess(commit(h, authority, owner, root(2), 6, 2));
    expect(decodeCommitment(snapshot(h.svm, commitment).data).nonce).toBe(3n);
  });
});

describe("(c) set_authority", () => {
  test("the authority or the owner hands the account to a new key; nobody else can", () => {
    const h = deployedHarness();
    const first = fundedKeypair(h.svm);
    const owner = fundedKeypair(h.svm);
    const { commitment } = initializeCommitment(h, first, owner.publicKey);
    const rotate = (signer: Keypair, to: PublicKey) =>
      send(h.svm, signer, [
        createSetAuthorityInstruction({
          programId: h.programId,
          signer: signer.publicKey,
          commitment,
          newAuthority: to,
        }),
      ]);
    const stranger = fundedKeypair(h.svm);
    expect(customErrorCode(rotate(stranger, stranger.publicKey))).toBe(
      CommitmentErrorCode.Unauthorized,
    );

    const second = fundedKeypair(h.svm);
    assertSuccess(commit(h, first, owner.publicKey, root(1), 1, 0));
    assertSuccess(rotate(first, second.publicKey));
    expect(customErrorCode(commit(h, first, owner.publicKey, root(2), 2, 1))).toBe(
      CommitmentErrorCode.Unauthorized,
    );
    assertSuccess(commit(h, second, owner.publicKey, root(2), 2, 1));

    // The owner takes a lost key's account back without it.
    const third = fundedKeypair(h.svm);
    assertSuccess(rotate(owner, third.publicKey));
    const stored = decodeCommitment(snapshot(h.svm, commitment).data);
    expect(stored.authority).toBe(third.publicKey.toBase58());
    expect(stored.memoryCount).toBe(2n);
    expect(stored.nonce).toBe(2n);
    expect(customErrorCode(rotate(second, second.publicKey))).toBe(
      CommitmentErrorCode.Unauthorized,
    );
    // Not a commitment account: refused.
    const vault = fundedKeypair(h.svm);
    expect(
      customErrorCode(
        send(h.svm, owner, [
          createSetAuthorityInstruction({
            programId: h.programId,
            signer: owner.publicKey,
            commitment: vault.publicKey,
            newAuthority: owner.publicKey,
          }),
        ]),
      ),
    ).toBe(CommitmentErrorCode.InvalidAccount);
  });
});

describe("(d) sweep_vault", () => {
  test("lamports sent to a vault outside stake go back to its owner; stake stays", () => {
    const h = deployedHarness();
    initializeStakeConfig(h, 60n);
    setUnixTimestamp(h.svm, 1_000n);
    const owner = fundedKeypair(h.svm);
    const [vault] = findVaultAddress(owner.publicKey, h.programId);
    assertSuccess(
      send(h.svm, owner, [
        createStakeInstruction({
          programId: h.programId,
          owner: owner.publicKey,
          amountLamports: 1_000_000n,
        }),
      ]),
    );
    const sweep = (signer: Keypair) =>
      send(h.svm, signer, [
        createSweepVaultInstruction({ programId: h.programId, owner: signer.publicKey }),
      ]);
    expect(customErrorCode(sweep(owner))).toBe(CommitmentErrorCode.NothingToSweep);

    const donor = fundedKeypair(h.svm);
    assertSuccess(
      send(h.svm, donor, [
        SystemProgram.transfer({ fromPubkey: donor.publicKey, toPubkey: vault, lamports: 777_777 }),
      ]),
    );
    const withExcess = snapshot(h.svm, vault).lamports;
    const ownerBefore = snapshot(h.svm, owner.publicKey).lamports;
    assertSuccess(sweep(owner));
    expect(snapshot(h.svm, vault).lamports).toBe(withExcess - 777_777);
    expect(snapshot(h.svm, owner.publicKey).lamports).toBe(ownerBefore + 777_777 - FEE);
    expect(customErrorCode(sweep(owner))).toBe(CommitmentErrorCode.NothingToSweep);
    // Another wallet cannot sweep this vault (its own vault address does not exist).
    const stranger = fundedKeypair(h.svm);
    const foreign = createSweepVaultInstruction({
      programId: h.programId,
      owner: stranger.publicKey,
    });
    const keys = foreign.keys;
    if (keys[1]) {
      keys[1] = { ...keys[1], pubkey: vault };
    }
    expect(customErrorCode(send(h.svm, stranger, [foreign]))).toBe(CommitmentErrorCode.WrongOwner);
  });

  test("an emptied vault is closed, its rent returned, and a later stake creates it again", () => {
    const h = deployedHarness();
    initializeStakeConfig(h, 60n);
    setUnixTimestamp(h.svm, 1_000n);
    const owner = fundedKeypair(h.svm);
    const [vault] = findVaultAddress(owner.publicKey, h.programId);
    const stake = () =>
      send(h.svm, owner, [
        createStakeInstruction({
          programId: h.programId,
          owner: owner.publicKey,
          amountLamports: 5_000_000n,
        }),
      ]);
    assertSuccess(stake());
    setUnixTimestamp(h.svm, 2_000n);
    assertSuccess(
      send(h.svm, owner, [
        createUnstakeInstruction({ programId: h.programId, owner: owner.publicKey }),
      ]),
    );
    const rent = snapshot(h.svm, vault).lamports;
    expect(rent).toBe(
      Number(h.svm.minimumBalanceForRentExemption(BigInt(STAKE_VAULT_ACCOUNT_SIZE))),
    );
    const ownerBefore = snapshot(h.svm, owner.publicKey).lamports;
    assertSuccess(
      send(h.svm, owner, [
        createSweepVaultInstruction({ programId: h.programId, owner: owner.publicKey }),
      ]),
    );
    expect(snapshot(h.svm, owner.publicKey).lamports).toBe(ownerBefore + rent - FEE);
    const closed = h.svm.getAccount(vault);
    expect(closed === null || closed.lamports === 0).toBe(true);
    assertSuccess(stake());
    expect(snapshot(h.svm, vault).data.length).toBe(STAKE_VAULT_ACCOUNT_SIZE);
  });
});
