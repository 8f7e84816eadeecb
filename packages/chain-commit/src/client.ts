/**
 * The one chain client of the service (docs/protocol.md §7): reads and updates commitment accounts over
 * standard Solana JSON-RPC with @solana/web3.js `Connection`, building instructions with the
 * program's Anchor IDL. The same code talks to the embedded local chain, devnet or mainnet.
 *
 * Failure semantics: a failed read is {@link ChainUnavailableError}, never "absent" or zero
 * (docs/protocol.md §1); a commit is simulated by the RPC node first (preflight), so program errors come back
 * typed without paying a fee (6002 → {@link NonceRaceError}, 6001 → {@link CountDecreasedError},
 * 6000 → {@link UnauthorizedAuthorityError}); confirmation polls `getSignatureStatuses` until the
 * configured commitment or {@link ConfirmationTimeoutError}.
 * Source: docs/protocol.md §6, §7, §1, §7 ("reads the on-chain nonce before each commit and
 * confirms every transaction"); agave RPC error texts (`TransactionError` Display).
 * @module
 */

import type { KeyObject } from "node:crypto";
import {
  type Commitment,
  type Connection,
  type Finality,
  type Keypair,
  type PublicKey,
  Transaction,
  type TransactionInstruction,
} from "@solana/web3.js";
import {
  CommitmentErrorCode,
  createCommitInstruction,
  createInitializeInstruction,
  findCheckpointLogAddress,
} from "@verifiable-memory/commitment-program";
import bs58 from "bs58";
import {
  type CommitmentAccount,
  commitmentAddress,
  decodeCommitmentAccount,
  toPublicKey,
} from "./account.js";
import { type BatchCommitOutcome, type BatchCommitRequest, commitBatch } from "./batch.js";
import {
  type CheckpointLogState,
  checkpointLogInstructions,
  readCheckpointLogAt,
} from "./checkpoint-log.js";
import {
  ChainUnavailableError,
  CountDecreasedError,
  InsufficientFundsError,
  NonceRaceError,
  RootMismatchError,
  TransactionFailedError,
  UnauthorizedAuthorityError,
} from "./errors.js";
import { connect, customCode, positiveInteger, readProgramAccount } from "./rpc.js";
import { sendAndConfirm } from "./send.js";
import { ed25519PrivateKey, signAndSerialize } from "./sign.js";

const { Unauthorized: UNAUTHORIZED, CountDecreased: COUNT_DECREASED } = CommitmentErrorCode;
const { NonceMismatch: NONCE_MISMATCH, AlreadyInitialized: ALREADY_INITIALIZED } =
  CommitmentErrorCode;
/** System program errors surfacing from initialize's create_account CPI. */
const SYSTEM_ACCOUNT_ALREADY_IN_USE = 0;
const SYSTEM_RESULT_WITH_NEGATIVE_LAMPORTS = 1;

const DEFAULT_CONFIRM_TIMEOUT_MS = 60_000;
const DEFAULT_REQUEST_TIMEOUT_MS = 15_000;
/** How long a fetched blockhash is reused for new transactions. */
const BLOCKHASH_REUSE_MS = 10_000;
/** Memoized commitment addresses per client before the memo is reset. */
const ADDRESS_CACHE_LIMIT = 10_000;
/** Fresh blockhashes tried when the RPC node does not know the one it just gave out. */
const BLOCKHASH_ATTEMPTS = 3;

/** Configuration of a {@link ChainClient}. */
export interface ChainConfig {
  /** Solana JSON-RPC URL (CHAIN_RPC_URL; the local chain's by default). */
  readonly rpcUrl: string;
  /** Commitment program id, base58 (SERVICE_PROGRAM_ID). */
  readonly programId: string;
  /** Commit authority and fee payer (AUTHORITY_KEYPAIR_PATH). */
  readonly authority: Keypair;
  /** Commitment for reads and confirmation; default "confirmed". */
  readonly commitment?: Commitment;
  /** How long `commit` waits for confirmation; default 60 000 ms. */
  readonly confirmTimeoutMs?: number;
  /** Timeout of each HTTP request to the RPC; default 15 000 ms. */
  readonly requestTimeoutMs?: number;
  /** Cluster name reported in anchors (docs/protocol.md §6); default from the URL, see {@link clusterFromRpcUrl}. */
  readonly cluster?: string;
}

/** Options of {@link readCommitmentFromRpc}. */
export interface ReadOptions {
  /** Default "confirmed". */
  readonly commitment?: Commitment;
  /** Default 15 000 ms. */
  readonly requestTimeoutMs?: number;
}

