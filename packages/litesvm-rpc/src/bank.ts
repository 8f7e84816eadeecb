/**
 * The local chain's bank: executes transactions in litesvm as a cluster's RPC node and bank do
 * (node:crypto signature verification, the blockhash check, preflight simulation; litesvm runs
 * with both of its own checks off), persists every transaction that lands through the ledger
 * before reporting it, answers simulations, and runs the faucet behind `requestAirdrop`.
 * Source: docs/protocol.md §7 (embedded default chain); agave `rpc.rs` (`send_transaction`,
 * `simulate_transaction`).
 * @module
 */

import { createHash, createPrivateKey, sign } from "node:crypto";
import {
  type AccountInfo,
  Keypair,
  type PublicKey,
  SystemProgram,
  Transaction,
  type VersionedMessage,
} from "@solana/web3.js";
import bs58 from "bs58";
import { FailedTransactionMetadata, type LiteSVM, type TransactionMetadata } from "litesvm";
import { type Ledger, type LedgerEntry, LedgerWriteError, type StoredAccount } from "./ledger.js";
import { invalidParams, preflightFailure, RpcError, RpcErrorCode } from "./rpc-error.js";
import { MAX_PROCESSING_AGE, type SlotClock } from "./slot-clock.js";
import { type ClusterTransactionError, fieldlessError, toClusterError } from "./tx-error.js";
import {
  decodeWire,
  MalformedTransactionError,
  messageFee,
  parseWire,
  verifySignatures,
  type WireTransaction,
} from "./wire.js";

/**
 * The faucet behind `requestAirdrop`: a fixed, publicly derivable local-only keypair. Its seed text
 * keeps the package's former name so that the faucet's key, and ledgers persisted with it, stay the same.
 */
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

/** Result of {@link Bank.simulate}, in `simulateTransaction`'s `value` shape. */
export interface SimulationValue {
  readonly err: unknown;
  readonly logs: readonly string[];
  readonly accounts: null;
  readonly unitsConsumed: number;
  readonly returnData: { programId: string; data: [string, "base64"] } | null;
  readonly innerInstructions: null;
  readonly replacementBlockhash: { blockhash: string; lastValidBlockHeight: number } | null;
}

/** What {@link Bank.execute} did: landed (and durable), or refused by the runtime. */
export type Executed =
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

/** Transactions of one local chain: execution, persistence, simulation, the faucet. */
export class Bank {
  /** First signature → stored transaction, for every transaction since genesis. */
  private readonly index = new Map<string, LedgerEntry>();
  private readonly listeners = new Set<(entry: LedgerEntry) => void>();
  private closed = false;

  /**
   * @param svm the chain's virtual machine (state already restored).
   * @param ledger where landed transactions are persisted.
   * @param clock the chain's slot clock (slot, blockhashes, Unix time of each block).
   * @param entries the transactions persisted so far, indexed by signature.
   */
  constructor(
    private readonly svm: LiteSVM,
    private readonly ledger: Ledger,
    private readonly clock: SlotClock,
    entries: readonly LedgerEntry[],
  ) {
    for (const entry of entries) {
      this.index.set(entry.signature, entry);
    }
  }

  /** Number of transactions executed since genesis (airdrops included). */
  get transactionCount(): number {
    return this.index.size;
  }

  /** False once a ledger write failed or the bank closed: transactions are then refused. */
  get healthy(): boolean {
    return !this.ledger.failed && !this.closed;
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

  /** The stored executed transaction with first signature `signature`, if any. */
  entry(signature: string): LedgerEntry | undefined {
    return this.index.get(signature);
  }

  /** The fee `message` would pay, or null when its blockhash is unknown or expired. */
  feeForMessage(message: VersionedMessage): number | null {
    return this.clock.isBlockhashValid(message.recentBlockhash) ? messageFee(message) : null;
  }

  /** Calls `listener` with each transaction once it is durable. Returns the unsubscribe. */
  onTransaction(listener: (entry: LedgerEntry) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** @throws RpcError -32005 (NodeUnhealthy) once the ledger failed or the bank closed. */
  assertAccepting(): void {
    if (!this.healthy) {
      throw new RpcError(RpcErrorCode.nodeUnhealthy, "Node is unhealthy");
    }
  }

  /**
   * Parses a wire transaction.
   * @throws RpcError -32602 when it is malformed.
   */
  parse(bytes: Uint8Array): WireTransaction {
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
    this.clock.tick();
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
    } else if (!this.clock.isBlockhashValid(wire.tx.message.recentBlockhash)) {
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

  /**
   * Executes `wire` in litesvm; if it lands, persists it (its writable accounts' new state) and
   * waits until it is durable before telling the transaction listeners.
   * @throws RpcError -32603 when the ledger write fails.
   */
  async execute(wire: WireTransaction): Promise<Executed> {
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
      slot: this.clock.slot,
      blockTime: this.clock.unixSeconds(),
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
    for (const listener of this.listeners) {
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
    const replacement = replaceRecentBlockhash ? this.clock.latestBlockhash() : null;
    const base = {
      accounts: null,
      innerInstructions: null,
      replacementBlockhash: replacement,
    } as const;
    if (!replaceRecentBlockhash && !this.clock.isBlockhashValid(wire.tx.message.recentBlockhash)) {
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
    this.clock.tick();
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
        blockhash: this.clock.blockhash,
        lastValidBlockHeight: this.clock.slot + MAX_PROCESSING_AGE,
      }).add(SystemProgram.transfer({ fromPubkey: faucet, toPubkey: to, lamports }));
      tx.addSignature(faucet, sign(null, tx.serializeMessage(), FAUCET_SIGNING_KEY));
      const wire = this.parse(tx.serialize({ verifySignatures: false }));
      if (this.index.has(wire.signature)) {
        // The same airdrop already ran under this blockhash: issue a new one and re-sign.
        this.clock.rotateBlockhash();
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
    this.listeners.clear();
    await this.ledger.close();
  }
}
