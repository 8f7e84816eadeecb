/**
 * The staking client: reads a wallet's stake vault, the deployment's stake configuration and the
 * chain clock in one JSON-RPC call, builds unsigned stake/unstake transactions for the wallet to
 * sign (fee payer = the wallet; the service never holds a user's key), and relays a signed one.
 *
 * Failure semantics: a failed read is {@link ChainUnavailableError}, never an empty vault or a
 * zero balance (the chain is the source of truth for staking balances); a relayed transaction is
 * simulated by the RPC node first, so program refusals come back as
 * {@link StakeTransactionRefusedError} with a stable code, without paying a fee.
 * Source: docs/staking.md; programs/commitment/src/stake.ts (wire format); Solana Clock sysvar
 * layout (slot u64, epoch_start_timestamp i64, epoch u64, leader_schedule_epoch u64,
 * unix_timestamp i64).
 * @module
 */

import {
  type Commitment,
  type Connection,
  type PublicKey,
  SYSVAR_CLOCK_PUBKEY,
  Transaction,
} from "@solana/web3.js";
import {
  CommitmentErrorCode,
  createStakeInstruction,
  createUnstakeInstruction,
  decodeStakeConfig,
  decodeStakeVault,
  findStakeConfigAddress,
  findVaultAddress,
  InvalidStakeDataError,
  type StakeLot,
} from "@verifiable-memory/commitment-program";
import bs58 from "bs58";
import { toPublicKey } from "./account.js";
import { ChainError, ChainUnavailableError } from "./errors.js";
import { connect, customCode, positiveInteger } from "./rpc.js";
import { sendAndConfirm } from "./send.js";

const DEFAULT_CONFIRM_TIMEOUT_MS = 60_000;
const DEFAULT_REQUEST_TIMEOUT_MS = 15_000;
/** Offset of `unix_timestamp` (i64 LE) in the Clock sysvar's 40 bytes. */
const CLOCK_UNIX_TIMESTAMP_OFFSET = 32;
/** System program error 1 (ResultWithNegativeLamports): the payer cannot cover a transfer. */
const SYSTEM_RESULT_WITH_NEGATIVE_LAMPORTS = 1;

/** Configuration of a {@link StakingClient}. */
export interface StakingClientConfig {
  /** Solana JSON-RPC URL (CHAIN_RPC_URL). */
  readonly rpcUrl: string;
  /** Commitment program id, base58 (SERVICE_PROGRAM_ID). */
  readonly programId: string;
  /** Commitment for reads and confirmation; default "confirmed". */
  readonly commitment?: Commitment;
  /** Per-request timeout; default 15 000 ms. */
  readonly requestTimeoutMs?: number;
  /** How long {@link StakingClient.submit} waits for confirmation; default 60 000 ms. */
  readonly confirmTimeoutMs?: number;
}

/** A wallet's staking position as the chain holds it, read in one RPC call. */
export interface StakeState {
  /** The wallet's vault PDA ["vault", owner], base58 (it may not exist yet). */
  readonly vault: string;
  /** Lots in deposit order (empty when the vault does not exist). */
  readonly lots: readonly StakeLot[];
  /** The deployment's lock period, seconds. */
  readonly lockPeriodSeconds: bigint;
  /** The chain's clock (Clock sysvar unix_timestamp), Unix seconds: maturity is judged by it. */
  readonly chainTime: bigint;
  /** The wallet's own balance, lamports (0 when it has no account). */
  readonly ownerBalanceLamports: bigint;
  /** Slot the read was served at. */
  readonly slot: number;
}

/** The program's stake configuration account does not exist: staking is not set up here. */
export class StakingNotConfiguredError extends ChainError {
  constructor(readonly configAddress: string) {
    super(
      "staking_not_configured",
      `the stake configuration ${configAddress} does not exist on this chain (see docs/staking.md)`,
    );
  }
}

/** Snake_case codes of {@link StakeTransactionRefusedError}. */
export type StakeRefusalCode =
  | "nothing_matured"
  | "too_many_lots"
  | "insufficient_funds"
  | "blockhash_expired"
  | "invalid_signature"
  | "staking_not_configured"
  | "transaction_failed";

const PROGRAM_REFUSALS: ReadonlyMap<number, StakeRefusalCode> = new Map([
  [CommitmentErrorCode.NothingMatured, "nothing_matured"],
  [CommitmentErrorCode.TooManyLots, "too_many_lots"],
  [CommitmentErrorCode.StakeNotConfigured, "staking_not_configured"],
]);

