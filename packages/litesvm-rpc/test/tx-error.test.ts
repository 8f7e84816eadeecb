/**
 * Transaction error conversion: the name tables follow litesvm 0.8.0's enum order (read from its
 * type declarations), and real failures convert to the cluster's JSON and text forms.
 * Source: litesvm 0.8.0 dist/internal.d.ts; agave TransactionError / InstructionError.
 * @module
 */

import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { Keypair, SystemProgram, Transaction } from "@solana/web3.js";
import { FailedTransactionMetadata, LiteSVM } from "litesvm";
import { describe, expect, it } from "vitest";
import { INSTRUCTION_ERRORS, TRANSACTION_ERRORS, toClusterError } from "../src/tx-error.js";

function enumNames(source: string, name: string): string[] {
  const body = new RegExp(`export declare const enum ${name} \\{([^}]*)\\}`).exec(source)?.[1];
  return (body ?? "")
    .split(",")
    .map((member) => member.trim().split(" = "))
    .filter((parts) => parts.length === 2)
    .map(([member]) => member as string);
}

function failed(svm: LiteSVM, tx: Transaction): FailedTransactionMetadata {
  const result = svm.sendTransaction(tx);
  if (!(result instanceof FailedTransactionMetadata)) {
    throw new Error("expected a failure");
  }
  return result;
}

describe("error tables", () => {
  const require = createRequire(import.meta.url);
  const declarations = readFileSync(
    join(dirname(require.resolve("litesvm")), "internal.d.ts"),
    "utf8",
  );

  it("list TransactionErrorFieldless and InstructionErrorFieldless in litesvm's order", () => {
    expect(TRANSACTION_ERRORS.map(([name]) => name)).toEqual(
      enumNames(declarations, "TransactionErrorFieldless"),
    );
    expect(INSTRUCTION_ERRORS.map(([name]) => name)).toEqual(
      enumNames(declarations, "InstructionErrorFieldless"),
    );
  });
});

describe("toClusterError", () => {
  const svm = new LiteSVM();
  const payer = Keypair.generate();
  svm.airdrop(payer.publicKey, 1_000_000_000n);

  function transfer(from: Keypair, lamports: number): Transaction {
    const tx = new Transaction().add(
      SystemProgram.transfer({
        fromPubkey: from.publicKey,
        toPubkey: Keypair.generate().publicKey,
        lamports,
      }),
    );
    tx.feePayer = from.publicKey;
    tx.recentBlockhash = svm.latestBlockhash();
    tx.sign(from);
    return tx;
  }

  it("converts a custom instruction error", () => {
    expect(toClusterError(failed(svm, transfer(payer, 5_000_000_000)))).toEqual({
      json: { InstructionError: [0, { Custom: 1 }] },
      display: "Error processing Instruction 0: custom program error: 0x1",
    });
  });

  it("converts a fieldless transaction error", () => {
    expect(toClusterError(failed(svm, transfer(Keypair.generate(), 1_000_000)))).toEqual({
      json: "AccountNotFound",
      display: "Attempt to debit an account but found no record of a prior credit.",
    });
  });

  it("converts a rent error with its account index", () => {
    expect(toClusterError(failed(svm, transfer(payer, 10)))).toEqual({
      json: { InsufficientFundsForRent: { account_index: 1 } },
      display: "Transaction results in an account (1) with insufficient funds for rent",
    });
  });
});
