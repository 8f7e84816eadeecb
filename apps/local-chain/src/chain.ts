/**
 * The local chain's state machine: litesvm 0.8.0 with the commitment program deployed through
 * the real BPF Upgradeable Loader, wall-clock slots (400 ms) with a fresh blockhash per slot valid
 * for 150 slots, node:crypto signature verification (litesvm runs with sigverify and its own
 * blockhash check off; this module applies both checks as a cluster's RPC node and bank do),
 * preflight simulation, a faucet for airdrops, and durable persistence through the ledger.
 * Source: docs/protocol.md §7 (embedded default chain); agave `rpc.rs` (`send_transaction`,
 * `simulate_transaction`), `MAX_PROCESSING_AGE` = 150, `DEFAULT_MS_PER_SLOT` = 400.
 * @module
 */

import { createHash, createPrivateKey, randomBytes, sign } from "node:crypto";
import { join } from "node:path";
import {
  type AccountInfo,
  Keypair,
  PublicKey,
  SystemProgram,
  Transaction,
  type VersionedMessage,
} from "@solana/web3.js";
import {
  createInitializeStakeConfigInstruction,
  findStakeConfigAddress,
} from "@verifiable-memory/commitment-program";
import { deployCommitmentProgram } from "@verifiable-memory/commitment-program/deploy";
import bs58 from "bs58";
import { Clock, FailedTransactionMetadata, LiteSVM, type TransactionMetadata } from "litesvm";
import { loadClockOffset, saveClockOffset } from "./clock-offset.js";
import {
  type Genesis,
  Ledger,
  type LedgerEntry,
  LedgerWriteError,
  loadOrCreateGenesis,
  type StoredAccount,
} from "./ledger.js";
import { invalidParams, preflightFailure, RpcError, RpcErrorCode } from "./rpc-error.js";
import { type ClusterTransactionError, fieldlessError, toClusterError } from "./tx-error.js";
import {
  decodeWire,
  MalformedTransactionError,
  messageFee,
  parseWire,
  verifySignatures,
  type WireTransaction,
} from "./wire.js";

/** Milliseconds per slot (agave DEFAULT_MS_PER_SLOT). */
export const SLOT_MS = 400;
/** Slots a blockhash stays valid (agave MAX_PROCESSING_AGE). */
export const MAX_PROCESSING_AGE = 150;
/** The faucet behind `requestAirdrop`: a fixed, publicly derivable local-only keypair. */
const FAUCET_KEYPAIR = Keypair.fromSeed(
  createHash("sha256").update("@verifiable-memory/local-chain faucet").digest(),
);
/** The faucet's key for node:crypto (web3.js signs in JavaScript, ~100× slower). */
const FAUCET_SIGNING_KEY = createPrivateKey({
  key: {
    kty: "OKP",
    crv: "Ed25519",
    d: Buffer.from(FAUCET_KEYPAIR.secretKey.subarray(0, 32)).toString("base64url"),
    x: FAUCET_KEYPAIR.publicKey.toBuffer().toString("base64url"),
  },
  format: "jwk",
});
/** Lamports the faucet is topped up to when it runs low (1 000 000 SOL). */
const FAUCET_FLOAT = 1_000_000_000_000_000;
/** Lamports given to the throw-away payer of the program deployment. */
const DEPLOYER_FUNDING = 10_000_000_000n;
/** Default stake lock period of a new local chain, seconds (7 days). */
export const DEFAULT_STAKE_LOCK_SECONDS = 604_800;
/** Largest single clock warp, seconds (10 × 365 days). */
export const MAX_WARP_SECONDS = 315_360_000;

