/**
 * Typed errors of the chain client. Every one extends {@link ChainError} and carries a stable
 * snake_case `code`, so apps map them at their edge (docs/protocol.md §1: 503 `chain_unavailable`) and the
 * anchor service tells a lost nonce race from an unreachable chain.
 * Source: docs/protocol.md §7 ("a failed chain read is unknown, never zero"), docs/protocol.md §1; program error
 * codes 6000–6002 (programs/commitment/idl/commitment.json).
 * @module
 */

/** Base class of every error this package throws for a chain condition. */
export class ChainError extends Error {
  constructor(
    /** Stable snake_case identifier, e.g. "chain_unavailable". */
    readonly code: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = new.target.name;
  }
}

/**
 * The RPC endpoint could not be reached or answered with an error, so the outcome is unknown
 * (never read as "absent" or zero). `signature` is set when a transaction may have been
 * submitted before the failure: check it later with `getTransaction`.
 */
export class ChainUnavailableError extends ChainError {
  constructor(
    /** The RPC operation that failed, e.g. "getAccountInfo". */
    readonly operation: string,
    cause: unknown,
    readonly signature: string | null = null,
  ) {
    super(
      "chain_unavailable",
      `chain RPC ${operation} failed: ${cause instanceof Error ? cause.message : String(cause)}`,
      { cause },
    );
  }
}

/**
 * The commitment's stored nonce is not `expectedNonce` (program error 6002), or another
 * committer created the account first: someone else committed in between. Re-read and retry.
 */
export class NonceRaceError extends ChainError {
  constructor(
    readonly owner: string,
    readonly expectedNonce: number,
  ) {
    super(
      "nonce_race",
      `commitment of ${owner} moved past nonce ${expectedNonce} (another committer won)`,
    );
  }
}

/** The new memory count is below the stored one (program error 6001); the log must not shrink. */
export class CountDecreasedError extends ChainError {
  constructor(
    readonly owner: string,
    readonly memoryCount: number,
  ) {
    super("count_decreased", `memory count ${memoryCount} is below the stored count of ${owner}`);
  }
}

/**
 * The memory count equals the stored one but the root differs (program error 6016): the log was
 * rewritten at that size, which the program never anchors.
 */
export class RootMismatchError extends ChainError {
  constructor(
    readonly owner: string,
    readonly memoryCount: number,
  ) {
    super(
      "root_mismatch",
      `a different root at the stored memory count ${memoryCount} of ${owner}`,
    );
  }
}

/** The signer is not the commitment's stored authority (program error 6000). */
export class UnauthorizedAuthorityError extends ChainError {
  constructor(
    readonly owner: string,
    readonly authority: string,
  ) {
    super("unauthorized_authority", `${authority} is not the commitment authority of ${owner}`);
  }
}

/** The transaction was sent but not confirmed in time; its outcome is unknown. */
export class ConfirmationTimeoutError extends ChainError {
  constructor(
    readonly signature: string,
    readonly timeoutMs: number,
    cause?: unknown,
  ) {
    super("confirmation_timeout", `transaction ${signature} not confirmed within ${timeoutMs} ms`, {
      cause,
    });
  }
}

/** The authority cannot pay the fee or the new account's rent. */
export class InsufficientFundsError extends ChainError {
  constructor(
    readonly authority: string,
    detail: string,
  ) {
    super("insufficient_funds", `authority ${authority} has insufficient funds: ${detail}`);
  }
}

/** The chain refused or failed the transaction for a reason with no dedicated error. */
export class TransactionFailedError extends ChainError {
  constructor(
    /** Cluster JSON form of the error (e.g. `{ InstructionError: [0, { Custom: 6003 }] }`) or its text. */
    readonly err: unknown,
    readonly signature: string | null,
    readonly logs: readonly string[] = [],
  ) {
    super(
      "transaction_failed",
      `transaction ${signature ?? "(not landed)"} failed: ${typeof err === "string" ? err : JSON.stringify(err)}`,
    );
  }
}

/** Data that is not a commitment account of this program (wrong size, discriminator or owner). */
export class InvalidCommitmentAccountError extends ChainError {
  constructor(
    reason: string,
    /** The account's address, when known. */
    readonly address: string | null = null,
  ) {
    super(
      "invalid_commitment_account",
      `${address ? `account ${address}` : "data"} is not a commitment account: ${reason}`,
    );
  }
}

/** A Solana CLI keypair file that cannot be read or does not hold a valid keypair. */
export class KeypairFileError extends ChainError {
  constructor(
    readonly path: string,
    reason: string,
    cause?: unknown,
  ) {
    super("invalid_keypair_file", `keypair file ${path}: ${reason}`, { cause });
  }
}
