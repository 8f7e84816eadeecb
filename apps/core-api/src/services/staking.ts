/**
 * Staking: a wallet's stake vault on chain, read through JSON-RPC on every request (the chain
 * holds the balance), the `stake_lots` cache rewritten from each read (maturity timing only,
 * never a balance), unsigned stake/unstake transactions for the wallet to sign, and a relay that
 * forwards only this program's stake/unstake of the caller's own vault.
 * Source: docs/staking.md; docs/protocol.md §11 (routes and shapes); docs/protocol.md §1 (a failed chain read is 503,
 * never a guess from the cache).
 * @module
 */
import { PublicKey, Transaction } from "@solana/web3.js";
import type { AuthContext } from "@verifiable-memory/auth";
import type { StakeState, SubmitResult } from "@verifiable-memory/chain-commit";
import type { Clock } from "@verifiable-memory/clock";
import {
  decodeStakingInstruction,
  MAX_STAKE_LOTS,
  type StakeLot,
} from "@verifiable-memory/commitment-program";
import { type Database, replaceStakeLots } from "@verifiable-memory/db-schema";
import { ApiError } from "../errors.js";

/** What the service needs from the chain (implemented by @verifiable-memory/chain-commit's StakingClient). */
export interface StakingChain {
  readonly programId: string;
  readStake(owner: string): Promise<StakeState>;
  buildStakeTransaction(owner: string, amountLamports: bigint): Promise<Transaction>;
  buildUnstakeTransaction(owner: string): Promise<Transaction>;
  submit(wire: Uint8Array): Promise<SubmitResult>;
}

/** A lot as the API shows it. */
export interface LotView {
  /** Lamports, decimal string. */
  readonly amountLamports: string;
  /** ISO 8601 instant of maturity (chain clock). */
  readonly maturesAt: string;
  /** Whether the chain's clock has reached `maturesAt`. */
  readonly matured: boolean;
}

/** `GET /staking`. */
export interface StakingPosition {
  readonly vault: string;
  /** Sum of every lot, lamports (decimal string). */
  readonly balanceLamports: string;
  /** Sum of the matured lots: what an unstake now would pay, lamports (decimal string). */
  readonly withdrawableLamports: string;
  /** The deployment's lock period, seconds. */
  readonly lockPeriodSeconds: number;
  /** The chain's clock at the read, ISO 8601. */
  readonly chainTime: string;
  readonly lots: LotView[];
}

/** `POST /staking/stake`. */
export interface PreparedStake {
  /** The unsigned transaction, base64 wire format (fee payer = the wallet). */
  readonly transaction: string;
  readonly vault: string;
  /** When the lot would mature if the transaction executed now (chain clock + lock period). */
  readonly maturesAt: string;
}

/** `POST /staking/unstake`. */
export interface PreparedUnstake {
  readonly transaction: string;
  /** What the unstake pays if executed now: the sum of the matured lots, lamports. */
  readonly amountLamports: string;
  /** The matured lots it pays. */
  readonly lots: LotView[];
}

/** Dependencies of {@link StakingService}. */
export interface StakingServiceDeps {
  readonly db: Database;
  readonly clock: Clock;
  readonly chain: StakingChain;
}

function isoFromUnixSeconds(seconds: bigint): string {
  return new Date(Number(seconds) * 1000).toISOString();
}

function lotView(lot: StakeLot, chainTime: bigint): LotView {
  return {
    amountLamports: lot.amountLamports.toString(),
    maturesAt: isoFromUnixSeconds(lot.unlockAt),
    matured: lot.unlockAt <= chainTime,
  };
}

function sum(lots: readonly StakeLot[]): bigint {
  return lots.reduce((total, lot) => total + lot.amountLamports, 0n);
}

function invalidTransaction(message: string): ApiError {
  return new ApiError("invalid_transaction", message);
}

/** The staking operations of the core API. */
export class StakingService {
  constructor(private readonly deps: StakingServiceDeps) {}

  /**
   * Reads the caller's vault from the chain and rewrites the `stake_lots` cache from it.
   * @throws ChainUnavailableError (→ 503 chain_unavailable) when the read fails;
   *   StakingNotConfiguredError (→ 503 staking_not_configured).
   */
  private async read(auth: AuthContext): Promise<StakeState> {
    const state = await this.deps.chain.readStake(auth.ownerPubkey);
    await replaceStakeLots(
      this.deps.db,
      auth.userId,
      state.lots.map((lot) => ({
        amountLamports: lot.amountLamports,
        unlockAt: new Date(Number(lot.unlockAt) * 1000),
      })),
      this.deps.clock.now(),
    );
    return state;
  }