const SYSVAR_OWNER = "Sysvar1111111111111111111111111111111111111";
/** Owners whose accounts are runtime-managed and never persisted (sysvars, loaders). */
const UNPERSISTED_OWNERS = new Set([
  SYSVAR_OWNER,
  "NativeLoader1111111111111111111111111111111",
  "BPFLoader1111111111111111111111111111111111",
  "BPFLoader2111111111111111111111111111111111",
  "BPFLoaderUpgradeab1e11111111111111111111111",
  "LoaderV411111111111111111111111111111111111",
]);

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
}

/** Result of {@link Chain.simulate}, in `simulateTransaction`'s `value` shape. */
export interface SimulationValue {
  readonly err: unknown;
  readonly logs: readonly string[];
  readonly accounts: null;
  readonly unitsConsumed: number;
  readonly returnData: { programId: string; data: [string, "base64"] } | null;
  readonly innerInstructions: null;
  readonly replacementBlockhash: { blockhash: string; lastValidBlockHeight: number } | null;
}

/** The epoch schedule (getEpochSchedule). */
export interface EpochScheduleInfo {
  readonly slotsPerEpoch: number;
  readonly leaderScheduleSlotOffset: number;
  readonly warmup: boolean;
  readonly firstNormalEpoch: number;
  readonly firstNormalSlot: number;
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

type Executed =
  | { readonly landed: true; readonly entry: LedgerEntry }
  | {
      readonly landed: false;
      readonly error: ClusterTransactionError;
      readonly meta: TransactionMetadata;
    };

function storedAccount(address: string, account: AccountInfo<Uint8Array> | null): StoredAccount {
  if (!account) {
    return {
      address,
      lamports: 0,
      owner: SystemProgram.programId.toBase58(),
      executable: false,
      rentEpoch: 0,
      data: "",
    };
  }
  return {
    address,
    lamports: account.lamports,
    owner: account.owner.toBase58(),
    executable: account.executable,
    rentEpoch: account.rentEpoch ?? 0,
    data: Buffer.from(account.data).toString("base64"),
  };
}

/** Epoch and index of `slot` under an epoch schedule with optional warmup (agave EpochSchedule). */
function epochOf(
  slot: number,
  schedule: EpochScheduleInfo,
): { epoch: number; slotIndex: number; slotsInEpoch: number } {
  const MINIMUM_SLOTS_PER_EPOCH = 32;
  if (schedule.warmup && slot < schedule.firstNormalSlot) {
    const epoch = Math.ceil(Math.log2(slot + MINIMUM_SLOTS_PER_EPOCH + 1)) - 5 - 1;
    const slotsInEpoch = 2 ** (epoch + 5);
    return { epoch, slotIndex: slot - (slotsInEpoch - MINIMUM_SLOTS_PER_EPOCH), slotsInEpoch };
  }
  const normal = slot - schedule.firstNormalSlot;
  return {
    epoch: schedule.firstNormalEpoch + Math.floor(normal / schedule.slotsPerEpoch),
    slotIndex: normal % schedule.slotsPerEpoch,
    slotsInEpoch: schedule.slotsPerEpoch,
  };
}

/** A running local chain (one litesvm, one ledger). Not safe to open twice on one dataDir. */
export class Chain {
  private slot = 0;
  private blockhash = "";
  private readonly blockhashes = new Map<string, number>();
  private readonly index = new Map<string, LedgerEntry>();
  private readonly transactionListeners = new Set<(entry: LedgerEntry) => void>();
  private readonly slotListeners = new Set<(slot: number) => void>();
  /** The epoch schedule sysvar (getEpochSchedule shape). */
  readonly epochSchedule: EpochScheduleInfo;
  private closed = false;

  private constructor(
    private readonly svm: LiteSVM,
    private readonly ledger: Ledger,
    readonly genesis: Genesis,
    private readonly now: () => number,
    private readonly chainDir: string,
    private clockOffsetSeconds: number,
  ) {
    const s = svm.getEpochSchedule();
    this.epochSchedule = {
      slotsPerEpoch: Number(s.slotsPerEpoch),
      leaderScheduleSlotOffset: Number(s.leaderScheduleSlotOffset),
      warmup: s.warmup,
      firstNormalEpoch: Number(s.firstNormalEpoch),
      firstNormalSlot: Number(s.firstNormalSlot),
    };
  }

