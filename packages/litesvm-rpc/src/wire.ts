/**
 * Wire transactions as the JSON-RPC front receives them: decoding (base64 / base58), the
 * structural checks a cluster's RPC node applies before execution (canonical encoding, signature
 * count), the writable account set, the fee, and ed25519 signature verification with node:crypto
 * (litesvm 0.8.0 would verify in JavaScript at about 1.2 ms per transaction; node:crypto takes
 * about 60 µs).
 * Source: Solana transaction wire format (compact-u16 signature count, signatures, message; legacy
 * and v0 messages); agave `rpc.rs` `decode_and_deserialize` / `verify_transaction`; agave
 * `fee` (5 000 lamports per signature plus the compute-unit price × limit).
 * @module
 */

import { createPublicKey, type KeyObject, verify } from "node:crypto";
import {
  ComputeBudgetProgram,
  type PublicKey,
  type VersionedMessage,
  VersionedTransaction,
} from "@solana/web3.js";
import bs58 from "bs58";

/** Largest serialized transaction a cluster accepts (IPv6 MTU minus headers). */
export const PACKET_DATA_SIZE = 1232;

/** Base fee per signature, in lamports (litesvm and cluster default). */
export const LAMPORTS_PER_SIGNATURE = 5000;

/** Default compute-unit limit per non-compute-budget instruction. */
const DEFAULT_INSTRUCTION_COMPUTE_UNIT_LIMIT = 200_000;
/** Compute-unit limit ceiling per transaction. */
const MAX_COMPUTE_UNIT_LIMIT = 1_400_000n;

/** Bytes that are not a well-formed transaction (JSON-RPC -32602 on a cluster). */
export class MalformedTransactionError extends Error {
  override readonly name = "MalformedTransactionError";
}

/** A decoded wire transaction. */
export interface WireTransaction {
  /** The exact bytes received. */
  readonly bytes: Uint8Array;
  /** web3.js view of the same bytes (what litesvm executes). */
  readonly tx: VersionedTransaction;
  /** The signed message bytes. */
  readonly message: Uint8Array;
  /** First signature, base58: the transaction id. */
  readonly signature: string;
  /** Static account keys of the message, in order. */
  readonly accountKeys: readonly PublicKey[];
  /** Indexes into `accountKeys` of the accounts the message marks writable. */
  readonly writableIndexes: readonly number[];
  readonly version: "legacy" | 0;
}

/**
 * Decodes `encoded` (`base64` or `base58`, the `sendTransaction` encodings) into bytes.
 * @throws MalformedTransactionError on an invalid encoding or an oversized transaction.
 */
export function decodeWire(encoded: string, encoding: "base64" | "base58"): Uint8Array {
  let bytes: Uint8Array;
  if (encoding === "base64") {
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(encoded)) {
      throw new MalformedTransactionError("invalid base64 encoding");
    }
    bytes = Buffer.from(encoded, "base64");
  } else {
    try {
      bytes = bs58.decode(encoded);
    } catch {
      throw new MalformedTransactionError("invalid base58 encoding");
    }
  }
  if (bytes.length > PACKET_DATA_SIZE) {
    throw new MalformedTransactionError(
      `encoded solana_transaction::versioned::VersionedTransaction too large: ${bytes.length} bytes (max: ${PACKET_DATA_SIZE} bytes)`,
    );
  }
  return bytes;
}

/**
 * Parses a serialized transaction and applies the structural checks of a cluster's RPC node:
 * the bytes must re-serialize identically (no trailing or non-canonical bytes), the signature
 * count must equal the header's `numRequiredSignatures`, and v0 address-table lookups are refused
 * (the local chain keeps no lookup tables).
 * @throws MalformedTransactionError with the reason.
 */