  /**
   * The caller's staking position, from the chain.
   * @throws as {@link StakingService.read}.
   */
  async position(auth: AuthContext): Promise<StakingPosition> {
    const state = await this.read(auth);
    const matured = state.lots.filter((lot) => lot.unlockAt <= state.chainTime);
    return {
      vault: state.vault,
      balanceLamports: sum(state.lots).toString(),
      withdrawableLamports: sum(matured).toString(),
      lockPeriodSeconds: Number(state.lockPeriodSeconds),
      chainTime: isoFromUnixSeconds(state.chainTime),
      lots: state.lots.map((lot) => lotView(lot, state.chainTime)),
    };
  }

  /**
   * An unsigned stake transaction of `amountLamports` for the caller's wallet to sign.
   * @param amountLamports 1..2^64-1.
   * @throws ApiError 409 too_many_lots (the vault is full) or insufficient_funds (the wallet holds
   *   less than the amount); chain errors as {@link StakingService.read}.
   */
  async prepareStake(auth: AuthContext, amountLamports: bigint): Promise<PreparedStake> {
    const state = await this.read(auth);
    if (state.lots.length >= MAX_STAKE_LOTS) {
      throw new ApiError(
        "too_many_lots",
        `the vault already holds ${MAX_STAKE_LOTS} lots: unstake matured lots first`,
      );
    }
    if (state.ownerBalanceLamports < amountLamports) {
      throw new ApiError(
        "insufficient_funds",
        `the wallet holds ${state.ownerBalanceLamports} lamports, less than ${amountLamports}`,
      );
    }
    const tx = await this.deps.chain.buildStakeTransaction(auth.ownerPubkey, amountLamports);
    return {
      transaction: tx.serialize({ requireAllSignatures: false }).toString("base64"),
      vault: state.vault,
      maturesAt: isoFromUnixSeconds(state.chainTime + state.lockPeriodSeconds),
    };
  }

  /**
   * An unsigned unstake transaction paying every matured lot, for the caller's wallet to sign.
   * Reads the chain first: never answers from the cache.
   * @throws ApiError 409 nothing_matured; chain errors as {@link StakingService.read}.
   */
  async prepareUnstake(auth: AuthContext): Promise<PreparedUnstake> {
    const state = await this.read(auth);
    const matured = state.lots.filter((lot) => lot.unlockAt <= state.chainTime);
    if (matured.length === 0) {
      throw new ApiError("nothing_matured", "no stake lot has matured yet");
    }
    const tx = await this.deps.chain.buildUnstakeTransaction(auth.ownerPubkey);
    return {
      transaction: tx.serialize({ requireAllSignatures: false }).toString("base64"),
      amountLamports: sum(matured).toString(),
      lots: matured.map((lot) => lotView(lot, state.chainTime)),
    };
  }

  /**
   * Relays a transaction the caller's wallet signed, after checking that it is exactly what this
   * service builds: a legacy transaction whose fee payer is the caller and whose every
   * instruction is this program's stake or unstake of the caller's own vault, with a valid
   * signature of the caller.
   * @param base64 the signed transaction, base64 wire format.
   * @throws ApiError 400 invalid_transaction for anything else; 409 nothing_matured,
   *   too_many_lots, insufficient_funds, blockhash_expired or transaction_failed when the chain
   *   refuses it (StakeTransactionRefusedError); chain errors as {@link StakingService.read}.
   */
  async submit(auth: AuthContext, base64: string): Promise<SubmitResult> {
    let tx: Transaction;
    let wire: Buffer;
    try {
      wire = Buffer.from(base64, "base64");
      if (wire.toString("base64") !== base64) {
        throw new Error("not canonical base64");
      }
      tx = Transaction.from(wire);
    } catch {
      throw invalidTransaction("transaction must be a base64 legacy Solana transaction");
    }
    const owner = new PublicKey(auth.ownerPubkey);
    if (!tx.feePayer?.equals(owner)) {
      throw invalidTransaction("the fee payer must be the signed-in wallet");
    }
    if (tx.instructions.length === 0) {
      throw invalidTransaction("the transaction has no instruction");
    }
    const program = new PublicKey(this.deps.chain.programId);
    for (const [index, instruction] of tx.instructions.entries()) {
      const decoded = decodeStakingInstruction(instruction, program);
      if (decoded === null || !decoded.owner.equals(owner)) {
        throw invalidTransaction(
          `instruction ${index} is not this program's stake or unstake of your own vault`,
        );
      }
      if (decoded.kind === "stake" && decoded.amountLamports === 0n) {
        throw invalidTransaction(`instruction ${index} stakes 0 lamports`);
      }
    }
    if (tx.signatures.length !== 1 || !tx.verifySignatures(true)) {
      throw invalidTransaction("the transaction must carry the wallet's valid signature only");
    }
    return this.deps.chain.submit(wire);
  }
}