  /**
   * Opens the chain stored in `<dataDir>/chain` (creating it on first use): deploys the
   * commitment program at `programId` through the upgradeable loader, loads the latest persisted
   * state of every account with `setAccount`, rebuilds the transaction index, and moves to the
   * wall-clock slot (never behind the last persisted transaction's slot).
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
      const { chain, deployer } = Chain.load(
        ledger,
        entries,
        loadOrCreateGenesis(chainDir, programKey.toBase58(), now()),
        programKey,
        now,
        chainDir,
      );
      await chain.ensureStakeConfig(
        programKey,
        deployer,
        options.stakeLockSeconds ?? DEFAULT_STAKE_LOCK_SECONDS,
      );
      return chain;
    } catch (error) {
      await ledger.close();
      throw error;
    }
  }

  private static load(
    ledger: Ledger,
    entries: readonly LedgerEntry[],
    genesis: Genesis,
    programKey: PublicKey,
    now: () => number,
    chainDir: string,
  ): { chain: Chain; deployer: Keypair } {
    const svm = new LiteSVM().withSigverify(false).withBlockhashCheck(false);
    const deployer = Keypair.generate();
    svm.airdrop(deployer.publicKey, DEPLOYER_FUNDING);
    const deployed = deployCommitmentProgram(svm, programKey, deployer);
    const reserved = new Set([
      programKey.toBase58(),
      deployed.programDataAddress.toBase58(),
      deployer.publicKey.toBase58(),
    ]);

    const chain = new Chain(svm, ledger, genesis, now, chainDir, loadClockOffset(chainDir));
    const latest = new Map<string, StoredAccount>();
    let lastSlot = 0;
    for (const entry of entries) {
      chain.index.set(entry.signature, entry);
      lastSlot = Math.max(lastSlot, entry.slot);
      for (const account of entry.accounts) {
        latest.set(account.address, account);
      }
    }
    for (const account of latest.values()) {
      if (reserved.has(account.address) || account.executable) {
        continue;
      }
      if (account.lamports === 0 && account.data.length === 0) {
        continue;
      }
      svm.setAccount(new PublicKey(account.address), {
        lamports: account.lamports,
        data: Buffer.from(account.data, "base64"),
        owner: new PublicKey(account.owner),
        executable: false,
        rentEpoch: Number.isSafeInteger(account.rentEpoch) ? account.rentEpoch : 0,
      });
    }
    chain.advanceTo(Math.max(lastSlot, chain.wallClockSlot()));
    return { chain, deployer };
  }

  /**
   * Creates the program's stake configuration on a new chain: `initialize_stake_config` signed
   * by this start's deployer (the upgrade authority), executed and persisted like any
   * transaction. A chain that already has one keeps it (the lock period is set once).
   * @throws RangeError for a lock period the program refuses; RpcError if it fails to land.
   */
  private async ensureStakeConfig(
    programKey: PublicKey,
    deployer: Keypair,
    lockSeconds: number,
  ): Promise<void> {
    if (this.getAccount(findStakeConfigAddress(programKey)[0])) {
      return;
    }
    const tx = new Transaction({
      feePayer: deployer.publicKey,
      blockhash: this.blockhash,
      lastValidBlockHeight: this.slot + MAX_PROCESSING_AGE,
    }).add(
      createInitializeStakeConfigInstruction({
        programId: programKey,
        authority: deployer.publicKey,
        lockPeriodSeconds: BigInt(lockSeconds),
      }),
    );
    tx.sign(deployer);
    const executed = await this.execute(this.parse(tx.serialize()));
    if (!executed.landed || executed.entry.err !== null) {
      const reason = executed.landed ? JSON.stringify(executed.entry.err) : executed.error.display;
      throw new RangeError(`initialize_stake_config(${lockSeconds}) failed: ${reason}`);
    }
  }

