/**
 * Staking in the deployed commitment program (initialize_stake_config, stake, unstake), run in
 * litesvm after a real BPF Upgradeable Loader deployment so the ProgramData account exists, with
 * the clock sysvar moved to reach maturity. Balances are checked to the lamport: a transaction
 * with one signature costs 5000 lamports of fee.
 * Source: docs/protocol.md §11 "Staking"; programs/commitment/README.md ("Staking").
 * @module
 */

import {
  type AccountMeta,
  Keypair,
  PublicKey,
  SystemProgram,
  TransactionInstruction,
} from "@solana/web3.js";
import { beforeAll, describe, expect, test } from "vitest";
import { deployCommitmentProgram } from "../src/deploy.js";
import {
  BPF_UPGRADEABLE_LOADER_ID,
  CommitmentErrorCode,
  createInitializeStakeConfigInstruction,
  createStakeInstruction,
  createUnstakeInstruction,
  decodeStakeConfig,
  decodeStakeVault,
  decodeStakingInstruction,
  findCommitmentAddress,
  findProgramDataAddress,
  findStakeConfigAddress,
  findVaultAddress,
  MAX_LOCK_PERIOD_SECONDS,
  MAX_STAKE_LOTS,
  STAKE_CONFIG_ACCOUNT_SIZE,
  STAKE_LOT_SIZE,
  STAKE_VAULT_ACCOUNT_SIZE,
  STAKE_VAULT_LAYOUT,
  type StakeVaultAccount,
} from "../src/index.js";
import {
  assertSuccess,
  customErrorCode,
  deployedHarness,
  fundedKeypair,
  type Harness,
  initializeCommitment,
  initializeStakeConfig,
  type SendResult,
  send,
  setUnixTimestamp,
  snapshot,
} from "./harness.js";

/** Lock period of the shared harness, seconds. */
const LOCK = 3_600n;
/** Fee of a transaction with one signature, lamports. */
const FEE = 5_000n;
const I64_MAX = (1n << 63n) - 1n;

let h: Harness;
let vaultRent: bigint;

beforeAll(() => {
  h = deployedHarness();
  initializeStakeConfig(h, LOCK);
  vaultRent = h.svm.minimumBalanceForRentExemption(BigInt(STAKE_VAULT_ACCOUNT_SIZE));
});

function balance(address: PublicKey): bigint {
  return h.svm.getBalance(address) ?? 0n;
}

function now(): bigint {
  return h.svm.getClock().unixTimestamp;
}

function stake(owner: Keypair, amountLamports: bigint, harness: Harness = h): SendResult {
  return send(harness.svm, owner, [
    createStakeInstruction({
      programId: harness.programId,
      owner: owner.publicKey,
      amountLamports,
    }),
  ]);
}

function unstake(owner: Keypair): SendResult {
  return send(h.svm, owner, [
    createUnstakeInstruction({ programId: h.programId, owner: owner.publicKey }),
  ]);
}

function vaultOf(owner: PublicKey): StakeVaultAccount {
  return decodeStakeVault(snapshot(h.svm, findVaultAddress(owner, h.programId)[0]).data);
}

/** `ix` with account `index` replaced by `meta` fields. */
function withMeta(
  ix: TransactionInstruction,
  index: number,
  meta: Partial<AccountMeta>,
): TransactionInstruction {
  return new TransactionInstruction({
    programId: ix.programId,
    keys: ix.keys.map((k, i) => (i === index ? { ...k, ...meta } : k)),
    data: ix.data,
  });
}

/** The bytes of the vault after its first `lotCount` lots (freed slots must be zero). */
function lotTail(owner: PublicKey, lotCount: number): Buffer {
  const data = snapshot(h.svm, findVaultAddress(owner, h.programId)[0]).data;
  return data.subarray(STAKE_VAULT_LAYOUT.lots + lotCount * STAKE_LOT_SIZE);
}

