/**
 * JSON-RPC 2.0 errors with the codes and texts a Solana RPC node uses, so that @solana/web3.js
 * (`SendTransactionError`, `SolanaJSONRPCError`) and Anchor (`translateError`) read them as they
 * read a cluster's.
 * Source: JSON-RPC 2.0 §5.1; agave `rpc-client-api/src/custom_error.rs`.
 * @module
 */

import type { ClusterTransactionError } from "./tx-error.js";

/** Error codes used by the local chain. */
export const RpcErrorCode = Object.freeze({
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internalError: -32603,
  /** SendTransactionPreflightFailure. */
  preflightFailure: -32002,
  /** TransactionSignatureVerificationFailure. */
  signatureVerificationFailure: -32003,
  /** NodeUnhealthy. */
  nodeUnhealthy: -32005,
  /** MinContextSlotNotReached. */
  minContextSlotNotReached: -32016,
} as const);

/** A JSON-RPC error object `{ code, message, data? }`. */
export class RpcError extends Error {
  override readonly name = "RpcError";

  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }

  /** The `error` member of a JSON-RPC response. */
  toJSON(): { code: number; message: string; data?: unknown } {
    return this.data === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, data: this.data };
  }
}

/**
 * The `-32002` error of a transaction whose preflight simulation failed: message
 * "Transaction simulation failed: <display>", data = the simulation result (err, logs, …).
 * Source: agave `rpc.rs` `send_transaction` (RpcCustomError::SendTransactionPreflightFailure).
 */
export function preflightFailure(
  error: ClusterTransactionError,
  logs: readonly string[],
  unitsConsumed: number,
): RpcError {
  return new RpcError(
    RpcErrorCode.preflightFailure,
    `Transaction simulation failed: ${error.display}`,
    {
      err: error.json,
      logs,
      accounts: null,
      unitsConsumed,
      returnData: null,
      innerInstructions: null,
      replacementBlockhash: null,
    },
  );
}

/** `-32602 Invalid params: <detail>`. */
export function invalidParams(detail: string): RpcError {
  return new RpcError(RpcErrorCode.invalidParams, `Invalid params: ${detail}`);
}