  /** The chain's Unix time in seconds: the wall clock plus every warp so far. */
  private unixSeconds(): number {
    return Math.floor(this.now() / 1000) + this.clockOffsetSeconds;
  }

  /** Seconds the chain's clock runs ahead of the wall clock (the sum of every warp). */
  get clockOffset(): number {
    return this.clockOffsetSeconds;
  }

  /**
   * Local-only: moves the chain's clock (Clock sysvar `unix_timestamp`, block times) forward by
   * `seconds`, durably, so time-locked state such as stake lots matures without waiting. Slots
   * keep following the wall clock. Real clusters have no equivalent.
   * @returns the chain's new Unix time, seconds.
   * @throws RangeError unless 1 ≤ seconds ≤ {@link MAX_WARP_SECONDS} (an integer).
   */
  warpClock(seconds: number): number {
    if (!Number.isSafeInteger(seconds) || seconds < 1 || seconds > MAX_WARP_SECONDS) {
      throw new RangeError(`seconds must be an integer in 1..${MAX_WARP_SECONDS}, got ${seconds}`);
    }
    this.assertAccepting();
    const offset = this.clockOffsetSeconds + seconds;
    saveClockOffset(this.chainDir, offset);
    this.clockOffsetSeconds = offset;
    this.setClockSysvar();
    return this.unixSeconds();
  }

  private setClockSysvar(): void {
    const { epoch } = epochOf(this.slot, this.epochSchedule);
    const clock = this.svm.getClock();
    this.svm.setClock(
      new Clock(
        BigInt(this.slot),
        clock.epochStartTimestamp,
        BigInt(epoch),
        BigInt(epoch + 1),
        BigInt(this.unixSeconds()),
      ),
    );
  }

  private wallClockSlot(): number {
    return Math.max(0, Math.floor((this.now() - this.genesis.createdAtMs) / SLOT_MS));
  }

  private advanceTo(slot: number): void {
    this.slot = slot;
    this.svm.warpToSlot(BigInt(slot));
    this.setClockSysvar();
    this.rotateBlockhash();
    for (const listener of this.slotListeners) {
      listener(slot);
    }
  }

  /** Issues a new latest blockhash, valid through slot + MAX_PROCESSING_AGE. */
  private rotateBlockhash(): void {
    this.blockhash = bs58.encode(randomBytes(32));
    this.blockhashes.set(this.blockhash, this.slot + MAX_PROCESSING_AGE);
    for (const [hash, lastValid] of this.blockhashes) {
      if (lastValid >= this.slot) {
        break;
      }
      this.blockhashes.delete(hash);
    }
  }

  /**
   * Brings the slot (and clock sysvar, and latest blockhash) up to the wall clock.
   * @returns the current slot.
   */
  tick(): number {
    const target = this.wallClockSlot();
    if (target > this.slot) {
      this.advanceTo(target);
    }
    return this.slot;
  }

  /** Current slot (also the block height: the local chain skips no slots). */
  get currentSlot(): number {
    return this.slot;
  }

  /** Number of transactions executed since genesis (airdrops included). */
  get transactionCount(): number {
    return this.index.size;
  }

  /** False once a ledger write failed: the chain then refuses transactions (NodeUnhealthy). */
  get healthy(): boolean {
    return !this.ledger.failed && !this.closed;
  }

  /** The latest blockhash and the last block height at which it is accepted. */
  latestBlockhash(): { blockhash: string; lastValidBlockHeight: number } {
    this.tick();
    return {
      blockhash: this.blockhash,
      lastValidBlockHeight: this.blockhashes.get(this.blockhash) ?? this.slot,
    };
  }