describe("initialize_stake_config", () => {
  test("stake before the configuration exists fails with StakeNotConfigured", () => {
    const local = deployedHarness();
    const owner = fundedKeypair(local.svm);
    expect(customErrorCode(stake(owner, 1_000n, local))).toBe(
      CommitmentErrorCode.StakeNotConfigured,
    );
    expect(local.svm.getAccount(findVaultAddress(owner.publicKey, local.programId)[0])).toBeNull();
  });

  test("the upgrade authority creates the 49-byte rent-exempt configuration", () => {
    const [config, bump] = findStakeConfigAddress(h.programId);
    const account = h.svm.getAccount(config);
    expect(account?.owner.equals(h.programId)).toBe(true);
    expect(account?.data.length).toBe(STAKE_CONFIG_ACCOUNT_SIZE);
    expect(BigInt(account?.lamports ?? 0)).toBe(
      h.svm.minimumBalanceForRentExemption(BigInt(STAKE_CONFIG_ACCOUNT_SIZE)),
    );
    const decoded = decodeStakeConfig(account?.data ?? new Uint8Array());
    expect(decoded.authority.equals(h.payer.publicKey)).toBe(true);
    expect(decoded.lockPeriodSeconds).toBe(LOCK);
    expect(decoded.bump).toBe(bump);
  });

  test("a second initialisation is refused: AlreadyInitialized, or Unauthorized for others", () => {
    const [config] = findStakeConfigAddress(h.programId);
    const before = snapshot(h.svm, config);
    const again = send(h.svm, h.payer, [
      createInitializeStakeConfigInstruction({
        programId: h.programId,
        authority: h.payer.publicKey,
        lockPeriodSeconds: 1n,
      }),
    ]);
    expect(customErrorCode(again)).toBe(CommitmentErrorCode.AlreadyInitialized);
    const other = fundedKeypair(h.svm);
    const byOther = send(h.svm, other, [
      createInitializeStakeConfigInstruction({
        programId: h.programId,
        authority: other.publicKey,
        lockPeriodSeconds: 1n,
      }),
    ]);
    expect(customErrorCode(byOther)).toBe(CommitmentErrorCode.Unauthorized);
    expect(snapshot(h.svm, config)).toEqual(before);
  });

  test("only the upgrade authority, signing, with this program's ProgramData, may configure", () => {
    const local = deployedHarness();
    const [config] = findStakeConfigAddress(local.programId);
    const ix = (authority: PublicKey, lockPeriodSeconds = LOCK): TransactionInstruction =>
      createInitializeStakeConfigInstruction({
        programId: local.programId,
        authority,
        lockPeriodSeconds,
      });
    const stranger = fundedKeypair(local.svm);
    expect(customErrorCode(send(local.svm, stranger, [ix(stranger.publicKey)]))).toBe(
      CommitmentErrorCode.Unauthorized,
    );
    const unsigned = withMeta(ix(local.payer.publicKey), 0, { isSigner: false });
    expect(customErrorCode(send(local.svm, stranger, [unsigned]))).toBe(
      CommitmentErrorCode.Unauthorized,
    );

    // The payer is also the upgrade authority of a second program: its ProgramData is refused.
    const otherProgram = Keypair.generate().publicKey;
    deployCommitmentProgram(local.svm, otherProgram, local.payer);
    const foreignProgramData = withMeta(ix(local.payer.publicKey), 2, {
      pubkey: findProgramDataAddress(otherProgram),
    });
    const systemAccount = withMeta(ix(local.payer.publicKey), 2, {
      pubkey: local.payer.publicKey,
    });
    const wrongSystemProgram = withMeta(ix(local.payer.publicKey), 3, { pubkey: otherProgram });
    const readOnlyConfig = withMeta(ix(local.payer.publicKey), 1, { isWritable: false });
    for (const bad of [foreignProgramData, systemAccount, wrongSystemProgram, readOnlyConfig]) {
      expect(customErrorCode(send(local.svm, local.payer, [bad]))).toBe(
        CommitmentErrorCode.InvalidAccount,
      );
    }
    expect(local.svm.getAccount(config)).toBeNull();
  });

  test("the lock period must be 1..=315360000 seconds", () => {
    const local = deployedHarness();
    for (const lockPeriodSeconds of [0n, MAX_LOCK_PERIOD_SECONDS + 1n, (1n << 64n) - 1n]) {
      const result = send(local.svm, local.payer, [
        createInitializeStakeConfigInstruction({
          programId: local.programId,
          authority: local.payer.publicKey,
          lockPeriodSeconds,
        }),
      ]);
      expect(customErrorCode(result)).toBe(CommitmentErrorCode.InvalidLockPeriod);
    }
    initializeStakeConfig(local, MAX_LOCK_PERIOD_SECONDS);
    const config = local.svm.getAccount(findStakeConfigAddress(local.programId)[0]);
    expect(decodeStakeConfig(config?.data ?? new Uint8Array()).lockPeriodSeconds).toBe(
      MAX_LOCK_PERIOD_SECONDS,
    );
  });

  test("after SetAuthority only the new upgrade authority may configure", () => {
    const local = deployedHarness();
    const next = fundedKeypair(local.svm);
    assertSuccess(
      send(local.svm, local.payer, [
        new TransactionInstruction({
          programId: BPF_UPGRADEABLE_LOADER_ID,
          keys: [
            {
              pubkey: findProgramDataAddress(local.programId),
              isSigner: false,
              isWritable: true,
            },
            { pubkey: local.payer.publicKey, isSigner: true, isWritable: false },
            { pubkey: next.publicKey, isSigner: false, isWritable: false },
          ],
          data: Buffer.from([4, 0, 0, 0]), // UpgradeableLoaderInstruction::SetAuthority
        }),
      ]),
    );
    const by = (signer: Keypair): SendResult =>
      send(local.svm, signer, [
        createInitializeStakeConfigInstruction({
          programId: local.programId,
          authority: signer.publicKey,
          lockPeriodSeconds: LOCK,
        }),
      ]);
    expect(customErrorCode(by(local.payer))).toBe(CommitmentErrorCode.Unauthorized);
    assertSuccess(by(next));
    const config = local.svm.getAccount(findStakeConfigAddress(local.programId)[0]);
    expect(
      decodeStakeConfig(config?.data ?? new Uint8Array()).authority.equals(next.publicKey),
    ).toBe(true);
  });
});

