/**
 * Sending a transaction and waiting for it, the one loop both chain clients use: send with
 * preflight (the RPC node simulates it first, so a refusal costs no fee), retry with a freshly
 * signed transaction while the node does not know the blockhash (when the caller can sign again),
 * then poll `getSignatureStatuses` with exponential back-off until the configured commitment, a
 * transaction error, or a deadline. Source: Solana JSON-RPC `sendTransaction` and
 * `getSignatureStatuses`; agave `TransactionError` Display texts (rpc.ts).
 * @module
 */
import {
  type Commitment,
  type Connection,
  SendTransactionError,
  type SignatureStatus,
} from "@solana/web3.js";
import { ChainUnavailableError, ConfirmationTimeoutError } from "./errors.js";
import { errorFromPreflightMessage, reachedCommitment } from "./rpc.js";

/** First delay between two status polls, in milliseconds (doubled after each). */
const POLL_MIN_MS = 100;
/** Longest delay between two status polls, in milliseconds. */
const POLL_MAX_MS = 1000;

/** A signed transaction: its wire bytes and its signature (base58). */
export interface SignedTransaction {
  readonly wire: Uint8Array;
  readonly signature: string;
}

/** What {@link sendAndConfirm} needs. */
export interface SendAndConfirmOptions {
  readonly connection: Connection;
  /** Preflight commitment, and the commitment the signature status must reach. */
  readonly commitment: Commitment;
  /** How long to poll before ConfirmationTimeoutError, in milliseconds. */
  readonly confirmTimeoutMs: number;
  /**
   * The transaction of attempt `attempt` (1, 2, …): a caller that can sign again signs each
   * attempt with a fresh blockhash (`attempt > 1`).
   */
  readonly sign: (attempt: number) => SignedTransaction | Promise<SignedTransaction>;
  /** Attempts while preflight answers BlockhashNotFound; 1 when the caller cannot sign again. */
  readonly attempts: number;
  /**
   * The error to throw for a cluster transaction error (`err`, e.g.
   * `{ InstructionError: [0, { Custom: 6002 }] }` or `"InsufficientFundsForFee"`), at preflight
   * (`signature` null, with the simulation's logs) or once sent (the signature, no logs).
   */
  readonly refused: (err: unknown, signature: string | null, logs: readonly string[]) => Error;
  /** The error to throw when preflight fails because a signature does not verify. */
  readonly badSignature: (message: string, logs: readonly string[]) => Error;
}

/**
 * Sends the transaction `options.sign` gives with preflight, then polls its status until it
 * reaches `options.commitment`. Preflight's BlockhashNotFound is retried with the next attempt's
 * transaction (up to `options.attempts`); AlreadyProcessed counts as sent.
 * @returns the signature and the slot its status reported.
 * @throws what `options.refused` or `options.badSignature` give for a refusal;
 *   ConfirmationTimeoutError when sent but not confirmed in time; ChainUnavailableError when the
 *   RPC fails (and errors `options.sign` throws).
 */
export async function sendAndConfirm(
  options: SendAndConfirmOptions,
): Promise<{ signature: string; slot: number }> {
  const { connection, commitment } = options;
  for (let attempt = 1; ; attempt++) {
    const { wire, signature } = await options.sign(attempt);
    try {
      await connection.sendRawTransaction(wire, {
        skipPreflight: false,
        preflightCommitment: commitment,
      });
    } catch (error) {
      if (!(error instanceof SendTransactionError)) {
        throw new ChainUnavailableError("sendTransaction", error, signature);
      }
      const message = error.transactionError.message;
      const err = errorFromPreflightMessage(message);
      if (err === null) {
        if (/signature verification/i.test(message)) {
          throw options.badSignature(message, error.logs ?? []);
        }
        throw new ChainUnavailableError("sendTransaction", error, signature);
      }
      if (err === "BlockhashNotFound" && attempt < options.attempts) {
        continue;
      }
      if (err !== "AlreadyProcessed") {
        throw options.refused(err, null, error.logs ?? []);
      }
    }
    return confirm(options, signature);
  }
}

/** Polls the signature's status until it reaches the commitment, fails, or the deadline passes. */
async function confirm(
  options: SendAndConfirmOptions,
  signature: string,
): Promise<{ signature: string; slot: number }> {
  const deadline = Date.now() + options.confirmTimeoutMs;
  let delay = POLL_MIN_MS;
  let lastError: unknown;
  for (;;) {
    let status: SignatureStatus | null = null;
    try {
      status = (await options.connection.getSignatureStatuses([signature])).value[0] ?? null;
    } catch (error) {
      lastError = error;
    }
    if (status?.err) {
      throw options.refused(status.err, signature, []);
    }
    if (status && reachedCommitment(options.commitment, status.confirmationStatus)) {
      return { signature, slot: status.slot };
    }
    const remaining = deadline - Date.now();
    if (remaining <= 0) {
      throw new ConfirmationTimeoutError(signature, options.confirmTimeoutMs, lastError);
    }
    await new Promise((resolve) => setTimeout(resolve, Math.min(delay, remaining)));
    delay = Math.min(delay * 2, POLL_MAX_MS);
  }
}