export function parseWire(bytes: Uint8Array): WireTransaction {
  let tx: VersionedTransaction;
  try {
    tx = VersionedTransaction.deserialize(bytes);
  } catch (error) {
    throw new MalformedTransactionError(
      `failed to deserialize solana_transaction::versioned::VersionedTransaction: ${(error as Error).message}`,
    );
  }
  const reserialized = tx.serialize();
  if (Buffer.compare(Buffer.from(reserialized), Buffer.from(bytes)) !== 0) {
    throw new MalformedTransactionError("transaction bytes are not in canonical form");
  }
  const msg = tx.message;
  const header = msg.header;
  const keys = msg.staticAccountKeys;
  if (
    tx.signatures.length === 0 ||
    tx.signatures.length !== header.numRequiredSignatures ||
    header.numRequiredSignatures > keys.length ||
    header.numReadonlySignedAccounts >= header.numRequiredSignatures ||
    header.numReadonlyUnsignedAccounts > keys.length - header.numRequiredSignatures
  ) {
    throw new MalformedTransactionError(
      "invalid transaction: Transaction failed to sanitize accounts offsets correctly",
    );
  }
  if (msg.addressTableLookups.length > 0) {
    throw new MalformedTransactionError(
      "invalid transaction: address lookup tables are not supported by the local chain",
    );
  }
  const signatureBytes = tx.signatures[0] as Uint8Array;
  const count = tx.signatures.length;
  const messageOffset = (count < 0x80 ? 1 : count < 0x4000 ? 2 : 3) + 64 * count;
  const writableIndexes: number[] = [];
  const signedWritable = header.numRequiredSignatures - header.numReadonlySignedAccounts;
  const unsignedWritableEnd = keys.length - header.numReadonlyUnsignedAccounts;
  for (let i = 0; i < keys.length; i++) {
    if (i < signedWritable || (i >= header.numRequiredSignatures && i < unsignedWritableEnd)) {
      writableIndexes.push(i);
    }
  }
  return {
    bytes,
    tx,
    message: bytes.subarray(messageOffset),
    signature: bs58.encode(signatureBytes),
    accountKeys: keys,
    writableIndexes,
    version: msg.version === 0 ? 0 : "legacy",
  };
}

const keyCache = new Map<string, KeyObject>();
const KEY_CACHE_LIMIT = 10_000;

function publicKeyObject(key: PublicKey): KeyObject {
  const id = key.toBase58();
  let object = keyCache.get(id);
  if (!object) {
    if (keyCache.size >= KEY_CACHE_LIMIT) {
      keyCache.clear();
    }
    object = createPublicKey({
      key: { kty: "OKP", crv: "Ed25519", x: key.toBuffer().toString("base64url") },
      format: "jwk",
    });
    keyCache.set(id, object);
  }
  return object;
}

/**
 * Verifies every signature of `wire` against its signer key (ed25519 over the message bytes,
 * RFC 8032) with node:crypto.
 * @returns false when any signature does not verify (or a key is not a valid curve point).
 * Source: agave `VersionedTransaction::verify_with_results`.
 */
export function verifySignatures(wire: WireTransaction): boolean {
  return wire.tx.signatures.every((signature, i) => {
    const key = wire.accountKeys[i];
    if (!key) {
      return false;
    }
    try {
      return verify(null, wire.message, publicKeyObject(key), signature);
    } catch {
      return false;
    }
  });
}

/**
 * The fee a cluster charges for `message`: 5 000 lamports per signature plus the priority fee
 * `ceil(microLamportsPerCU × computeUnitLimit / 10^6)` set by ComputeBudget instructions.
 * Source: agave `fee` crate and `compute-budget-instruction` (default limit 200 000 CU per
 * non-compute-budget instruction, capped at 1 400 000).
 */
export function messageFee(message: VersionedMessage): number {
  const budgetId = ComputeBudgetProgram.programId;
  const keys = message.staticAccountKeys;
  let price = 0n;
  let limit: bigint | null = null;
  let otherInstructions = 0;
  for (const ix of message.compiledInstructions) {
    if (!keys[ix.programIdIndex]?.equals(budgetId)) {
      otherInstructions++;
      continue;
    }
    const data = Buffer.from(ix.data);
    if (data[0] === 2 && data.length >= 5) {
      limit = BigInt(data.readUInt32LE(1));
    } else if (data[0] === 3 && data.length >= 9) {
      price = data.readBigUInt64LE(1);
    }
  }
  const requested = limit ?? BigInt(otherInstructions * DEFAULT_INSTRUCTION_COMPUTE_UNIT_LIMIT);
  const units = requested < MAX_COMPUTE_UNIT_LIMIT ? requested : MAX_COMPUTE_UNIT_LIMIT;
  const priority = (price * units + 999_999n) / 1_000_000n;
  return message.header.numRequiredSignatures * LAMPORTS_PER_SIGNATURE + Number(priority);
}