/** Outcome of a confirmed commit. */
export interface CommitResult {
  /** Transaction signature, base58. */
  readonly signature: string;
  /** Slot the transaction executed in. */
  readonly slot: number;
  /** The account's nonce after this commit (`expectedNonce + 1`). */
  readonly nonce: number;
}

/** A transaction as `getTransaction` reports it. */
export interface TransactionSummary {
  readonly signature: string;
  readonly slot: number;
  /** Unix seconds, when the node knows it. */
  readonly blockTime: number | null;
  /** Cluster JSON form of the error, null on success. */
  readonly err: unknown;
  /** Fee paid, lamports. */
  readonly fee: number;
  readonly logs: readonly string[];
}

/**
 * The cluster name of an RPC URL: "localnet" for loopback hosts, "devnet", "testnet" or "mainnet"
 * when the host names one (e.g. api.devnet.solana.com), else "custom".
 * @throws TypeError if `rpcUrl` is not a URL.
 */
export function clusterFromRpcUrl(rpcUrl: string): string {
  let host: string;
  try {
    host = new URL(rpcUrl).hostname;
  } catch {
    throw new TypeError(`rpcUrl must be a URL, got ${JSON.stringify(rpcUrl)}`);
  }
  if (host === "localhost" || host === "[::1]" || host.startsWith("127.")) {
    return "localnet";
  }
  for (const name of ["devnet", "testnet", "mainnet"]) {
    if (host.includes(name)) {
      return name;
    }
  }
  return "custom";
}

function u64Number(value: number, name: string): number {
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new RangeError(`${name} must be an integer in 0..2^53-1, got ${value}`);
  }
  return value;
}

async function readCommitmentAt(
  connection: Connection,
  programId: PublicKey,
  address: PublicKey,
  commitment: Commitment,
): Promise<CommitmentAccount | null> {
  const info = await readProgramAccount(connection, programId, address, commitment);
  return info && { address: address.toBase58(), ...decodeCommitmentAccount(info.data) };
}

/**
 * Reads the commitment account of `owner` straight from a chain RPC, without an authority
 * keypair (the auditor's permissionless check, docs/protocol.md §6).
 * @returns the account, or null when none exists at the PDA.
 * @throws ChainUnavailableError when the read fails; InvalidCommitmentAccountError when the PDA
 *   holds something else; TypeError for a malformed URL or key.
 * @example await readCommitmentFromRpc("https://api.devnet.solana.com", programId, wallet)
 */
export async function readCommitmentFromRpc(
  rpcUrl: string,
  programId: string,
  owner: string,
  options: ReadOptions = {},
): Promise<CommitmentAccount | null> {
  const commitment = options.commitment ?? "confirmed";
  const timeout = positiveInteger(
    options.requestTimeoutMs,
    DEFAULT_REQUEST_TIMEOUT_MS,
    "requestTimeoutMs",
  );
  const program = toPublicKey(programId, "programId");
  return readCommitmentAt(
    connect(rpcUrl, commitment, timeout),
    program,
    commitmentAddress(toPublicKey(owner, "owner"), program),
    commitment,
  );
}

/**
 * The chain client. One instance per authority and RPC endpoint; safe to use concurrently for
 * different owners (each commit is its own transaction).
 */
export class ChainClient {
  /** Commitment program id, base58. */
  readonly programId: string;
  /** Cluster name reported with anchors. */
  readonly cluster: string;
  /** The authority's public key, base58. */
  readonly authorityAddress: string;
  /** The authority's checkpoint log account (PDA ["checkpoint-log", authority]), base58. */
  readonly checkpointLogAddress: string;
  private readonly program: PublicKey;
  private readonly authority: Keypair;
  private readonly connection: Connection;
  private readonly commitment: Commitment;
  private readonly confirmTimeoutMs: number;
  private readonly signingKey: KeyObject;
  private readonly addresses = new Map<string, PublicKey>();
  private blockhash: {
    value: { blockhash: string; lastValidBlockHeight: number };
    fetchedAt: number;
  } | null = null;
  private blockhashRequest: Promise<{ blockhash: string; lastValidBlockHeight: number }> | null =
    null;

  /**
   * @throws TypeError for a malformed `rpcUrl` or `programId`; RangeError for a non-positive
   *   timeout.
   */
  constructor(config: ChainConfig) {
    this.program = toPublicKey(config.programId, "programId");
    this.programId = this.program.toBase58();
    this.cluster = config.cluster ?? clusterFromRpcUrl(config.rpcUrl);
    this.authority = config.authority;
    this.authorityAddress = config.authority.publicKey.toBase58();
    this.checkpointLogAddress = findCheckpointLogAddress(
      this.authority.publicKey,
      this.program,
    )[0].toBase58();
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
    this.signingKey = ed25519PrivateKey(config.authority);
  }