/** The chain refused a relayed staking transaction (preflight or execution); nothing moved. */
export class StakeTransactionRefusedError extends ChainError {
  /** Why the chain refused it. */
  declare readonly code: StakeRefusalCode;

  constructor(
    code: StakeRefusalCode,
    message: string,
    /** Cluster JSON form of the error, when there is one. */
    readonly err: unknown,
    readonly logs: readonly string[],
  ) {
    super(code, message);
  }
}

/** Outcome of a relayed, confirmed transaction. */
export interface SubmitResult {
  /** First signature, base58. */
  readonly signature: string;
  /** Slot it executed in. */
  readonly slot: number;
}

function refusal(err: unknown, logs: readonly string[]): StakeTransactionRefusedError {
  const custom = customCode(err);
  const programCode = custom ? PROGRAM_REFUSALS.get(custom.code) : undefined;
  if (programCode) {
    return new StakeTransactionRefusedError(
      programCode,
      `the program refused the transaction: ${programCode}`,
      err,
      logs,
    );
  }
  if (
    err === "InsufficientFundsForFee" ||
    err === "AccountNotFound" ||
    custom?.code === SYSTEM_RESULT_WITH_NEGATIVE_LAMPORTS ||
    (err as { InsufficientFundsForRent?: unknown } | null)?.InsufficientFundsForRent
  ) {
    return new StakeTransactionRefusedError(
      "insufficient_funds",
      "the wallet cannot pay the amount, the fee or the vault's rent",
      err,
      logs,
    );
  }
  if (err === "BlockhashNotFound") {
    return new StakeTransactionRefusedError(
      "blockhash_expired",
      "the transaction's blockhash expired: build and sign it again",
      err,
      logs,
    );
  }
  return new StakeTransactionRefusedError(
    "transaction_failed",
    `the chain refused the transaction: ${JSON.stringify(err)}`,
    err,
    logs,
  );
}

/** The staking client. Keypair-free: it only reads, builds unsigned transactions and relays. */
export class StakingClient {
  /** Commitment program id, base58. */
  readonly programId: string;
  private readonly program: PublicKey;
  private readonly connection: Connection;
  private readonly commitment: Commitment;
  private readonly confirmTimeoutMs: number;
  private readonly configAddress: PublicKey;

  /**
   * @throws TypeError for a malformed `rpcUrl` or `programId`; RangeError for a non-positive
   *   timeout.
   */
  constructor(config: StakingClientConfig) {
    this.program = toPublicKey(config.programId, "programId");
    this.programId = this.program.toBase58();
    this.commitment = config.commitment ?? "confirmed";
    this.confirmTimeoutMs = positiveInteger(
      config.confirmTimeoutMs,
      DEFAULT_CONFIRM_TIMEOUT_MS,
      "confirmTimeoutMs",
    );
    this.connection = connect(
      config.rpcUrl,
      this.commitment,
      positiveInteger(config.requestTimeoutMs, DEFAULT_REQUEST_TIMEOUT_MS, "requestTimeoutMs"),
    );
    this.configAddress = findStakeConfigAddress(this.program)[0];
  }

  /** The vault PDA ["vault", owner] of `owner`, base58. @throws TypeError for a bad key. */
  vaultOf(owner: string): string {
    return findVaultAddress(toPublicKey(owner, "owner"), this.program)[0].toBase58();
  }