  /** Whether `blockhash` was issued by this chain and has not expired. */
  isBlockhashValid(blockhash: string): boolean {
    const lastValid = this.blockhashes.get(blockhash);
    return lastValid !== undefined && lastValid >= this.tick();
  }

  /** Current state of `address`, or null when no account exists there. */
  getAccount(address: PublicKey): AccountInfo<Uint8Array> | null {
    const account = this.svm.getAccount(address);
    return account && (account.lamports > 0 || account.data.length > 0) ? account : null;
  }

  /** Lamports needed for an account of `dataLength` bytes to be rent exempt. */
  minimumBalanceForRentExemption(dataLength: number): number {
    return Number(this.svm.minimumBalanceForRentExemption(BigInt(dataLength)));
  }

  /** Epoch position of the current slot. */
  epochInfo(): EpochInfo {
    const slot = this.tick();
    return {
      absoluteSlot: slot,
      blockHeight: slot,
      ...epochOf(slot, this.epochSchedule),
      transactionCount: this.transactionCount,
    };
  }

  /** The stored executed transaction with first signature `signature`, if any. */
  entry(signature: string): LedgerEntry | undefined {
    return this.index.get(signature);
  }

  /** The fee `message` would pay, or null when its blockhash is unknown or expired. */
  feeForMessage(message: VersionedMessage): number | null {
    return this.isBlockhashValid(message.recentBlockhash) ? messageFee(message) : null;
  }

  /** Calls `listener` with each transaction once it is durable. Returns the unsubscribe. */
  onTransaction(listener: (entry: LedgerEntry) => void): () => void {
    this.transactionListeners.add(listener);
    return () => this.transactionListeners.delete(listener);
  }

  /** Calls `listener` with each new slot. Returns the unsubscribe. */
  onSlot(listener: (slot: number) => void): () => void {
    this.slotListeners.add(listener);
    return () => this.slotListeners.delete(listener);
  }

  private assertAccepting(): void {
    if (!this.healthy) {
      throw new RpcError(RpcErrorCode.nodeUnhealthy, "Node is unhealthy");
    }
  }

  private parse(bytes: Uint8Array): WireTransaction {
    try {
      return parseWire(bytes);
    } catch (error) {
      if (error instanceof MalformedTransactionError) {
        throw new RpcError(RpcErrorCode.invalidParams, error.message);
      }
      throw error;
    }
  }

  /**
   * `sendTransaction`: checks signatures (always, as an RPC node does), then unless
   * `skipPreflight` simulates and refuses a failing transaction with the cluster's `-32002`
   * error (nothing lands, no fee); otherwise executes it. A transaction that executes (even one
   * that fails, paying its fee) is stored and reported once durable. With `skipPreflight`, a
   * transaction that cannot land (expired blockhash, already processed, unfunded fee payer) is
   * dropped silently, as a cluster drops it: its signature is returned and never confirms.
   * @param encoded the wire transaction in `encoding`.
   * @returns the transaction signature (base58).
   * @throws RpcError -32602 (malformed), -32003 (bad signature), -32002 (preflight failure),
   *   -32005 (the ledger can no longer be written).
   */
  async sendTransaction(
    encoded: string,
    encoding: "base64" | "base58",
    skipPreflight: boolean,
  ): Promise<string> {
    this.assertAccepting();
    this.tick();
    let bytes: Uint8Array;
    try {
      bytes = decodeWire(encoded, encoding);
    } catch (error) {
      throw invalidParams((error as Error).message);
    }
    const wire = this.parse(bytes);
    if (!verifySignatures(wire)) {
      throw new RpcError(
        RpcErrorCode.signatureVerificationFailure,
        "Transaction signature verification failure",
      );
    }
    let refusal: ClusterTransactionError | null = null;
    if (this.index.has(wire.signature)) {
      refusal = fieldlessError("AlreadyProcessed");
    } else if (!this.isBlockhashValid(wire.tx.message.recentBlockhash)) {
      refusal = fieldlessError("BlockhashNotFound");
    }
    if (refusal) {
      if (skipPreflight) {
        return wire.signature;
      }
      throw preflightFailure(refusal, [], 0);
    }
    if (!skipPreflight) {
      const simulated = this.svm.simulateTransaction(wire.tx);
      if (simulated instanceof FailedTransactionMetadata) {
        const meta = simulated.meta();
        throw preflightFailure(
          toClusterError(simulated),
          meta.logs(),
          Number(meta.computeUnitsConsumed()),
        );
      }
    }
    const executed = await this.execute(wire);
    if (!executed.landed && !skipPreflight) {
      throw preflightFailure(
        executed.error,
        executed.meta.logs(),
        Number(executed.meta.computeUnitsConsumed()),
      );
    }
    return wire.signature;
  }

