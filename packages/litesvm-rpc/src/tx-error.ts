/**
 * Transaction errors in the shapes a Solana cluster gives them: the JSON form of
 * `UiTransactionError` (what `getSignatureStatuses`, `getTransaction` and the `-32002` preflight
 * error carry in `err`) and the `Display` text (what the preflight error message says, e.g.
 * "Error processing Instruction 0: custom program error: 0x1771"), built from litesvm 0.8.0's
 * `FailedTransactionMetadata.err()`.
 * Source: agave `transaction-error` and `instruction-error` crates (serde externally tagged enums,
 * thiserror messages); litesvm 0.8.0 `dist/internal.d.ts` (enum order).
 * @module
 */

import type { FailedTransactionMetadata } from "litesvm";

/** JSON form of a transaction error, e.g. `"BlockhashNotFound"` or `{ InstructionError: [0, { Custom: 6001 }] }`. */
export type TransactionErrorJson = string | Record<string, unknown>;

/** A transaction error in both of the cluster's forms. */
export interface ClusterTransactionError {
  /** Serde JSON form, as in `getSignatureStatuses().value[i].err`. */
  readonly json: TransactionErrorJson;
  /** Display text, as in "Transaction simulation failed: <display>". */
  readonly display: string;
}

/** litesvm's `TransactionErrorFieldless` names in declaration order (value = index), with agave's text. */
export const TRANSACTION_ERRORS: readonly (readonly [string, string])[] = [
  ["AccountInUse", "Account in use"],
  ["AccountLoadedTwice", "Account loaded twice"],
  ["AccountNotFound", "Attempt to debit an account but found no record of a prior credit."],
  ["ProgramAccountNotFound", "Attempt to load a program that does not exist"],
  ["InsufficientFundsForFee", "Insufficient funds for fee"],
  ["InvalidAccountForFee", "This account may not be used to pay transaction fees"],
  ["AlreadyProcessed", "This transaction has already been processed"],
  ["BlockhashNotFound", "Blockhash not found"],
  ["CallChainTooDeep", "Loader call chain is too deep"],
  ["MissingSignatureForFee", "Transaction requires a fee but has no signature present"],
  ["InvalidAccountIndex", "Transaction contains an invalid account reference"],
  ["SignatureFailure", "Transaction did not pass signature verification"],
  ["InvalidProgramForExecution", "This program may not be used for executing instructions"],
  ["SanitizeFailure", "Transaction failed to sanitize accounts offsets correctly"],
  ["ClusterMaintenance", "Transactions are currently disabled due to cluster maintenance"],
  [
    "AccountBorrowOutstanding",
    "Transaction processing left an account with an outstanding borrowed reference",
  ],
  ["WouldExceedMaxBlockCostLimit", "Transaction would exceed max Block Cost Limit"],
  ["UnsupportedVersion", "Transaction version is unsupported"],
  ["InvalidWritableAccount", "Transaction loads a writable account that cannot be written"],
  ["WouldExceedMaxAccountCostLimit", "Transaction would exceed max account limit within the block"],
  [
    "WouldExceedAccountDataBlockLimit",
    "Transaction would exceed account data limit within the block",
  ],
  ["TooManyAccountLocks", "Transaction locked too many accounts"],
  ["AddressLookupTableNotFound", "Transaction loads an address table account that doesn't exist"],
  [
    "InvalidAddressLookupTableOwner",
    "Transaction loads an address table account with an invalid owner",
  ],
  ["InvalidAddressLookupTableData", "Transaction loads an address table account with invalid data"],
  ["InvalidAddressLookupTableIndex", "Transaction address table lookup uses an invalid index"],
  [
    "InvalidRentPayingAccount",
    "Transaction leaves an account with a lower balance than rent-exempt minimum",
  ],
  ["WouldExceedMaxVoteCostLimit", "Transaction would exceed max Vote Cost Limit"],
  ["WouldExceedAccountDataTotalLimit", "Transaction would exceed total account data limit"],
  ["MaxLoadedAccountsDataSizeExceeded", "Transaction exceeded max loaded accounts data size cap"],
  ["ResanitizationNeeded", "ResanitizationNeeded"],
  [
    "InvalidLoadedAccountsDataSizeLimit",
    "LoadedAccountsDataSizeLimit set for transaction must be greater than 0.",
  ],
  ["UnbalancedTransaction", "Sum of account balances before and after transaction do not match"],
  ["ProgramCacheHitMaxLimit", "Program cache hit max limit"],
  ["CommitCancelled", "CommitCancelled"],
];

