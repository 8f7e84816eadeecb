/**
 * Batched commits: many owners' commitments updated by `commit_many` in as few legacy
 * transactions as fit (each at most {@link MAX_LEGACY_TRANSACTION_BYTES}), an owner without an
 * account initialized in the same transaction. The program refuses the whole transaction for one
 * bad entry and names it in the logs; that owner gets its own error and the rest is sent again.
 * Source: docs/protocol.md §7.2 "Instructions" (commit_many), §7.4 "The chain client".
 * @module
 */

import {
  type Commitment,
  type Connection,
  PublicKey,
  Transaction,
  type TransactionInstruction,
} from "@solana/web3.js";
import {
  createCommitManyInstruction,
  createInitializeInstruction,
  refusedCommitEntry,
} from "@verifiable-memory/commitment-program";
import {
  ChainUnavailableError,
  ConfirmationTimeoutError,
  TransactionFailedError,
} from "./errors.js";
import { customCode } from "./rpc.js";
import { type SignedTransaction, sendAndConfirm } from "./send.js";

/** Largest legacy transaction on the wire (packet data 1 280 − 48 bytes of headers). */
export const MAX_LEGACY_TRANSACTION_BYTES = 1232;
/** Accounts per getMultipleAccounts call. */
const READ_CHUNK = 100;
/** Any 32 bytes stand in for the blockhash when a transaction's size is measured. */
const SIZE_BLOCKHASH = PublicKey.default.toBase58();

/** One owner's commit in a batch. */
export interface BatchCommitRequest {
  /** The owner's wallet, base58. */
  readonly owner: string;
  /** 32-byte Merkle root. */
  readonly root: Uint8Array;
  /** Leaves covered by `root`. */
  readonly memoryCount: number;
  /** The account's nonce (0 before the first commit). */
  readonly expectedNonce: number;
}

/**
 * What happened to one owner: `confirmed` (its signature is shared with the other owners of its
 * transaction); `failed`, nothing landed for it (refused by the program or the cluster, or never
 * sent); `unknown`, sent but not confirmed (timeout, or the RPC failed after sending).
 */
export type BatchCommitOutcome =
  | {
      readonly owner: string;
      readonly status: "confirmed";
      readonly signature: string;
      readonly slot: number;
      /** The account's nonce after the commit (`expectedNonce + 1`). */
      readonly nonce: number;
    }
  | { readonly owner: string; readonly status: "failed" | "unknown"; readonly error: Error };

/** What the batch needs from the chain client. */
export interface BatchContext {
  readonly program: PublicKey;
  readonly authority: PublicKey;
  readonly connection: Connection;
  readonly commitment: Commitment;
  readonly confirmTimeoutMs: number;
  readonly attempts: number;
  addressOf(owner: PublicKey): PublicKey;
  /** Signs `instructions` with the authority (a fresh blockhash when `attempt > 1`). */
  sign(instructions: TransactionInstruction[], attempt: number): Promise<SignedTransaction>;
  /** The error of one owner refused with program error `code` (in its initialize or its entry). */
  entryError(code: number, initialize: boolean, request: BatchCommitRequest): Error;
  /** The error of a whole transaction refused by the cluster. */
  transactionError(err: unknown, signature: string | null, logs: readonly string[]): Error;
}

interface Item {
  readonly request: BatchCommitRequest;
  readonly owner: PublicKey;
  readonly address: PublicKey;
  readonly initialize: boolean;
}

class Refusal extends Error {
  constructor(
    readonly err: unknown,
    readonly signature: string | null,
    readonly logs: readonly string[],
  ) {
    super("refused");
  }
}

/**
 * Commits every request, as many owners per legacy transaction as fit, `concurrency`
 * transactions at a time. Owners whose `expectedNonce` is 0 are looked up first (one
 * getMultipleAccounts per 100) and initialized in their transaction when they have no account.
 * A transaction refused at preflight for one owner (named by the program's log, or by the
 * failing initialize) is sent again without that owner.
 * @returns one outcome per request, in request order.
 * @throws RangeError for duplicate owners or malformed requests; ChainUnavailableError when the
 *   account lookup fails (nothing was sent).
 */
export async function commitBatch(
  ctx: BatchContext,
  requests: readonly BatchCommitRequest[],
  concurrency: number,
): Promise<BatchCommitOutcome[]> {
  const seen = new Set<string>();
  for (const request of requests) {
    if (seen.has(request.owner)) {
      throw new RangeError(`owner ${request.owner} appears twice in one batch`);
    }
    seen.add(request.owner);
    if (!(request.root instanceof Uint8Array) || request.root.length !== 32) {
      throw new RangeError(`root of ${request.owner} must be 32 bytes`);
    }
    for (const [name, value] of [
      ["memoryCount", request.memoryCount],
      ["expectedNonce", request.expectedNonce],
    ] as const) {
      if (!Number.isSafeInteger(value) || value < 0) {
        throw new RangeError(`${name} of ${request.owner} must be an integer in 0..2^53-1`);
      }
    }
  }
  const items = await withInitialization(
    ctx,
    requests.map((request) => {
      const owner = new PublicKey(request.owner);
      return { request, owner, address: ctx.addressOf(owner), initialize: false };
    }),
  );
  const outcomes = new Map<string, BatchCommitOutcome>();
  const groups = pack(ctx, items);
  let next = 0;
  const lane = async () => {
    while (next < groups.length) {
      const group = groups[next++] as Item[];
      for (const outcome of await sendGroup(ctx, group)) {
        outcomes.set(outcome.owner, outcome);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, groups.length) }, lane));
  return requests.map((request) => outcomes.get(request.owner) as BatchCommitOutcome);
}

