/**
 * A local chain: one litesvm, one ledger, put together from the three parts that run it: the
 * genesis of each start (genesis.ts: the program deployed through the real BPF Upgradeable
 * Loader, the persisted accounts restored, the stake configuration), the slot clock
 * (slot-clock.ts: wall-clock slots of 400 ms, a blockhash per slot valid for 150 slots, the
 * Clock sysvar and the clock warp) and the bank (bank.ts: signature and blockhash checks,
 * preflight, execution, durable persistence, simulation, the faucet). The JSON-RPC and PubSub
 * servers talk to this facade.
 * Source: docs/protocol.md §7 (embedded default chain).
 * @module
 */

import { join } from "node:path";
import { type AccountInfo, PublicKey, type VersionedMessage } from "@solana/web3.js";
import { Bank, type SimulationValue } from "./bank.js";
import { loadClockOffset } from "./clock-offset.js";
import {
  DEFAULT_STAKE_LOCK_SECONDS,
  deployProgram,
  ensureAnchorConfig,
  ensureStakeConfig,
  restoreAccounts,
} from "./genesis.js";
import { type Genesis, Ledger, type LedgerEntry, loadOrCreateGenesis } from "./ledger.js";
import { assertWarpSeconds, type EpochScheduleInfo, epochOf, SlotClock } from "./slot-clock.js";

/** Options of {@link Chain.open}. */
export interface ChainOptions {
  /** Service data directory; the chain lives in `<dataDir>/chain`. */
  readonly dataDir: string;
  /** Program id (base58) to deploy the commitment program at. */
  readonly programId: string;
  /** Wall clock in Unix milliseconds; default `Date.now`. */
  readonly now?: () => number;
  /**
   * Lock period written into the stake configuration when the chain is created (seconds,
   * default {@link DEFAULT_STAKE_LOCK_SECONDS}); an existing chain keeps the one it has.
   */
  readonly stakeLockSeconds?: number;
  /**
   * The anchor authority (base58) the program's anchor configuration names after this start
   * (set by this start's deployer, the upgrade authority); default none (`initialize` open).
   */
  readonly anchorAuthority?: string;
}

/** Epoch position of a slot (getEpochInfo). */
export interface EpochInfo {
  readonly absoluteSlot: number;
  readonly blockHeight: number;
  readonly epoch: number;
  readonly slotIndex: number;
  readonly slotsInEpoch: number;
  readonly transactionCount: number;
}

/** A running local chain (one litesvm, one ledger). Not safe to open twice on one dataDir. */
export class Chain {
  private constructor(
    readonly genesis: Genesis,
    readonly clock: SlotClock,
    readonly bank: Bank,
  ) {}

  /**
   * Opens the chain stored in `<dataDir>/chain` (creating it on first use): deploys the
   * commitment program at `programId` through the upgradeable loader, loads the latest persisted
   * state of every account with `setAccount`, rebuilds the transaction index, and moves to the
   * wall-clock slot (never behind the last persisted transaction's slot). The program is always
   * the committed ELF, so an existing chain runs a new program version from its next start with
   * every account kept; with `anchorAuthority` the anchor configuration then names that key.
   * @throws TypeError if `programId` is not a base58 public key; LedgerCorruptError on a
   *   damaged ledger; ProgramDeployError if the program does not deploy.
   */
  static async open(options: ChainOptions): Promise<Chain> {
    let programKey: PublicKey;
    try {
      programKey = new PublicKey(options.programId);
    } catch {
      throw new TypeError(`programId must be a base58 public key, got ${options.programId}`);
    }
    const now = options.now ?? Date.now;
    const chainDir = join(options.dataDir, "chain");
    const { ledger, entries } = await Ledger.open(chainDir);
    try {
      const genesis = loadOrCreateGenesis(chainDir, programKey.toBase58(), now());
      const vm = deployProgram(programKey);
      const clock = new SlotClock({
        svm: vm.svm,
        genesisMs: genesis.createdAtMs,
        now,
        chainDir,
        offsetSeconds: loadClockOffset(chainDir),
      });
      const bank = new Bank(vm.svm, ledger, clock, entries);
      const lastSlot = restoreAccounts(vm, entries);
      clock.advanceTo(Math.max(lastSlot, clock.wallClockSlot()));
      const chain = new Chain(genesis, clock, bank);
      await ensureStakeConfig(
        chain,
        programKey,
        vm.deployer,
        options.stakeLockSeconds ?? DEFAULT_STAKE_LOCK_SECONDS,
      );
      if (options.anchorAuthority !== undefined) {
        await ensureAnchorConfig(chain, programKey, vm.deployer, options.anchorAuthority);
      }
      return chain;
    } catch (error) {
      await ledger.close();
      throw error;
    }
  }