/** litesvm's `InstructionErrorFieldless` names in declaration order, with agave's text. */
export const INSTRUCTION_ERRORS: readonly (readonly [string, string])[] = [
  ["GenericError", "generic instruction error"],
  ["InvalidArgument", "invalid program argument"],
  ["InvalidInstructionData", "invalid instruction data"],
  ["InvalidAccountData", "invalid account data for instruction"],
  ["AccountDataTooSmall", "account data too small for instruction"],
  ["InsufficientFunds", "insufficient funds for instruction"],
  ["IncorrectProgramId", "incorrect program id for instruction"],
  ["MissingRequiredSignature", "missing required signature for instruction"],
  ["AccountAlreadyInitialized", "instruction requires an uninitialized account"],
  ["UninitializedAccount", "instruction requires an initialized account"],
  ["UnbalancedInstruction", "sum of account balances before and after instruction do not match"],
  ["ModifiedProgramId", "instruction illegally modified the program id of an account"],
  [
    "ExternalAccountLamportSpend",
    "instruction spent from the balance of an account it does not own",
  ],
  ["ExternalAccountDataModified", "instruction modified data of an account it does not own"],
  ["ReadonlyLamportChange", "instruction changed the balance of a read-only account"],
  ["ReadonlyDataModified", "instruction modified data of a read-only account"],
  ["DuplicateAccountIndex", "instruction contains duplicate accounts"],
  ["ExecutableModified", "instruction changed executable bit of an account"],
  ["RentEpochModified", "instruction modified rent epoch of an account"],
  ["NotEnoughAccountKeys", "insufficient account keys for instruction"],
  [
    "AccountDataSizeChanged",
    "program other than the account's owner changed the size of the account data",
  ],
  ["AccountNotExecutable", "instruction expected an executable account"],
  [
    "AccountBorrowFailed",
    "instruction tries to borrow reference for an account which is already borrowed",
  ],
  ["AccountBorrowOutstanding", "instruction left account with an outstanding borrowed reference"],
  ["DuplicateAccountOutOfSync", "instruction modifications of multiply-passed account differ"],
  ["InvalidError", "program returned invalid error code"],
  ["ExecutableDataModified", "instruction changed executable accounts data"],
  ["ExecutableLamportChange", "instruction changed the balance of an executable account"],
  ["ExecutableAccountNotRentExempt", "executable accounts must be rent exempt"],
  ["UnsupportedProgramId", "Unsupported program id"],
  ["CallDepth", "Cross-program invocation call depth too deep"],
  ["MissingAccount", "An account required by the instruction is missing"],
  ["ReentrancyNotAllowed", "Cross-program invocation reentrancy not allowed for this instruction"],
  ["MaxSeedLengthExceeded", "Length of the seed is too long for address generation"],
  ["InvalidSeeds", "Provided seeds do not result in a valid address"],
  ["InvalidRealloc", "Failed to reallocate account data"],
  ["ComputationalBudgetExceeded", "Computational budget exceeded"],
  ["PrivilegeEscalation", "Cross-program invocation with unauthorized signer or writable account"],
  ["ProgramEnvironmentSetupFailure", "Failed to create program execution environment"],
  ["ProgramFailedToComplete", "Program failed to complete"],
  ["ProgramFailedToCompile", "Program failed to compile"],
  ["Immutable", "Account is immutable"],
  ["IncorrectAuthority", "Incorrect authority provided"],
  ["AccountNotRentExempt", "An account does not have enough lamports to be rent-exempt"],
  ["InvalidAccountOwner", "Invalid account owner"],
  ["ArithmeticOverflow", "Program arithmetic overflowed"],
  ["UnsupportedSysvar", "Unsupported sysvar"],
  ["IllegalOwner", "Provided owner is not allowed"],
  [
    "MaxAccountsDataAllocationsExceeded",
    "Accounts data allocations exceeded the maximum allowed per transaction",
  ],
  ["MaxAccountsExceeded", "Max accounts exceeded"],
  ["MaxInstructionTraceLengthExceeded", "Max instruction trace length exceeded"],
  ["BuiltinProgramsMustConsumeComputeUnits", "Builtin programs must consume compute units"],
  ["BorshIoError", "Failed to serialize or deserialize account data"],
];

