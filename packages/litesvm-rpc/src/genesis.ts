/**
 * How a local chain comes to be at each start: a fresh litesvm (its own signature and blockhash
 * checks off: the bank applies them) with the commitment program deployed through the real BPF
 * Upgradeable Loader by a throw-away deployer, the latest persisted state of every account
 * restored from the ledger, on a new chain the program's stake configuration created by that
 * deployer (the upgrade authority), and, when the deployment names one, the anchor configuration
 * pointing at its anchor authority.
 * Source: docs/protocol.md §7 (embedded default chain), §7.1 "The commitment account" (the
 * anchor configuration), §11 (the stake configuration).
 * @module
 */

import { Keypair, PublicKey, Transaction } from "@solana/web3.js";
import {
  createInitializeStakeConfigInstruction,
  createSetAnchorConfigInstruction,
  decodeAnchorConfig,
  findAnchorConfigAddress,
  findStakeConfigAddress,
} from "@verifiable-memory/commitment-program";
import { deployCommitmentProgram } from "@verifiable-memory/commitment-program/deploy";
import { LiteSVM } from "litesvm";
import type { Bank } from "./bank.js";
import type { LedgerEntry, StoredAccount } from "./ledger.js";
import { MAX_PROCESSING_AGE, type SlotClock } from "./slot-clock.js";

/** Default stake lock period of a new local chain, seconds (7 days). */
export const DEFAULT_STAKE_LOCK_SECONDS = 604_800;
/** Lamports given to the throw-away payer of the program deployment. */
const DEPLOYER_FUNDING = 10_000_000_000n;

/** A virtual machine with the commitment program deployed. */
export interface DeployedVm {
  readonly svm: LiteSVM;
  /** The deployer: the program's upgrade authority for this start. */
  readonly deployer: Keypair;
  /** Accounts the deployment owns (program, program data, deployer): never restored. */
  readonly reserved: ReadonlySet<string>;
}

/**
 * A fresh litesvm with the commitment program deployed at `programKey` through the upgradeable
 * loader, paid by a new funded deployer.
 * @throws ProgramDeployError if the program does not deploy.
 */
export function deployProgram(programKey: PublicKey): DeployedVm {
  const svm = new LiteSVM().withSigverify(false).withBlockhashCheck(false);
  const deployer = Keypair.generate();
  svm.airdrop(deployer.publicKey, DEPLOYER_FUNDING);
  const deployed = deployCommitmentProgram(svm, programKey, deployer);
  return {
    svm,
    deployer,
    reserved: new Set([
      programKey.toBase58(),
      deployed.programDataAddress.toBase58(),
      deployer.publicKey.toBase58(),
    ]),
  };
}

/**
 * Sets every account to its latest state in `entries` (oldest first), leaving out the
 * deployment's own accounts, executables and closed accounts.
 * @returns the slot of the last persisted transaction (0 for none).
 */
export function restoreAccounts(vm: DeployedVm, entries: readonly LedgerEntry[]): number {
  const latest = new Map<string, StoredAccount>();
  let lastSlot = 0;
  for (const entry of entries) {
    lastSlot = Math.max(lastSlot, entry.slot);
    for (const account of entry.accounts) {
      latest.set(account.address, account);
    }
  }
  for (const account of latest.values()) {
    if (vm.reserved.has(account.address) || account.executable) {
      continue;
    }
    if (account.lamports === 0 && account.data.length === 0) {
      continue;
    }
    vm.svm.setAccount(new PublicKey(account.address), {
      lamports: account.lamports,
      data: Buffer.from(account.data, "base64"),
      owner: new PublicKey(account.owner),
      executable: false,
      rentEpoch: Number.isSafeInteger(account.rentEpoch) ? account.rentEpoch : 0,
    });
  }
  return lastSlot;
}

/**
 * Creates the program's stake configuration on a new chain: `initialize_stake_config` signed
 * by this start's deployer (the upgrade authority), executed and persisted like any
 * transaction. A chain that already has one keeps it (the lock period is set once).
 * @throws RangeError for a lock period the program refuses; RpcError if it fails to land.
 */
export async function ensureStakeConfig(
  chain: { readonly bank: Bank; readonly clock: SlotClock },
  programKey: PublicKey,
  deployer: Keypair,
  lockSeconds: number,
): Promise<void> {
  const { bank, clock } = chain;
  if (bank.getAccount(findStakeConfigAddress(programKey)[0])) {
    return;
  }
  const tx = new Transaction({
    feePayer: deployer.publicKey,
    blockhash: clock.blockhash,
    lastValidBlockHeight: clock.slot + MAX_PROCESSING_AGE,
  }).add(
    createInitializeStakeConfigInstruction({
      programId: programKey,
      authority: deployer.publicKey,
      lockPeriodSeconds: BigInt(lockSeconds),
    }),
  );
  tx.sign(deployer);
  const executed = await bank.execute(bank.parse(tx.serialize()));
  if (!executed.landed || executed.entry.err !== null) {
    const reason = executed.landed ? JSON.stringify(executed.entry.err) : executed.error.display;
    throw new RangeError(`initialize_stake_config(${lockSeconds}) failed: ${reason}`);
  }
}

/**
 * Makes the program's anchor configuration name `anchorAuthority` (base58): `set_anchor_config`
 * signed by this start's deployer (the upgrade authority), executed and persisted like any
 * transaction, unless the restored configuration already names it.
 * @throws TypeError for a malformed key; RangeError if the transaction fails to land.
 */
export async function ensureAnchorConfig(
  chain: { readonly bank: Bank; readonly clock: SlotClock },
  programKey: PublicKey,
  deployer: Keypair,
  anchorAuthority: string,
): Promise<void> {
  let anchorKey: PublicKey;
  try {
    anchorKey = new PublicKey(anchorAuthority);
  } catch {
    throw new TypeError(`anchorAuthority must be a base58 public key, got ${anchorAuthority}`);
  }
  const { bank, clock } = chain;
  const current = bank.getAccount(findAnchorConfigAddress(programKey)[0]);
  if (current && decodeAnchorConfig(current.data).anchorAuthority.equals(anchorKey)) {
    return;
  }
  const tx = new Transaction({
    feePayer: deployer.publicKey,
    blockhash: clock.blockhash,
    lastValidBlockHeight: clock.slot + MAX_PROCESSING_AGE,
  }).add(
    createSetAnchorConfigInstruction({
      programId: programKey,
      upgradeAuthority: deployer.publicKey,
      anchorAuthority: anchorKey,
    }),
  );
  tx.sign(deployer);
  const executed = await bank.execute(bank.parse(tx.serialize()));
  if (!executed.landed || executed.entry.err !== null) {
    const reason = executed.landed ? JSON.stringify(executed.entry.err) : executed.error.display;
    throw new RangeError(`set_anchor_config(${anchorAuthority}) failed: ${reason}`);
  }
}
