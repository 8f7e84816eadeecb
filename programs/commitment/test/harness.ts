/**
 * Test harness: a litesvm instance with the committed commitment program deployed through the
 * real BPF Upgradeable Loader, plus helpers to send transactions, read custom error codes,
 * configure staking and move the cluster clock.
 * Source: litesvm 0.8 API (web3.js v1 types).
 * @module
 */

import { Keypair, PublicKey, Transaction, type TransactionInstruction } from "@solana/web3.js";
import { FailedTransactionMetadata, LiteSVM, type TransactionMetadata } from "litesvm";
import { deployCommitmentProgram } from "../src/deploy.js";
import { createInitializeInstruction, findCommitmentAddress } from "../src/layout.js";
import { LOCAL_PROGRAM_ID } from "../src/program.js";
import { createInitializeStakeConfigInstruction } from "../src/stake.js";

export type SendResult = TransactionMetadata | FailedTransactionMetadata;

export interface Harness {
  readonly svm: LiteSVM;
  readonly programId: PublicKey;
  /** Funded fee payer, also the upgrade authority of the program. */
  readonly payer: Keypair;
}

/** 100 SOL in lamports. */
export const FUNDING = 100_000_000_000n;

/** A fresh litesvm with the program deployed at LOCAL_PROGRAM_ID by the real loader. */
export function deployedHarness(): Harness {
  const svm = new LiteSVM();
  const payer = Keypair.generate();
  svm.airdrop(payer.publicKey, FUNDING);
  const programId = new PublicKey(LOCAL_PROGRAM_ID);
  deployCommitmentProgram(svm, programId, payer);
  return { svm, programId, payer };
}

/** A new funded keypair. */
export function fundedKeypair(svm: LiteSVM): Keypair {
  const keypair = Keypair.generate();
  svm.airdrop(keypair.publicKey, FUNDING);
  return keypair;
}

/** Signs `instructions` with `feePayer` (+ `signers`) and sends them; never throws on failure. */
export function send(
  svm: LiteSVM,
  feePayer: Keypair,
  instructions: readonly TransactionInstruction[],
  signers: readonly Keypair[] = [],
): SendResult {
  const tx = new Transaction();
  tx.feePayer = feePayer.publicKey;
  tx.recentBlockhash = svm.latestBlockhash();
  tx.add(...instructions);
  tx.sign(feePayer, ...signers);
  const result = svm.sendTransaction(tx);
  svm.expireBlockhash();
  return result;
}

/** The Custom(n) code of a failed instruction, or null (success or another kind of error). */
export function customErrorCode(result: SendResult): number | null {
  if (!(result instanceof FailedTransactionMetadata)) {
    return null;
  }
  const err = result.err();
  if (typeof err !== "object" || !("err" in err)) {
    return null;
  }
  const inner = err.err();
  return typeof inner === "object" && "code" in inner ? inner.code : null;
}

/** Throws with the logs when `result` is a failure. */
export function assertSuccess(result: SendResult): TransactionMetadata {
  if (result instanceof FailedTransactionMetadata) {
    throw new Error(`transaction failed: ${result.toString()}\n${result.meta().logs().join("\n")}`);
  }
  return result;
}

/** Initializes the commitment of a fresh owner with `authority`; returns owner and PDA. */
export function initializeCommitment(
  harness: Harness,
  authority: Keypair,
  owner: PublicKey = Keypair.generate().publicKey,
): { owner: PublicKey; commitment: PublicKey; bump: number } {
  const [commitment, bump] = findCommitmentAddress(owner, harness.programId);
  assertSuccess(
    send(harness.svm, authority, [
      createInitializeInstruction({
        programId: harness.programId,
        authority: authority.publicKey,
        owner,
      }),
    ]),
  );
  return { owner, commitment, bump };
}

/** Raw account data bytes and lamports, for before/after comparisons. */
export function snapshot(svm: LiteSVM, address: PublicKey): { data: Buffer; lamports: number } {
  const account = svm.getAccount(address);
  if (account === null) {
    throw new Error(`no account at ${address.toBase58()}`);
  }
  return { data: Buffer.from(account.data), lamports: account.lamports };
}

/** Initializes the stake configuration with the upgrade authority (the harness payer). */
export function initializeStakeConfig(harness: Harness, lockPeriodSeconds: bigint): void {
  assertSuccess(
    send(harness.svm, harness.payer, [
      createInitializeStakeConfigInstruction({
        programId: harness.programId,
        authority: harness.payer.publicKey,
        lockPeriodSeconds,
      }),
    ]),
  );
}

/** Sets the clock sysvar's unix_timestamp (seconds), leaving slot and epoch as they are. */
export function setUnixTimestamp(svm: LiteSVM, unixTimestamp: bigint): void {
  const clock = svm.getClock();
  clock.unixTimestamp = unixTimestamp;
  svm.setClock(clock);
}