  /**
   * Reads the commitment account of `owner`.
   * @returns the account, or null when no account exists at its PDA.
   * @throws ChainUnavailableError when the RPC read fails (never null or zero in that case);
   *   InvalidCommitmentAccountError when the PDA holds something else; TypeError for a bad key.
   */
  async readCommitment(owner: string): Promise<CommitmentAccount | null> {
    return readCommitmentAt(
      this.connection,
      this.program,
      this.addressOf(toPublicKey(owner, "owner")),
      this.commitment,
    );
  }

  /** The commitment PDA of `owner`, memoized (deriving it costs curve checks in JavaScript). */
  private addressOf(owner: PublicKey): PublicKey {
    const id = owner.toBase58();
    let address = this.addresses.get(id);
    if (!address) {
      if (this.addresses.size >= ADDRESS_CACHE_LIMIT) {
        this.addresses.clear();
      }
      address = commitmentAddress(owner, this.program);
      this.addresses.set(id, address);
    }
    return address;
  }

  /**
   * A recent blockhash: reused for up to {@link BLOCKHASH_REUSE_MS} (clusters accept one for
   * about 60 s) to save a round trip per commit; concurrent callers share one request.
   * @throws ChainUnavailableError when the RPC call fails.
   */
  private async recentBlockhash(
    fresh: boolean,
  ): Promise<{ blockhash: string; lastValidBlockHeight: number }> {
    const cached = this.blockhash;
    if (!fresh && cached && Date.now() - cached.fetchedAt < BLOCKHASH_REUSE_MS) {
      return cached.value;
    }
    this.blockhashRequest ??= this.connection
      .getLatestBlockhash(this.commitment)
      .then((value) => {
        this.blockhash = { value, fetchedAt: Date.now() };
        return value;
      })
      .catch((error: unknown) => {
        throw new ChainUnavailableError("getLatestBlockhash", error);
      })
      .finally(() => {
        this.blockhashRequest = null;
      });
    return this.blockhashRequest;
  }

  private initializeInstruction(owner: PublicKey, address: PublicKey): TransactionInstruction {
    return createInitializeInstruction({
      programId: this.program,
      authority: this.authority.publicKey,
      owner,
      commitment: address,
    });
  }

  private commitInstruction(
    owner: PublicKey,
    address: PublicKey,
    root: Uint8Array,
    memoryCount: number,
    expectedNonce: number,
  ): TransactionInstruction {
    return createCommitInstruction({
      programId: this.program,
      authority: this.authority.publicKey,
      owner,
      commitment: address,
      root,
      memoryCount: BigInt(memoryCount),
      expectedNonce: BigInt(expectedNonce),
    });
  }

  /**
   * Commits `root` covering `memoryCount` leaves of `owner`'s log, expecting the account's nonce
   * to be `expectedNonce`. On first use (`expectedNonce` 0 and no account yet) the same
   * transaction initializes the account (the authority pays its rent). The RPC node simulates
   * first; the transaction is then confirmed by polling `getSignatureStatuses`.
   * @param root 32-byte Merkle root.
   * @param memoryCount leaves covered, ≥ the stored count.
   * @param expectedNonce the account's current nonce (0 before the first commit).
   * @returns signature, slot, and the nonce after the commit (`expectedNonce + 1`).
   * @throws NonceRaceError (6002, or the account was created meanwhile), CountDecreasedError
   *   (6001), UnauthorizedAuthorityError (6000), InsufficientFundsError (fee or rent),
   *   ConfirmationTimeoutError (sent, outcome unknown), ChainUnavailableError (RPC failure),
   *   TransactionFailedError (any other refusal); TypeError / RangeError for bad arguments.
   * Source: docs/protocol.md §7 (commit(root, memoryCount, expectedNonce)).
   */
  async commit(
    owner: string,
    root: Uint8Array,
    memoryCount: number,
    expectedNonce: number,
  ): Promise<CommitResult> {
    const ownerKey = toPublicKey(owner, "owner");
    if (!(root instanceof Uint8Array) || root.length !== 32) {
      throw new RangeError(
        `root must be 32 bytes, got ${(root as Uint8Array | undefined)?.length}`,
      );
    }
    u64Number(memoryCount, "memoryCount");
    u64Number(expectedNonce, "expectedNonce");
    const address = this.addressOf(ownerKey);
    const initialize =
      expectedNonce === 0 &&
      (await readCommitmentAt(this.connection, this.program, address, this.commitment)) === null;
    const instructions = [
      ...(initialize ? [this.initializeInstruction(ownerKey, address)] : []),
      this.commitInstruction(ownerKey, address, root, memoryCount, expectedNonce),
    ];
    const context = { owner: ownerKey.toBase58(), memoryCount, expectedNonce, initialize };

    const sent = await sendAndConfirm({
      connection: this.connection,
      commitment: this.commitment,
      confirmTimeoutMs: this.confirmTimeoutMs,
      attempts: BLOCKHASH_ATTEMPTS,
      sign: (attempt) => this.signTransaction(instructions, attempt),
      refused: (err, signature, logs) => this.mapError(err, signature, logs, context),
      badSignature: (message, logs) => new TransactionFailedError(message, null, logs),
    });
    return { ...sent, nonce: expectedNonce + 1 };
  }