describe("stake", () => {
  test("the first stake creates the vault and a lot maturing at clock + lock period", () => {
    const owner = fundedKeypair(h.svm);
    const [vault, bump] = findVaultAddress(owner.publicKey, h.programId);
    const before = balance(owner.publicKey);
    const amount = 250_000_000n;
    assertSuccess(stake(owner, amount));

    expect(before - balance(owner.publicKey)).toBe(vaultRent + amount + FEE);
    const account = h.svm.getAccount(vault);
    expect(account?.owner.equals(h.programId)).toBe(true);
    expect(account?.data.length).toBe(STAKE_VAULT_ACCOUNT_SIZE);
    expect(BigInt(account?.lamports ?? 0)).toBe(vaultRent + amount);
    const decoded = vaultOf(owner.publicKey);
    expect(decoded.owner.equals(owner.publicKey)).toBe(true);
    expect(decoded.bump).toBe(bump);
    expect(decoded.lots).toEqual([{ amountLamports: amount, unlockAt: now() + LOCK }]);
    expect(lotTail(owner.publicKey, 1).equals(Buffer.alloc(31 * STAKE_LOT_SIZE))).toBe(true);
  });

  test("further stakes append lots in order; the owner pays amount + fee only", () => {
    const owner = fundedKeypair(h.svm);
    assertSuccess(stake(owner, 1_000n));
    const t0 = now();
    setUnixTimestamp(h.svm, t0 + 10n);
    const before = balance(owner.publicKey);
    assertSuccess(stake(owner, 2_000n));
    expect(before - balance(owner.publicKey)).toBe(2_000n + FEE);
    expect(vaultOf(owner.publicKey).lots).toEqual([
      { amountLamports: 1_000n, unlockAt: t0 + LOCK },
      { amountLamports: 2_000n, unlockAt: t0 + 10n + LOCK },
    ]);
    expect(balance(findVaultAddress(owner.publicKey, h.programId)[0])).toBe(vaultRent + 3_000n);
  });

  test("a zero amount is refused with ZeroAmount", () => {
    const owner = fundedKeypair(h.svm);
    expect(customErrorCode(stake(owner, 0n))).toBe(CommitmentErrorCode.ZeroAmount);
    expect(h.svm.getAccount(findVaultAddress(owner.publicKey, h.programId)[0])).toBeNull();
  });

  test("a second wallet cannot stake into another's vault (WrongOwner)", () => {
    const victim = fundedKeypair(h.svm);
    const intruder = fundedKeypair(h.svm);
    const [victimVault] = findVaultAddress(victim.publicKey, h.programId);
    const own = createStakeInstruction({
      programId: h.programId,
      owner: intruder.publicKey,
      amountLamports: 1_000n,
    });
    // Not yet created, then existing: both refused.
    expect(
      customErrorCode(send(h.svm, intruder, [withMeta(own, 1, { pubkey: victimVault })])),
    ).toBe(CommitmentErrorCode.WrongOwner);
    assertSuccess(stake(victim, 5_000n));
    const before = snapshot(h.svm, victimVault);
    expect(
      customErrorCode(send(h.svm, intruder, [withMeta(own, 1, { pubkey: victimVault })])),
    ).toBe(CommitmentErrorCode.WrongOwner);
    expect(snapshot(h.svm, victimVault)).toEqual(before);
  });

  test("an owner that does not sign is Unauthorized; wrong accounts are InvalidAccount", () => {
    const owner = fundedKeypair(h.svm);
    const payer = fundedKeypair(h.svm);
    const good = createStakeInstruction({
      programId: h.programId,
      owner: owner.publicKey,
      amountLamports: 1_000n,
    });
    expect(customErrorCode(send(h.svm, payer, [withMeta(good, 0, { isSigner: false })]))).toBe(
      CommitmentErrorCode.Unauthorized,
    );
    const { commitment } = initializeCommitment(h, payer);
    const invalid = [
      withMeta(good, 2, { pubkey: Keypair.generate().publicKey }), // not the config
      withMeta(good, 2, { pubkey: commitment }), // program-owned, not the config
      withMeta(good, 3, { pubkey: h.programId }), // not the system program
      withMeta(good, 1, { isWritable: false }),
    ];
    for (const ix of invalid) {
      expect(customErrorCode(send(h.svm, owner, [ix]))).toBe(CommitmentErrorCode.InvalidAccount);
    }
    expect(h.svm.getAccount(findVaultAddress(owner.publicKey, h.programId)[0])).toBeNull();
  });

  test("a pre-funded vault address is topped up to the rent minimum, then receives the lot", () => {
    const owner = fundedKeypair(h.svm);
    const [vault] = findVaultAddress(owner.publicKey, h.programId);
    const gift = 1_000_000n;
    assertSuccess(
      send(h.svm, owner, [
        SystemProgram.transfer({
          fromPubkey: owner.publicKey,
          toPubkey: vault,
          lamports: Number(gift),
        }),
      ]),
    );
    const before = balance(owner.publicKey);
    assertSuccess(stake(owner, 7_000n));
    expect(before - balance(owner.publicKey)).toBe(vaultRent - gift + 7_000n + FEE);
    expect(balance(vault)).toBe(vaultRent + 7_000n);
    expect(vaultOf(owner.publicKey).lots).toHaveLength(1);
  });

  test("an unlock time past i64::MAX is refused with ArithmeticOverflow", () => {
    const owner = fundedKeypair(h.svm);
    const saved = now();
    setUnixTimestamp(h.svm, I64_MAX - LOCK + 1n);
    expect(customErrorCode(stake(owner, 1_000n))).toBe(CommitmentErrorCode.ArithmeticOverflow);
    setUnixTimestamp(h.svm, I64_MAX - LOCK);
    assertSuccess(stake(owner, 1_000n));
    expect(vaultOf(owner.publicKey).lots).toEqual([{ amountLamports: 1_000n, unlockAt: I64_MAX }]);
    setUnixTimestamp(h.svm, saved);
  });

  test("a vault holds 32 lots; the 33rd is TooManyLots until an unstake frees room", () => {
    const owner = fundedKeypair(h.svm);
    const t0 = now();
    for (let i = 0; i < MAX_STAKE_LOTS; i++) {
      setUnixTimestamp(h.svm, t0 + BigInt(i));
      assertSuccess(stake(owner, BigInt(1_000 + i)));
    }
    expect(vaultOf(owner.publicKey).lots).toHaveLength(MAX_STAKE_LOTS);
    expect(customErrorCode(stake(owner, 1_000n))).toBe(CommitmentErrorCode.TooManyLots);

    // The first two lots mature: unstake pays them and two stakes fit again.
    setUnixTimestamp(h.svm, t0 + 1n + LOCK);
    assertSuccess(unstake(owner));
    const lots = vaultOf(owner.publicKey).lots;
    expect(lots).toHaveLength(MAX_STAKE_LOTS - 2);
    expect(lots[0]).toEqual({ amountLamports: 1_002n, unlockAt: t0 + 2n + LOCK });
    assertSuccess(stake(owner, 1n));
    assertSuccess(stake(owner, 2n));
    expect(customErrorCode(stake(owner, 3n))).toBe(CommitmentErrorCode.TooManyLots);
    setUnixTimestamp(h.svm, t0);
  });
});

