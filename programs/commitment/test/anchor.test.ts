/**
 * The hand-written IDL against the program: an @coral-xyz/anchor 0.32 `Program` built from it
 * produces the instructions the C program accepts (commitments and staking), its coder decodes
 * the accounts, its error table translates the program's custom errors, and every constant
 * matches the wire format.
 * Source: Anchor 0.30+ IDL spec; docs/protocol.md §7, §11 and §1.
 * @module
 */

import { createHash, randomBytes } from "node:crypto";
import { BN, type Idl, Program, type Provider, translateError } from "@coral-xyz/anchor";
import { Connection, Keypair, PublicKey } from "@solana/web3.js";
import { FailedTransactionMetadata } from "litesvm";
import { beforeAll, describe, expect, test } from "vitest";
import {
  ANCHOR_CONFIG_ACCOUNT_DISCRIMINATOR,
  COMMIT_DISCRIMINATOR,
  COMMIT_MANY_DISCRIMINATOR,
  COMMITMENT_ACCOUNT_DISCRIMINATOR,
  COMMITMENT_ACCOUNT_SIZE,
  CommitmentErrorCode,
  commitmentIdl,
  createCommitInstruction,
  createInitializeInstruction,
  createInitializeStakeConfigInstruction,
  createStakeInstruction,
  createUnstakeInstruction,
  decodeCommitment,
  decodeStakeVault,
  findCommitmentAddress,
  findProgramDataAddress,
  findVaultAddress,
  INITIALIZE_DISCRIMINATOR,
  INITIALIZE_STAKE_CONFIG_DISCRIMINATOR,
  idlFor,
  LOCAL_PROGRAM_ID,
  MAX_STAKE_LOTS,
  SET_ANCHOR_CONFIG_DISCRIMINATOR,
  SET_AUTHORITY_DISCRIMINATOR,
  STAKE_CONFIG_ACCOUNT_DISCRIMINATOR,
  STAKE_CONFIG_ACCOUNT_SIZE,
  STAKE_DISCRIMINATOR,
  STAKE_VAULT_ACCOUNT_DISCRIMINATOR,
  STAKE_VAULT_ACCOUNT_SIZE,
  SWEEP_VAULT_DISCRIMINATOR,
  UNSTAKE_DISCRIMINATOR,
} from "../src/index.js";
import {
  assertSuccess,
  customErrorCode,
  deployedHarness,
  fundedKeypair,
  type Harness,
  type SendResult,
  send,
  setUnixTimestamp,
} from "./harness.js";

function sha256Prefix(preimage: string): number[] {
  return [...createHash("sha256").update(preimage).digest().subarray(0, 8)];
}