  /**
   * Commits many owners at once with `commit_many`: as many owners per legacy transaction as fit
   * (12 with accounts, fewer when some need `initialize`, which joins the same transaction),
   * `concurrency` transactions in flight. A transaction the program refuses for one owner (a
   * stale nonce, say) is sent again without that owner, who gets the error `commit` would have
   * thrown (NonceRaceError, CountDecreasedError, RootMismatchError, UnauthorizedAuthorityError…).
   * @param requests distinct owners, each with root, memoryCount and expectedNonce as `commit`.
   * @param concurrency transactions in flight; default 4.
   * @returns one outcome per request, in order: confirmed (signature, slot, nonce), failed
   *   (nothing landed for it) or unknown (sent, not confirmed).
   * @throws RangeError for duplicate owners or malformed values; ChainUnavailableError when the
   *   lookup of new accounts fails (nothing sent).
   * Source: docs/protocol.md §7.2 "Instructions" (commit_many).
   */
  async commitMany(
    requests: readonly BatchCommitRequest[],
    concurrency = 4,
  ): Promise<BatchCommitOutcome[]> {
    return commitBatch(
      {
        program: this.program,
        authority: this.authority.publicKey,
        connection: this.connection,
        commitment: this.commitment,
        confirmTimeoutMs: this.confirmTimeoutMs,
        attempts: BLOCKHASH_ATTEMPTS,
        addressOf: (owner) => this.addressOf(owner),
        sign: (instructions, attempt) => this.signTransaction(instructions, attempt),
        entryError: (code, initialize, request) =>
          this.mapError({ InstructionError: [initialize ? 0 : 1, { Custom: code }] }, null, [], {
            ...request,
            initialize,
          }),
        transactionError: (err, signature, logs) =>
          this.mapError(err, signature, logs, {
            owner: "(batch)",
            memoryCount: 0,
            expectedNonce: 0,
            initialize: false,
          }),
      },
      requests,
      concurrency,
    );
  }

  /** One legacy transaction of `instructions`, paid and signed by the authority (fresh blockhash after attempt 1). */
  private async signTransaction(
    instructions: readonly TransactionInstruction[],
    attempt: number,
  ): Promise<{ wire: Uint8Array; signature: string }> {
    const latest = await this.recentBlockhash(attempt > 1);
    const tx = new Transaction({ feePayer: this.authority.publicKey, ...latest }).add(
      ...instructions,
    );
    const wire = signAndSerialize(tx, this.authority, this.signingKey);
    return { wire, signature: bs58.encode(tx.signature as Uint8Array) };
  }

  /**
   * Reads this authority's checkpoint log account (PDA ["checkpoint-log", authority]).
   * @returns the account, or null when it does not exist yet.
   * @throws ChainUnavailableError when the read fails; InvalidCommitmentAccountError when the PDA
   *   holds something else.
   * Source: docs/protocol.md §13.5 "The checkpoint log".
   */
  async readCheckpointLog(): Promise<CheckpointLogState | null> {
    return readCheckpointLogAt(
      this.connection,
      this.program,
      this.authority.publicKey,
      this.commitment,
    );
  }