/** Marks the items at nonce 0 whose account does not exist yet as needing `initialize`. */
async function withInitialization(ctx: BatchContext, items: Item[]): Promise<Item[]> {
  const fresh = items.filter((item) => item.request.expectedNonce === 0);
  const missing = new Set<string>();
  for (let i = 0; i < fresh.length; i += READ_CHUNK) {
    const chunk = fresh.slice(i, i + READ_CHUNK);
    let infos: Awaited<ReturnType<Connection["getMultipleAccountsInfo"]>>;
    try {
      infos = await ctx.connection.getMultipleAccountsInfo(
        chunk.map((item) => item.address),
        ctx.commitment,
      );
    } catch (error) {
      throw new ChainUnavailableError("getMultipleAccounts", error);
    }
    chunk.forEach((item, j) => {
      if (!infos[j]) {
        missing.add(item.request.owner);
      }
    });
  }
  return items.map((item) =>
    missing.has(item.request.owner) ? { ...item, initialize: true } : item,
  );
}

/** The instructions of one transaction: the initializations, then one commit_many. */
function instructionsOf(ctx: BatchContext, group: readonly Item[]): TransactionInstruction[] {
  return [
    ...group
      .filter((item) => item.initialize)
      .map((item) =>
        createInitializeInstruction({
          programId: ctx.program,
          authority: ctx.authority,
          owner: item.owner,
          commitment: item.address,
        }),
      ),
    createCommitManyInstruction({
      programId: ctx.program,
      authority: ctx.authority,
      entries: group.map((item) => ({
        commitment: item.address,
        root: item.request.root,
        memoryCount: BigInt(item.request.memoryCount),
        expectedNonce: BigInt(item.request.expectedNonce),
      })),
    }),
  ];
}

/** Wire size of the signed transaction of `group`: one signature, its count, the message. */
function sizeOf(ctx: BatchContext, group: readonly Item[]): number {
  const tx = new Transaction({
    feePayer: ctx.authority,
    blockhash: SIZE_BLOCKHASH,
    lastValidBlockHeight: 0,
  }).add(...instructionsOf(ctx, group));
  return 1 + 64 + tx.serializeMessage().length;
}

/** Splits the items greedily, in order, into groups whose transaction fits a legacy packet. */
function pack(ctx: BatchContext, items: readonly Item[]): Item[][] {
  const groups: Item[][] = [];
  let current: Item[] = [];
  for (const item of items) {
    const candidate = [...current, item];
    if (current.length > 0 && sizeOf(ctx, candidate) > MAX_LEGACY_TRANSACTION_BYTES) {
      groups.push(current);
      current = [item];
    } else {
      current = candidate;
    }
  }
  if (current.length > 0) {
    groups.push(current);
  }
  return groups;
}

/** The item a preflight refusal names, with its code, or null when it names none. */
function culprit(
  refusal: Refusal,
  group: readonly Item[],
): { item: Item; code: number; initialize: boolean } | null {
  const custom = customCode(refusal.err);
  if (!custom) {
    return null;
  }
  const initializing = group.filter((item) => item.initialize);
  if (custom.index < initializing.length) {
    return { item: initializing[custom.index] as Item, code: custom.code, initialize: true };
  }
  const entry = refusedCommitEntry(refusal.logs);
  const item = entry ? group[entry.index] : undefined;
  return item && entry ? { item, code: entry.code, initialize: false } : null;
}

/** Sends one group, dropping each owner the program refuses, until it lands or nobody is left. */
async function sendGroup(ctx: BatchContext, group: readonly Item[]): Promise<BatchCommitOutcome[]> {
  const outcomes: BatchCommitOutcome[] = [];
  let pending = [...group];
  while (pending.length > 0) {
    const instructions = instructionsOf(ctx, pending);
    try {
      const sent = await sendAndConfirm({
        connection: ctx.connection,
        commitment: ctx.commitment,
        confirmTimeoutMs: ctx.confirmTimeoutMs,
        attempts: ctx.attempts,
        sign: (attempt) => ctx.sign(instructions, attempt),
        refused: (err, signature, logs) => new Refusal(err, signature, logs),
        badSignature: (message, logs) => new TransactionFailedError(message, null, logs),
      });
      for (const item of pending) {
        outcomes.push({
          owner: item.request.owner,
          status: "confirmed",
          signature: sent.signature,
          slot: sent.slot,
          nonce: item.request.expectedNonce + 1,
        });
      }
      return outcomes;
    } catch (error) {
      const all = (status: "failed" | "unknown", cause: Error) => {
        for (const item of pending) {
          outcomes.push({ owner: item.request.owner, status, error: cause });
        }
      };
      if (error instanceof Refusal) {
        const named = error.signature === null ? culprit(error, pending) : null;
        if (named) {
          outcomes.push({
            owner: named.item.request.owner,
            status: "failed",
            error: ctx.entryError(named.code, named.initialize, named.item.request),
          });
          pending = pending.filter((item) => item !== named.item);
          continue;
        }
        all("failed", ctx.transactionError(error.err, error.signature, error.logs));
      } else if (
        error instanceof ConfirmationTimeoutError ||
        (error instanceof ChainUnavailableError && error.signature !== null)
      ) {
        all("unknown", error);
      } else {
        all("failed", error as Error);
      }
      return outcomes;
    }
  }
  return outcomes;
}