describe("IDL constants", () => {
  test("discriminators are the Anchor sha256 prefixes, in the IDL and the exports", () => {
    expect([...INITIALIZE_DISCRIMINATOR]).toEqual(sha256Prefix("global:initialize"));
    expect([...COMMIT_DISCRIMINATOR]).toEqual(sha256Prefix("global:commit"));
    expect([...COMMITMENT_ACCOUNT_DISCRIMINATOR]).toEqual(sha256Prefix("account:Commitment"));
    expect([...INITIALIZE_STAKE_CONFIG_DISCRIMINATOR]).toEqual(
      sha256Prefix("global:initialize_stake_config"),
    );
    expect([...STAKE_DISCRIMINATOR]).toEqual(sha256Prefix("global:stake"));
    expect([...UNSTAKE_DISCRIMINATOR]).toEqual(sha256Prefix("global:unstake"));
    expect([...STAKE_CONFIG_ACCOUNT_DISCRIMINATOR]).toEqual(sha256Prefix("account:StakeConfig"));
    expect([...STAKE_VAULT_ACCOUNT_DISCRIMINATOR]).toEqual(sha256Prefix("account:StakeVault"));
    const byName = new Map(commitmentIdl.instructions.map((ix) => [ix.name, ix.discriminator]));
    expect(Object.fromEntries(byName)).toEqual({
      initialize: sha256Prefix("global:initialize"),
      commit: sha256Prefix("global:commit"),
      initialize_stake_config: sha256Prefix("global:initialize_stake_config"),
      stake: sha256Prefix("global:stake"),
      unstake: sha256Prefix("global:unstake"),
      commit_many: sha256Prefix("global:commit_many"),
      set_anchor_config: sha256Prefix("global:set_anchor_config"),
      set_authority: sha256Prefix("global:set_authority"),
      sweep_vault: sha256Prefix("global:sweep_vault"),
      initialize_checkpoint_log: sha256Prefix("global:initialize_checkpoint_log"),
      commit_checkpoint_log: sha256Prefix("global:commit_checkpoint_log"),
    });
    expect([...COMMIT_MANY_DISCRIMINATOR]).toEqual(sha256Prefix("global:commit_many"));
    expect([...SET_ANCHOR_CONFIG_DISCRIMINATOR]).toEqual(sha256Prefix("global:set_anchor_config"));
    expect([...SET_AUTHORITY_DISCRIMINATOR]).toEqual(sha256Prefix("global:set_authority"));
    expect([...SWEEP_VAULT_DISCRIMINATOR]).toEqual(sha256Prefix("global:sweep_vault"));
    expect([...ANCHOR_CONFIG_ACCOUNT_DISCRIMINATOR]).toEqual(sha256Prefix("account:AnchorConfig"));
    expect(commitmentIdl.accounts).toEqual([
      { name: "AnchorConfig", discriminator: sha256Prefix("account:AnchorConfig") },
      { name: "CheckpointLog", discriminator: sha256Prefix("account:CheckpointLog") },
      { name: "Commitment", discriminator: sha256Prefix("account:Commitment") },
      { name: "StakeConfig", discriminator: sha256Prefix("account:StakeConfig") },
      { name: "StakeVault", discriminator: sha256Prefix("account:StakeVault") },
    ]);
  });

  test("IDL errors are exactly CommitmentErrorCode, each with a message", () => {
    const errors = commitmentIdl.errors ?? [];
    expect(Object.fromEntries(errors.map((e) => [e.name, e.code]))).toEqual(CommitmentErrorCode);
    for (const error of errors) {
      expect(error.msg?.length ?? 0).toBeGreaterThan(0);
    }
  });

  test("the Commitment type encodes to COMMITMENT_ACCOUNT_SIZE bytes", () => {
    const program = new Program(commitmentIdl, offlineProvider());
    const encoded = program.coder.types.encode("commitment", {
      authority: PublicKey.default,
      owner: PublicKey.default,
      root: new Array(32).fill(0),
      memoryCount: new BN(0),
      nonce: new BN(0),
      bump: 0,
    });
    expect(8 + encoded.length).toBe(COMMITMENT_ACCOUNT_SIZE);
  });

  test("the StakeConfig and StakeVault types encode to the account sizes", () => {
    const program = new Program(commitmentIdl, offlineProvider());
    const config = program.coder.types.encode("stakeConfig", {
      authority: PublicKey.default,
      lockPeriodSeconds: new BN(0),
      bump: 0,
    });
    expect(8 + config.length).toBe(STAKE_CONFIG_ACCOUNT_SIZE);
    const vault = program.coder.types.encode("stakeVault", {
      owner: PublicKey.default,
      bump: 0,
      lotCount: 0,
      padding: new Array(6).fill(0),
      lots: Array.from({ length: MAX_STAKE_LOTS }, () => ({
        amount: new BN(0),
        unlockAt: new BN(0),
      })),
    });
    expect(8 + vault.length).toBe(STAKE_VAULT_ACCOUNT_SIZE);
  });

  test("idlFor returns a copy with another address and leaves the original alone", () => {
    const other = Keypair.generate().publicKey.toBase58();
    const copy = idlFor(other);
    expect(copy.address).toBe(other);
    expect(commitmentIdl.address).toBe(LOCAL_PROGRAM_ID);
    expect(copy.instructions).toEqual(commitmentIdl.instructions);
    expect(copy.instructions).not.toBe(commitmentIdl.instructions);
    expect(() => idlFor("not-a-key")).toThrow(TypeError);
  });
});

/** An untyped Anchor method builder (the IDL is loaded from JSON, so names are strings). */
type MethodBuilder = NonNullable<Program<Idl>["methods"][string]>;

/** A provider that never talks to a network: enough to build instructions and decode. */
function offlineProvider(publicKey?: PublicKey): Provider {
  return { connection: new Connection("http://127.0.0.1:9"), publicKey };
}

