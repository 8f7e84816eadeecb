/**
 * Reading a commitment account straight from a Solana JSON-RPC endpoint, without the memory API
 * (docs/protocol.md §6: a CLI reads the commitment account straight from a chain RPC): one
 * `getAccountInfo` call, with the PDA derivation (`["commitment", owner]`) and the 121-byte
 * account layout taken from `@verifiable-memory/commitment-account`, the one codec (docs/protocol.md
 * §7).
 * @module
 */

import {
  decodeCommitment,
  findCommitmentAddress,
  InvalidCommitmentDataError,
} from "@verifiable-memory/commitment-account";
import { toHex } from "@verifiable-memory/merkle-log";
import { base64Bytes } from "./base64.js";

/** A commitment account as read from the chain. */
export interface OnChainCommitment {
  /** The account address (the PDA), base58. */
  readonly account: string;
  /** The program that owns the account, base58. */
  readonly programId: string;
  /** The key allowed to commit, base58. */
  readonly authority: string;
  /** The wallet whose log is committed, base58. */
  readonly owner: string;
  /** The committed Merkle root, lowercase hex. */
  readonly root: string;
  /** Tree size of the committed root. */
  readonly memoryCount: number;
  /** Number of commits so far. */
  readonly nonce: number;
}

/** The chain RPC could not be read (network, HTTP or JSON-RPC error): the result is unknown. */
export class ChainReadError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "ChainReadError";
  }
}

/** Account data that is not a commitment account (wrong size, discriminator or program). */
export class InvalidAccountError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "InvalidAccountError";
  }
}

/**
 * The commitment PDA of `owner` under `programId`: `findProgramAddress(["commitment", owner
 * bytes], programId)` (docs/protocol.md §7).
 * @param owner base58 wallet public key.
 * @param programId base58 program id.
 * @returns the address, base58.
 * @throws TypeError naming the argument that is not base58 of 32 bytes.
 */
export function commitmentAddress(owner: string, programId: string): string {
  return findCommitmentAddress(owner, programId).address;
}

/**
 * Decodes commitment account data (docs/protocol.md §7).
 * @throws InvalidAccountError on a wrong size or discriminator, or a count/nonce above 2^53 - 1.
 */
export function decodeCommitmentAccount(
  data: Uint8Array,
  account: string,
  programId: string,
): OnChainCommitment {
  let decoded: ReturnType<typeof decodeCommitment>;
  try {
    decoded = decodeCommitment(data);
  } catch (error) {
    if (error instanceof InvalidCommitmentDataError) {
      throw new InvalidAccountError(error.message);
    }
    throw error;
  }
  const max = BigInt(Number.MAX_SAFE_INTEGER);
  if (decoded.memoryCount > max || decoded.nonce > max) {
    throw new InvalidAccountError("memoryCount or nonce exceeds 2^53 - 1");
  }
  return {
    account,
    programId,
    authority: decoded.authority,
    owner: decoded.owner,
    root: toHex(decoded.root),
    memoryCount: Number(decoded.memoryCount),
    nonce: Number(decoded.nonce),
  };
}

/** Options of {@link readCommitmentAccount}. */
export interface ReadAccountOptions {
  /** RPC commitment level of the read; default "confirmed". */
  readonly commitment?: "processed" | "confirmed" | "finalized";
  /** fetch implementation (default the global fetch). */
  readonly fetch?: typeof fetch;
  /** Request timeout in ms; default 15 000. */
  readonly timeoutMs?: number;
}

/** Raw account data read by {@link readAccountData}: the owning program and the bytes. */
export interface AccountData {
  /** The program that owns the account, base58. */
  readonly owner: string;
  readonly data: Uint8Array;
}

/**
 * Reads the account at `account` with one JSON-RPC `getAccountInfo` (base64 encoding), without
 * decoding it.
 * @returns its owner program and data, or null when no account exists at that address.
 * @throws ChainReadError when the RPC cannot be reached or answers with an error (unknown, never
 *   "absent"), or answers data that is not base64.
 */
export async function readAccountData(
  rpcUrl: string,
  account: string,
  options: ReadAccountOptions = {},
): Promise<AccountData | null> {
  const fetchImpl = options.fetch ?? fetch;
  let body: unknown;
  try {
    const res = await fetchImpl(rpcUrl, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "getAccountInfo",
        params: [account, { encoding: "base64", commitment: options.commitment ?? "confirmed" }],
      }),
      signal: AbortSignal.timeout(options.timeoutMs ?? 15_000),
    });
    if (!res.ok) {
      throw new ChainReadError(`RPC answered HTTP ${res.status}`);
    }
    body = await res.json();
  } catch (error) {
    if (error instanceof ChainReadError) {
      throw error;
    }
    throw new ChainReadError(`RPC request failed: ${(error as Error).message}`, { cause: error });
  }
  const reply = body as {
    error?: { message?: string };
    result?: { value: { data: [string, string]; owner: string } | null };
  };
  if (reply.error || !reply.result) {
    throw new ChainReadError(`RPC error: ${reply.error?.message ?? "no result"}`);
  }
  const value = reply.result.value;
  if (value === null) {
    return null;
  }
  try {
    return { owner: value.owner, data: base64Bytes(value.data[0]) };
  } catch {
    throw new ChainReadError("RPC answered account data that is not base64");
  }
}

/**
 * Reads and decodes the commitment account at `account` with one JSON-RPC `getAccountInfo`
 * (base64 encoding).
 * @returns the decoded account, or null when no account exists at that address.
 * @throws ChainReadError when the RPC cannot be reached or answers with an error (unknown, never
 *   "absent").
 * @throws InvalidAccountError when the account is not owned by `programId` or is not a
 *   commitment account.
 */
export async function readCommitmentAccount(
  rpcUrl: string,
  account: string,
  programId: string,
  options: ReadAccountOptions = {},
): Promise<OnChainCommitment | null> {
  const value = await readAccountData(rpcUrl, account, options);
  if (value === null) {
    return null;
  }
  if (value.owner !== programId) {
    throw new InvalidAccountError(`account is owned by ${value.owner}, not by ${programId}`);
  }
  return decodeCommitmentAccount(value.data, account, programId);
}