describe("unstake", () => {
  test("before maturity it is refused with NothingMatured and changes nothing", () => {
    const owner = fundedKeypair(h.svm);
    assertSuccess(stake(owner, 10_000n));
    const { unlockAt } = vaultOf(owner.publicKey).lots[0] ?? { unlockAt: 0n };
    const vault = findVaultAddress(owner.publicKey, h.programId)[0];
    const before = snapshot(h.svm, vault);
    setUnixTimestamp(h.svm, unlockAt - 1n);
    expect(customErrorCode(unstake(owner))).toBe(CommitmentErrorCode.NothingMatured);
    expect(snapshot(h.svm, vault)).toEqual(before);
    setUnixTimestamp(h.svm, unlockAt - 1n - LOCK);
  });

  test("at maturity the lot is paid exactly; the empty vault keeps its rent-exempt minimum", () => {
    const owner = fundedKeypair(h.svm);
    const amount = 1_234_567_890n;
    assertSuccess(stake(owner, amount));
    const { unlockAt } = vaultOf(owner.publicKey).lots[0] ?? { unlockAt: 0n };
    setUnixTimestamp(h.svm, unlockAt);
    const before = balance(owner.publicKey);
    assertSuccess(unstake(owner));
    expect(balance(owner.publicKey) - before).toBe(amount - FEE);
    const vault = findVaultAddress(owner.publicKey, h.programId)[0];
    expect(balance(vault)).toBe(vaultRent);
    expect(vaultOf(owner.publicKey).lots).toEqual([]);
    expect(lotTail(owner.publicKey, 0).equals(Buffer.alloc(32 * STAKE_LOT_SIZE))).toBe(true);
    expect(customErrorCode(unstake(owner))).toBe(CommitmentErrorCode.NothingMatured);
    setUnixTimestamp(h.svm, unlockAt - LOCK);
  });

  test("partial maturity pays only matured lots and keeps the others in order", () => {
    const owner = fundedKeypair(h.svm);
    const base = now();
    // The clock may run backwards between stakes, so matured lots are not only a prefix.
    const stakes: [bigint, bigint][] = [
      [base + 10_000n, 1_000_000n], // A
      [base + 5_000n, 2_000_000n], // B
      [base + 20_000n, 3_000_000n], // C
      [base + 7_000n, 4_000_000n], // D
    ];
    for (const [at, amount] of stakes) {
      setUnixTimestamp(h.svm, at);
      assertSuccess(stake(owner, amount));
    }
    setUnixTimestamp(h.svm, base + 8_000n + LOCK);
    let before = balance(owner.publicKey);
    assertSuccess(unstake(owner));
    expect(balance(owner.publicKey) - before).toBe(2_000_000n + 4_000_000n - FEE);
    expect(vaultOf(owner.publicKey).lots).toEqual([
      { amountLamports: 1_000_000n, unlockAt: base + 10_000n + LOCK },
      { amountLamports: 3_000_000n, unlockAt: base + 20_000n + LOCK },
    ]);
    expect(lotTail(owner.publicKey, 2).equals(Buffer.alloc(30 * STAKE_LOT_SIZE))).toBe(true);
    const vault = findVaultAddress(owner.publicKey, h.programId)[0];
    expect(balance(vault)).toBe(vaultRent + 4_000_000n);

    setUnixTimestamp(h.svm, base + 20_000n + LOCK);
    before = balance(owner.publicKey);
    assertSuccess(unstake(owner));
    expect(balance(owner.publicKey) - before).toBe(4_000_000n - FEE);
    expect(balance(vault)).toBe(vaultRent);
    setUnixTimestamp(h.svm, base);
  });

  test("another wallet, including the config authority, cannot unstake a vault (WrongOwner)", () => {
    const owner = fundedKeypair(h.svm);
    assertSuccess(stake(owner, 50_000n));
    const [vault] = findVaultAddress(owner.publicKey, h.programId);
    const { unlockAt } = vaultOf(owner.publicKey).lots[0] ?? { unlockAt: 0n };
    setUnixTimestamp(h.svm, unlockAt + 1n);
    const before = snapshot(h.svm, vault);
    for (const thief of [fundedKeypair(h.svm), h.payer]) {
      const own = createUnstakeInstruction({ programId: h.programId, owner: thief.publicKey });
      const result = send(h.svm, thief, [withMeta(own, 1, { pubkey: vault })]);
      expect(customErrorCode(result)).toBe(CommitmentErrorCode.WrongOwner);
    }
    expect(snapshot(h.svm, vault)).toEqual(before);
    // A wallet without a vault gets InvalidAccount for its own; the owner still collects.
    expect(customErrorCode(unstake(fundedKeypair(h.svm)))).toBe(CommitmentErrorCode.InvalidAccount);
    assertSuccess(unstake(owner));
    setUnixTimestamp(h.svm, unlockAt - LOCK);
  });

  test("an owner that does not sign is Unauthorized; a read-only vault is InvalidAccount", () => {
    const owner = fundedKeypair(h.svm);
    assertSuccess(stake(owner, 1_000n));
    const good = createUnstakeInstruction({ programId: h.programId, owner: owner.publicKey });
    const payer = fundedKeypair(h.svm);
    expect(customErrorCode(send(h.svm, payer, [withMeta(good, 0, { isSigner: false })]))).toBe(
      CommitmentErrorCode.Unauthorized,
    );
    expect(customErrorCode(send(h.svm, owner, [withMeta(good, 1, { isWritable: false })]))).toBe(
      CommitmentErrorCode.InvalidAccount,
    );
  });

  test("matured amounts whose sum overflows u64 are refused with ArithmeticOverflow", () => {
    const owner = fundedKeypair(h.svm);
    assertSuccess(stake(owner, 1_000n));
    const [vault] = findVaultAddress(owner.publicKey, h.programId);
    const account = snapshot(h.svm, vault);
    // Forged state (unreachable through transactions): two matured lots of 2^63 lamports.
    const data = Buffer.from(account.data);
    data[STAKE_VAULT_LAYOUT.lotCount] = 2;
    for (const i of [0, 1]) {
      data.writeBigUInt64LE(1n << 63n, STAKE_VAULT_LAYOUT.lots + i * STAKE_LOT_SIZE);
      data.writeBigInt64LE(0n, STAKE_VAULT_LAYOUT.lots + i * STAKE_LOT_SIZE + 8);
    }
    h.svm.setAccount(vault, {
      lamports: account.lamports,
      data,
      owner: h.programId,
      executable: false,
    });
    expect(customErrorCode(unstake(owner))).toBe(CommitmentErrorCode.ArithmeticOverflow);
  });
});