describe("Anchor client on the deployed program", () => {
  let h: Harness;
  let authority: Keypair;
  let program: Program<Idl>;
  let methods: {
    initialize: MethodBuilder;
    commit: MethodBuilder;
    initializeStakeConfig: MethodBuilder;
    stake: MethodBuilder;
    unstake: MethodBuilder;
  };

  beforeAll(() => {
    h = deployedHarness();
    authority = fundedKeypair(h.svm);
    program = new Program(idlFor(h.programId.toBase58()), offlineProvider(authority.publicKey));
    const { initialize, commit, initializeStakeConfig, stake, unstake } = program.methods;
    if (!initialize || !commit || !initializeStakeConfig || !stake || !unstake) {
      throw new Error(
        "the IDL must define initialize, commit, initializeStakeConfig, stake, unstake",
      );
    }
    methods = { initialize, commit, initializeStakeConfig, stake, unstake };
  });

  /** Anchor's ProgramError for a failed transaction, through the IDL's error table. */
  function translated(result: SendResult): { code: number; msg: string } {
    const logs = result instanceof FailedTransactionMetadata ? result.meta().logs() : [];
    const failure = new Error(logs.find((line) => line.includes("custom program error")));
    const idlErrors = new Map((program.idl.errors ?? []).map((e) => [e.code, e.msg ?? ""]));
    return translateError(Object.assign(failure, { logs }), idlErrors);
  }

  test("initialize and commit built by Anchor run, and the coder decodes the account", async () => {
    const owner = Keypair.generate().publicKey;
    const [commitment, bump] = findCommitmentAddress(owner, h.programId);

    const initIx = await methods
      .initialize(owner)
      .accounts({ authority: authority.publicKey })
      .instruction();
    expect(initIx).toEqual(
      createInitializeInstruction({
        programId: h.programId,
        authority: authority.publicKey,
        owner,
      }),
    );
    assertSuccess(send(h.svm, authority, [initIx]));

    const root = randomBytes(32);
    const commitIx = await methods
      .commit([...root], new BN(7), new BN(0))
      .accounts({ authority: authority.publicKey, commitment })
      .instruction();
    expect(commitIx).toEqual(
      createCommitInstruction({
        programId: h.programId,
        authority: authority.publicKey,
        owner,
        root,
        memoryCount: 7n,
        expectedNonce: 0n,
      }),
    );
    assertSuccess(send(h.svm, authority, [commitIx]));

    const data = Buffer.from(h.svm.getAccount(commitment)?.data ?? []);
    const decoded = program.coder.accounts.decode("commitment", data);
    expect(decoded.authority.equals(authority.publicKey)).toBe(true);
    expect(decoded.owner.equals(owner)).toBe(true);
    expect(Buffer.from(decoded.root).equals(root)).toBe(true);
    expect(decoded.memoryCount.toString()).toBe("7");
    expect(decoded.nonce.toString()).toBe("1");
    expect(decoded.bump).toBe(bump);
    expect(decodeCommitment(data).nonce).toBe(1n);
  });

  test("translateError maps a failed commit to the IDL's ProgramError", async () => {
    const owner = Keypair.generate().publicKey;
    const [commitment] = findCommitmentAddress(owner, h.programId);
    assertSuccess(
      send(h.svm, authority, [
        await methods.initialize(owner).accounts({ authority: authority.publicKey }).instruction(),
      ]),
    );
    const stale = await methods
      .commit(new Array(32).fill(0), new BN(0), new BN(5))
      .accounts({ authority: authority.publicKey, commitment })
      .instruction();
    const result = send(h.svm, authority, [stale]);
    expect(result).toBeInstanceOf(FailedTransactionMetadata);
    expect(customErrorCode(result)).toBe(CommitmentErrorCode.NonceMismatch);
    const error = translated(result);
    expect(error.code).toBe(6002);
    expect(error.msg).toBe("expected_nonce does not match the stored nonce");
  });

  test("staking built by Anchor runs, the coder decodes the vault, errors translate", async () => {
    const lockPeriodSeconds = 60n;
    const configIx = await methods
      .initializeStakeConfig(new BN(lockPeriodSeconds.toString()))
      .accounts({ authority: h.payer.publicKey, programData: findProgramDataAddress(h.programId) })
      .instruction();
    expect(configIx).toEqual(
      createInitializeStakeConfigInstruction({
        programId: h.programId,
        authority: h.payer.publicKey,
        lockPeriodSeconds,
      }),
    );
    assertSuccess(send(h.svm, h.payer, [configIx]));

    const amount = 900_000n;
    const stakeIx = await methods
      .stake(new BN(amount.toString()))
      .accounts({ owner: authority.publicKey })
      .instruction();
    expect(stakeIx).toEqual(
      createStakeInstruction({
        programId: h.programId,
        owner: authority.publicKey,
        amountLamports: amount,
      }),
    );
    assertSuccess(send(h.svm, authority, [stakeIx]));

    const [vault, bump] = findVaultAddress(authority.publicKey, h.programId);
    const data = Buffer.from(h.svm.getAccount(vault)?.data ?? []);
    const decoded = program.coder.accounts.decode("stakeVault", data);
    const unlockAt = h.svm.getClock().unixTimestamp + lockPeriodSeconds;
    expect(decoded.owner.equals(authority.publicKey)).toBe(true);
    expect(decoded.bump).toBe(bump);
    expect(decoded.lotCount).toBe(1);
    expect(decoded.lots).toHaveLength(MAX_STAKE_LOTS);
    expect(decoded.lots[0].amount.toString()).toBe(amount.toString());
    expect(decoded.lots[0].unlockAt.toString()).toBe(unlockAt.toString());
    expect(decoded.lots[1].amount.toString()).toBe("0");
    expect(decodeStakeVault(data).lots).toEqual([{ amountLamports: amount, unlockAt }]);

    const unstakeIx = await methods
      .unstake()
      .accounts({ owner: authority.publicKey })
      .instruction();
    expect(unstakeIx).toEqual(
      createUnstakeInstruction({ programId: h.programId, owner: authority.publicKey }),
    );
    const early = send(h.svm, authority, [unstakeIx]);
    expect(customErrorCode(early)).toBe(CommitmentErrorCode.NothingMatured);
    expect(translated(early)).toMatchObject({ code: 6009, msg: "no stake lot has matured yet" });

    setUnixTimestamp(h.svm, unlockAt);
    assertSuccess(send(h.svm, authority, [unstakeIx]));
    const emptied = program.coder.accounts.decode(
      "stakeVault",
      Buffer.from(h.svm.getAccount(vault)?.data ?? []),
    );
    expect(emptied.lotCount).toBe(0);
  });
});