  /** Executes `wire` in litesvm; if it lands, persists it and waits until it is durable. */
  private async execute(wire: WireTransaction): Promise<Executed> {
    const keys = wire.accountKeys;
    const preBalances = keys.map((key) => Number(this.svm.getBalance(key) ?? 0n));
    const result = this.svm.sendTransaction(wire.tx);
    const signatureBytes = wire.tx.signatures[0] as Uint8Array;
    if (
      result instanceof FailedTransactionMetadata &&
      this.svm.getTransaction(signatureBytes) === null
    ) {
      return { landed: false, error: toClusterError(result), meta: result.meta() };
    }
    const meta = result instanceof FailedTransactionMetadata ? result.meta() : result;
    const accounts: StoredAccount[] = [];
    for (const i of wire.writableIndexes) {
      const key = keys[i] as PublicKey;
      const stored = storedAccount(key.toBase58(), this.svm.getAccount(key));
      if (!stored.executable && !UNPERSISTED_OWNERS.has(stored.owner)) {
        accounts.push(stored);
      }
    }
    const entry: LedgerEntry = {
      v: 1,
      signature: wire.signature,
      slot: this.slot,
      blockTime: this.unixSeconds(),
      err: result instanceof FailedTransactionMetadata ? toClusterError(result).json : null,
      fee: messageFee(wire.tx.message),
      computeUnits: Number(meta.computeUnitsConsumed()),
      logs: meta.logs(),
      transaction: Buffer.from(wire.bytes).toString("base64"),
      preBalances,
      postBalances: keys.map((key) => Number(this.svm.getBalance(key) ?? 0n)),
      accounts,
    };
    try {
      await this.ledger.append(entry);
    } catch (error) {
      if (error instanceof LedgerWriteError) {
        throw new RpcError(RpcErrorCode.internalError, `Internal error: ${error.message}`);
      }
      throw error;
    }
    this.index.set(entry.signature, entry);
    for (const listener of this.transactionListeners) {
      listener(entry);
    }
    return { landed: true, entry };
  }