  /** The epoch schedule sysvar (getEpochSchedule shape). */
  get epochSchedule(): EpochScheduleInfo {
    return this.clock.epochSchedule;
  }

  /** Seconds the chain's clock runs ahead of the wall clock (the sum of every warp). */
  get clockOffset(): number {
    return this.clock.clockOffset;
  }

  /**
   * Local-only: moves the chain's clock (Clock sysvar `unix_timestamp`, block times) forward by
   * `seconds`, durably, so time-locked state such as stake lots matures without waiting. Slots
   * keep following the wall clock. Real clusters have no equivalent.
   * @returns the chain's new Unix time, seconds.
   * @throws RangeError unless 1 ≤ seconds ≤ MAX_WARP_SECONDS (an integer); RpcError -32005
   *   once the chain is unhealthy.
   */
  warpClock(seconds: number): number {
    assertWarpSeconds(seconds);
    this.bank.assertAccepting();
    return this.clock.warp(seconds);
  }

  /**
   * Brings the slot (and clock sysvar, and latest blockhash) up to the wall clock.
   * @returns the current slot.
   */
  tick(): number {
    return this.clock.tick();
  }

  /** Current slot (also the block height: the local chain skips no slots). */
  get currentSlot(): number {
    return this.clock.slot;
  }

  /** Number of transactions executed since genesis (airdrops included). */
  get transactionCount(): number {
    return this.bank.transactionCount;
  }

  /** False once a ledger write failed: the chain then refuses transactions (NodeUnhealthy). */
  get healthy(): boolean {
    return this.bank.healthy;
  }

  /** The latest blockhash and the last block height at which it is accepted. */
  latestBlockhash(): { blockhash: string; lastValidBlockHeight: number } {
    return this.clock.latestBlockhash();
  }

  /** Whether `blockhash` was issued by this chain and has not expired. */
  isBlockhashValid(blockhash: string): boolean {
    return this.clock.isBlockhashValid(blockhash);
  }

  /** Current state of `address`, or null when no account exists there. */
  getAccount(address: PublicKey): AccountInfo<Uint8Array> | null {
    return this.bank.getAccount(address);
  }

  /** Lamports needed for an account of `dataLength` bytes to be rent exempt. */
  minimumBalanceForRentExemption(dataLength: number): number {
    return this.bank.minimumBalanceForRentExemption(dataLength);
  }

  /** Epoch position of the current slot. */
  epochInfo(): EpochInfo {
    const slot = this.clock.tick();
    return {
      absoluteSlot: slot,
      blockHeight: slot,
      ...epochOf(slot, this.clock.epochSchedule),
      transactionCount: this.bank.transactionCount,
    };
  }

  /** The stored executed transaction with first signature `signature`, if any. */
  entry(signature: string): LedgerEntry | undefined {
    return this.bank.entry(signature);
  }

  /** The fee `message` would pay, or null when its blockhash is unknown or expired. */
  feeForMessage(message: VersionedMessage): number | null {
    return this.bank.feeForMessage(message);
  }

  /** Calls `listener` with each transaction once it is durable. Returns the unsubscribe. */
  onTransaction(listener: (entry: LedgerEntry) => void): () => void {
    return this.bank.onTransaction(listener);
  }

  /** Calls `listener` with each new slot. Returns the unsubscribe. */
  onSlot(listener: (slot: number) => void): () => void {
    return this.clock.onSlot(listener);
  }

  /** `sendTransaction` (see {@link Bank.sendTransaction}). */
  sendTransaction(
    encoded: string,
    encoding: "base64" | "base58",
    skipPreflight: boolean,
  ): Promise<string> {
    return this.bank.sendTransaction(encoded, encoding, skipPreflight);
  }

  /** `simulateTransaction` (see {@link Bank.simulate}). */
  simulate(
    encoded: string,
    encoding: "base64" | "base58",
    sigVerify: boolean,
    replaceRecentBlockhash: boolean,
  ): SimulationValue {
    return this.bank.simulate(encoded, encoding, sigVerify, replaceRecentBlockhash);
  }

  /** `requestAirdrop` from the faucet (see {@link Bank.requestAirdrop}). */
  requestAirdrop(to: PublicKey, lamports: number): Promise<string> {
    return this.bank.requestAirdrop(to, lamports);
  }

  /** Stops accepting transactions and waits for the ledger to be flushed and closed. */
  async close(): Promise<void> {
    this.clock.clearListeners();
    await this.bank.close();
  }
}