/** A fieldless transaction error by name, e.g. `fieldless("BlockhashNotFound")`. */
export function fieldlessError(name: string): ClusterTransactionError {
  const entry = TRANSACTION_ERRORS.find(([n]) => n === name);
  if (!entry) {
    throw new RangeError(`name must be a fieldless TransactionError, got ${name}`);
  }
  return { json: entry[0], display: entry[1] };
}

function named(
  table: readonly (readonly [string, string])[],
  value: number,
): readonly [string, string] {
  return table[value] ?? [`Unknown(${value})`, `unknown error ${value}`];
}

function instructionError(inner: unknown): { json: unknown; display: string } {
  if (typeof inner === "number") {
    const [name, text] = named(INSTRUCTION_ERRORS, inner);
    return { json: name, display: text };
  }
  if (inner !== null && typeof inner === "object" && "code" in inner) {
    const code = Number((inner as { code: number }).code);
    return { json: { Custom: code }, display: `custom program error: 0x${code.toString(16)}` };
  }
  const msg = String((inner as { msg?: string } | null)?.msg ?? "");
  return {
    json: { BorshIoError: msg },
    display: `Failed to serialize or deserialize account data: ${msg}`,
  };
}

/**
 * Converts litesvm's error of a failed transaction to the cluster's JSON and text forms.
 * @example toClusterError(failed) // { json: { InstructionError: [0, { Custom: 6001 }] },
 *   //   display: "Error processing Instruction 0: custom program error: 0x1771" }
 * Source: agave `TransactionError` / `InstructionError` serde and Display impls.
 */
export function toClusterError(failed: FailedTransactionMetadata): ClusterTransactionError {
  const err: unknown = failed.err();
  if (typeof err === "number") {
    const [name, text] = named(TRANSACTION_ERRORS, err);
    return { json: name, display: text };
  }
  const shape = err as { index?: number; accountIndex?: number; err?: () => unknown };
  const kind = (err as object).constructor.name;
  if (typeof shape.err === "function" && typeof shape.index === "number") {
    const inner = instructionError(shape.err());
    return {
      json: { InstructionError: [shape.index, inner.json] },
      display: `Error processing Instruction ${shape.index}: ${inner.display}`,
    };
  }
  if (kind === "TransactionErrorDuplicateInstruction") {
    return {
      json: { DuplicateInstruction: shape.index },
      display: `Transaction contains a duplicate instruction (${shape.index}) that is not allowed`,
    };
  }
  if (kind === "TransactionErrorInsufficientFundsForRent") {
    return {
      json: { InsufficientFundsForRent: { account_index: shape.accountIndex } },
      display: `Transaction results in an account (${shape.accountIndex}) with insufficient funds for rent`,
    };
  }
  return {
    json: { ProgramExecutionTemporarilyRestricted: { account_index: shape.accountIndex } },
    display: `Execution of the program referenced by account at index ${shape.accountIndex} is temporarily restricted.`,
  };
}