  /**
   * `simulateTransaction`: runs the transaction without committing anything.
   * @param sigVerify verify signatures first (RPC default false).
   * @param replaceRecentBlockhash ignore the transaction's blockhash (RPC default false);
   *   cannot be combined with `sigVerify`.
   * @throws RpcError -32602 (malformed or conflicting options), -32003 (bad signature).
   */
  simulate(
    encoded: string,
    encoding: "base64" | "base58",
    sigVerify: boolean,
    replaceRecentBlockhash: boolean,
  ): SimulationValue {
    if (sigVerify && replaceRecentBlockhash) {
      throw invalidParams("sigVerify may not be used with replaceRecentBlockhash");
    }
    let bytes: Uint8Array;
    try {
      bytes = decodeWire(encoded, encoding);
    } catch (error) {
      throw invalidParams((error as Error).message);
    }
    const wire = this.parse(bytes);
    if (sigVerify && !verifySignatures(wire)) {
      throw new RpcError(
        RpcErrorCode.signatureVerificationFailure,
        "Transaction signature verification failure",
      );
    }
    const replacement = replaceRecentBlockhash ? this.latestBlockhash() : null;
    const base = {
      accounts: null,
      innerInstructions: null,
      replacementBlockhash: replacement,
    } as const;
    if (!replaceRecentBlockhash && !this.isBlockhashValid(wire.tx.message.recentBlockhash)) {
      return {
        ...base,
        err: fieldlessError("BlockhashNotFound").json,
        logs: [],
        unitsConsumed: 0,
        returnData: null,
      };
    }
    const simulated = this.svm.simulateTransaction(wire.tx);
    if (simulated instanceof FailedTransactionMetadata) {
      const meta = simulated.meta();
      return {
        ...base,
        err: toClusterError(simulated).json,
        logs: meta.logs(),
        unitsConsumed: Number(meta.computeUnitsConsumed()),
        returnData: null,
      };
    }
    const meta = simulated.meta();
    const returned = meta.returnData();
    return {
      ...base,
      err: null,
      logs: meta.logs(),
      unitsConsumed: Number(meta.computeUnitsConsumed()),
      returnData:
        returned.data().length > 0
          ? {
              programId: bs58.encode(returned.programId()),
              data: [Buffer.from(returned.data()).toString("base64"), "base64"],
            }
          : null,
    };
  }

  /**
   * `requestAirdrop`: a transfer of `lamports` from the faucet to `to`, executed and persisted
   * like any transaction (the faucet is topped up with `setAccount` when it runs low). An airdrop
   * that would fail (e.g. fewer lamports than a new account's rent-exempt minimum) is refused
   * before it lands.
   * @returns the airdrop transaction's signature once durable.
   * @throws RangeError if `lamports` is not a positive safe integer; RpcError -32602 for an
   *   airdrop that would fail, -32005 when the ledger can no longer be written.
   */
  async requestAirdrop(to: PublicKey, lamports: number): Promise<string> {
    if (!Number.isSafeInteger(lamports) || lamports <= 0) {
      throw new RangeError(`lamports must be a positive safe integer, got ${lamports}`);
    }
    this.assertAccepting();
    this.tick();
    const faucet = FAUCET_KEYPAIR.publicKey;
    if (Number(this.svm.getBalance(faucet) ?? 0n) < lamports + 1_000_000) {
      this.svm.setAccount(faucet, {
        lamports: FAUCET_FLOAT + lamports,
        data: new Uint8Array(0),
        owner: SystemProgram.programId,
        executable: false,
        rentEpoch: 0,
      });
    }
    for (;;) {
      const tx = new Transaction({
        feePayer: faucet,
        blockhash: this.blockhash,
        lastValidBlockHeight: this.slot + MAX_PROCESSING_AGE,
      }).add(SystemProgram.transfer({ fromPubkey: faucet, toPubkey: to, lamports }));
      tx.addSignature(faucet, sign(null, tx.serializeMessage(), FAUCET_SIGNING_KEY));
      const wire = this.parse(tx.serialize({ verifySignatures: false }));
      if (this.index.has(wire.signature)) {
        // The same airdrop already ran under this blockhash: issue a new one and re-sign.
        this.rotateBlockhash();
        continue;
      }
      const simulated = this.svm.simulateTransaction(wire.tx);
      if (simulated instanceof FailedTransactionMetadata) {
        throw invalidParams(`airdrop would fail: ${toClusterError(simulated).display}`);
      }
      const executed = await this.execute(wire);
      if (!executed.landed) {
        throw new RpcError(
          RpcErrorCode.internalError,
          `Internal error: airdrop failed: ${executed.error.display}`,
        );
      }
      return wire.signature;
    }
  }

  /** Stops accepting transactions and waits for the ledger to be flushed and closed. */
  async close(): Promise<void> {
    this.closed = true;
    this.slotListeners.clear();
    this.transactionListeners.clear();
    await this.ledger.close();
  }
}