describe("compute units", () => {
  test("each instruction stays under its ceiling", () => {
    const local = deployedHarness();
    const config = assertSuccess(
      send(local.svm, local.payer, [
        createInitializeStakeConfigInstruction({
          programId: local.programId,
          authority: local.payer.publicKey,
          lockPeriodSeconds: LOCK,
        }),
      ]),
    );
    // PDA searches start at bump 255; pick an owner whose vault bump is 255 (the common case).
    let owner = fundedKeypair(local.svm);
    while (findVaultAddress(owner.publicKey, local.programId)[1] !== 255) {
      owner = fundedKeypair(local.svm);
    }
    const first = assertSuccess(stake(owner, 1_000n, local));
    let next = first;
    for (let i = 1; i < MAX_STAKE_LOTS; i++) {
      next = assertSuccess(stake(owner, 1_000n, local));
    }
    setUnixTimestamp(local.svm, local.svm.getClock().unixTimestamp + LOCK);
    const unstakeAll = assertSuccess(
      send(local.svm, owner, [
        createUnstakeInstruction({ programId: local.programId, owner: owner.publicKey }),
      ]),
    );
    const units = {
      initializeStakeConfig: config.computeUnitsConsumed(),
      firstStake: first.computeUnitsConsumed(),
      stake: next.computeUnitsConsumed(),
      unstake32Lots: unstakeAll.computeUnitsConsumed(),
    };
    expect(units.initializeStakeConfig).toBeLessThan(10_000n);
    expect(units.firstStake).toBeLessThan(10_000n);
    expect(units.stake).toBeLessThan(8_000n);
    expect(units.unstake32Lots).toBeLessThan(5_000n);
  });
});