  /**
   * Anchors the checkpoint log's `root` at `size` entries in ONE legacy transaction:
   * `initialize_checkpoint_log` first when `expectedNonce` is 0 and the account does not exist,
   * then `commit_checkpoint_log(root, size, expectedNonce)`; simulated, sent and confirmed as
   * `commit` is.
   * @returns signature, slot, and the account's nonce after it (`expectedNonce + 1`).
   * @throws NonceRaceError (6002, or the account was created meanwhile), CountDecreasedError
   *   (6001, `size` below the stored size), RootMismatchError (6016, another root at the stored
   *   size), UnauthorizedAuthorityError (6000), and `commit`'s other errors; RangeError for bad
   *   arguments.
   * Source: docs/protocol.md §7.2 "Instructions" (commit_checkpoint_log).
   */
  async commitCheckpointLog(
    root: Uint8Array,
    size: number,
    expectedNonce: number,
  ): Promise<CommitResult> {
    const initialize = expectedNonce === 0 && (await this.readCheckpointLog()) === null;
    const instructions = checkpointLogInstructions({
      program: this.program,
      authority: this.authority.publicKey,
      root,
      size,
      expectedNonce,
      initialize,
    });
    const context = { owner: "checkpoint-log", memoryCount: size, expectedNonce, initialize };
    const sent = await sendAndConfirm({
      connection: this.connection,
      commitment: this.commitment,
      confirmTimeoutMs: this.confirmTimeoutMs,
      attempts: BLOCKHASH_ATTEMPTS,
      sign: (attempt) => this.signTransaction(instructions, attempt),
      refused: (err, signature, logs) => this.mapError(err, signature, logs, context),
      badSignature: (message, logs) => new TransactionFailedError(message, null, logs),
    });
    return { ...sent, nonce: expectedNonce + 1 };
  }

  /** Maps a cluster transaction error of a commit transaction to this package's errors. */
  private mapError(
    err: unknown,
    signature: string | null,
    logs: readonly string[],
    context: { owner: string; memoryCount: number; expectedNonce: number; initialize: boolean },
  ): Error {
    const custom = customCode(err);
    const initializeFailed = context.initialize && custom?.index === 0;
    if (custom && initializeFailed) {
      if (custom.code === SYSTEM_ACCOUNT_ALREADY_IN_USE || custom.code === ALREADY_INITIALIZED) {
        return new NonceRaceError(context.owner, context.expectedNonce);
      }
      if (custom.code === SYSTEM_RESULT_WITH_NEGATIVE_LAMPORTS) {
        return new InsufficientFundsError(this.authorityAddress, "cannot pay the account's rent");
      }
    }
    if (custom && !initializeFailed) {
      switch (custom.code) {
        case NONCE_MISMATCH:
          return new NonceRaceError(context.owner, context.expectedNonce);
        case COUNT_DECREASED:
          return new CountDecreasedError(context.owner, context.memoryCount);
        case CommitmentErrorCode.RootMismatch:
          return new RootMismatchError(context.owner, context.memoryCount);
        case UNAUTHORIZED:
          return new UnauthorizedAuthorityError(context.owner, this.authorityAddress);
      }
    }
    if (err === "AccountNotFound" || err === "InsufficientFundsForFee") {
      return new InsufficientFundsError(this.authorityAddress, "cannot pay the transaction fee");
    }
    if ((err as { InsufficientFundsForRent?: unknown } | null)?.InsufficientFundsForRent) {
      return new InsufficientFundsError(this.authorityAddress, "would fall below rent exemption");
    }
    return new TransactionFailedError(err, signature, logs);
  }

  /**
   * The authority's balance.
   * @returns lamports (0 when the account does not exist).
   * @throws ChainUnavailableError when the RPC read fails.
   */
  async authorityBalance(): Promise<number> {
    try {
      return await this.connection.getBalance(this.authority.publicKey, this.commitment);
    } catch (error) {
      throw new ChainUnavailableError("getBalance", error);
    }
  }

  /**
   * Looks a transaction up by signature.
   * @returns its slot, time, error, fee and logs, or null when the node does not know it.
   * @throws ChainUnavailableError when the RPC read fails; TypeError for a malformed signature.
   */
  async getTransaction(signature: string): Promise<TransactionSummary | null> {
    let signatureBytes: Uint8Array;
    try {
      signatureBytes = bs58.decode(signature);
    } catch {
      signatureBytes = new Uint8Array(0);
    }
    if (signatureBytes.length !== 64) {
      throw new TypeError(`signature must be 64 bytes in base58, got ${JSON.stringify(signature)}`);
    }
    const finality: Finality = this.commitment === "finalized" ? "finalized" : "confirmed";
    let response: Awaited<ReturnType<Connection["getTransaction"]>>;
    try {
      response = await this.connection.getTransaction(signature, {
        commitment: finality,
        maxSupportedTransactionVersion: 0,
      });
    } catch (error) {
      throw new ChainUnavailableError("getTransaction", error);
    }
    if (!response) {
      return null;
    }
    return {
      signature,
      slot: response.slot,
      blockTime: response.blockTime ?? null,
      err: response.meta?.err ?? null,
      fee: response.meta?.fee ?? 0,
      logs: response.meta?.logMessages ?? [],
    };
  }
}