  /**
   * Reads `owner`'s vault, the stake configuration, the Clock sysvar and `owner`'s balance with
   * one `getMultipleAccounts`.
   * @throws ChainUnavailableError when the RPC read fails or answers something undecodable (a
   *   vault or clock that does not decode is never read as empty); StakingNotConfiguredError when
   *   the configuration account does not exist; TypeError for a malformed `owner`.
   */
  async readStake(owner: string): Promise<StakeState> {
    const ownerKey = toPublicKey(owner, "owner");
    const vault = findVaultAddress(ownerKey, this.program)[0];
    let response: Awaited<ReturnType<Connection["getMultipleAccountsInfoAndContext"]>>;
    try {
      response = await this.connection.getMultipleAccountsInfoAndContext(
        [vault, this.configAddress, SYSVAR_CLOCK_PUBKEY, ownerKey],
        this.commitment,
      );
    } catch (error) {
      throw new ChainUnavailableError("getMultipleAccounts", error);
    }
    const [vaultInfo, configInfo, clockInfo, ownerInfo] = response.value;
    if (!configInfo) {
      throw new StakingNotConfiguredError(this.configAddress.toBase58());
    }
    try {
      if (!clockInfo || clockInfo.data.length < CLOCK_UNIX_TIMESTAMP_OFFSET + 8) {
        throw new InvalidStakeDataError("the Clock sysvar is missing or short");
      }
      if (!configInfo.owner.equals(this.program)) {
        throw new InvalidStakeDataError("the stake configuration is not owned by the program");
      }
      if (vaultInfo && !vaultInfo.owner.equals(this.program)) {
        throw new InvalidStakeDataError("the vault address holds an account of another program");
      }
      const decodedVault = vaultInfo ? decodeStakeVault(vaultInfo.data) : null;
      if (decodedVault && !decodedVault.owner.equals(ownerKey)) {
        throw new InvalidStakeDataError("the vault records another owner");
      }
      return {
        vault: vault.toBase58(),
        lots: decodedVault?.lots ?? [],
        lockPeriodSeconds: decodeStakeConfig(configInfo.data).lockPeriodSeconds,
        chainTime: Buffer.from(clockInfo.data).readBigInt64LE(CLOCK_UNIX_TIMESTAMP_OFFSET),
        ownerBalanceLamports: BigInt(ownerInfo?.lamports ?? 0),
        slot: response.context.slot,
      };
    } catch (error) {
      if (error instanceof InvalidStakeDataError) {
        throw new ChainUnavailableError("getMultipleAccounts (undecodable answer)", error);
      }
      throw error;
    }
  }

  /**
   * An unsigned `stake(amountLamports)` transaction with `owner` as fee payer and a fresh
   * blockhash.
   * @throws ChainUnavailableError when the blockhash cannot be read; TypeError / RangeError for
   *   a bad key or amount.
   */
  async buildStakeTransaction(owner: string, amountLamports: bigint): Promise<Transaction> {
    const ownerKey = toPublicKey(owner, "owner");
    const instruction = createStakeInstruction({
      programId: this.program,
      owner: ownerKey,
      amountLamports,
    });
    return new Transaction({ feePayer: ownerKey, ...(await this.latestBlockhash()) }).add(
      instruction,
    );
  }

  /**
   * An unsigned `unstake()` transaction with `owner` as fee payer and a fresh blockhash.
   * @throws ChainUnavailableError when the blockhash cannot be read; TypeError for a bad key.
   */
  async buildUnstakeTransaction(owner: string): Promise<Transaction> {
    const ownerKey = toPublicKey(owner, "owner");
    const instruction = createUnstakeInstruction({ programId: this.program, owner: ownerKey });
    return new Transaction({ feePayer: ownerKey, ...(await this.latestBlockhash()) }).add(
      instruction,
    );
  }

  private async latestBlockhash(): Promise<{ blockhash: string; lastValidBlockHeight: number }> {
    try {
      return await this.connection.getLatestBlockhash(this.commitment);
    } catch (error) {
      throw new ChainUnavailableError("getLatestBlockhash", error);
    }
  }

  /**
   * Relays a signed transaction (wire bytes) with preflight, then polls its status until the
   * configured commitment. Check what it contains before calling this: it relays anything.
   * @throws StakeTransactionRefusedError when the node or the program refuses it (nothing
   *   moved); ConfirmationTimeoutError when sent but not confirmed in time; ChainUnavailableError
   *   when the RPC fails.
   */
  async submit(wire: Uint8Array): Promise<SubmitResult> {
    const signature = bs58.encode(Transaction.from(wire).signature ?? new Uint8Array(64));
    return sendAndConfirm({
      connection: this.connection,
      commitment: this.commitment,
      confirmTimeoutMs: this.confirmTimeoutMs,
      attempts: 1,
      sign: () => ({ wire, signature }),
      refused: (err, _signature, logs) => refusal(err, logs),
      badSignature: () =>
        new StakeTransactionRefusedError(
          "invalid_signature",
          "the transaction's signature does not verify",
          null,
          [],
        ),
    });
  }
}

/** Re-exported for callers that decode vault lots without importing the program package. */
export type { StakeLot };