describe("decodeStakingInstruction", () => {
  const programId = new PublicKey("J51ibhpr3HHMXSvELsAC5jeB6R9ik3KR4fCYTEZdGYvz");
  const owner = Keypair.generate().publicKey;
  const stakeIx = createStakeInstruction({ programId, owner, amountLamports: 42n });
  const unstakeIx = createUnstakeInstruction({ programId, owner });

  test("round-trips the builders' stake and unstake instructions", () => {
    expect(decodeStakingInstruction(stakeIx, programId)).toEqual({
      kind: "stake",
      owner,
      amountLamports: 42n,
    });
    expect(decodeStakingInstruction(unstakeIx, programId)).toEqual({ kind: "unstake", owner });
  });

  test("rejects tampered instructions", () => {
    const otherVault = findVaultAddress(Keypair.generate().publicKey, programId)[0];
    const tampered = [
      withMeta(stakeIx, 1, { pubkey: otherVault }),
      withMeta(unstakeIx, 1, { pubkey: otherVault }),
      withMeta(stakeIx, 0, { isSigner: false }),
      withMeta(unstakeIx, 0, { isSigner: false }),
      withMeta(stakeIx, 2, { pubkey: findCommitmentAddress(owner, programId)[0] }),
      new TransactionInstruction({ ...stakeIx, programId: Keypair.generate().publicKey }),
      new TransactionInstruction({ ...unstakeIx, keys: [...unstakeIx.keys, ...unstakeIx.keys] }),
      new TransactionInstruction({ ...stakeIx, data: stakeIx.data.subarray(0, 15) }),
      new TransactionInstruction({ ...unstakeIx, keys: [] }),
      createInitializeStakeConfigInstruction({
        programId,
        authority: owner,
        lockPeriodSeconds: 1n,
      }),
    ];
    for (const ix of tampered) {
      expect(decodeStakingInstruction(ix, programId)).toBeNull();
    }
  });
});
