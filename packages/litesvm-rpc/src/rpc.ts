/**
 * The Solana JSON-RPC 2.0 methods the project uses, answered from a {@link Chain} with the request
 * and response shapes of a cluster's RPC node (`{ context: { slot }, value }` where the node wraps
 * in a context), so @solana/web3.js `Connection` and Anchor work against it unchanged.
 * Methods: getAccountInfo, getMultipleAccounts, getBalance, getLatestBlockhash, isBlockhashValid,
 * sendTransaction, simulateTransaction, getSignatureStatuses, getTransaction,
 * getMinimumBalanceForRentExemption, requestAirdrop, getSlot, getBlockHeight, getHealth,
 * getVersion, getGenesisHash, getEpochInfo, getEpochSchedule, getFeeForMessage,
 * getTransactionCount; and one local-only method, `localnet_warpClock [seconds]` →
 * `{ unixTimestamp, offsetSeconds }`, which moves the chain's clock forward (no cluster has it).
 * Source: Solana RPC HTTP methods (solana.com/docs/rpc/http); agave `rpc.rs`.
 * @module
 */

import { PublicKey, VersionedMessage, VersionedTransaction } from "@solana/web3.js";
import bs58 from "bs58";
import type { Chain } from "./chain.js";
import type { LedgerEntry } from "./ledger.js";
import { invalidParams, RpcError, RpcErrorCode } from "./rpc-error.js";

/** Agave version litesvm 0.8.0 embeds, reported by getVersion. */
export const SOLANA_CORE_VERSION = "3.1.11";

const MAX_MULTIPLE_ACCOUNTS = 100;
const MAX_SIGNATURE_STATUSES = 256;

type Params = readonly unknown[];
type Config = Readonly<Record<string, unknown>>;
type Method = (chain: Chain, params: Params) => unknown;

function paramsOf(raw: unknown): Params {
  if (raw === undefined || raw === null) {
    return [];
  }
  if (!Array.isArray(raw)) {
    throw invalidParams("params must be an array");
  }
  return raw;
}

function config(params: Params, index: number): Config {
  const value = params[index];
  if (value === undefined || value === null) {
    return {};
  }
  if (typeof value !== "object" || Array.isArray(value)) {
    throw invalidParams(`parameter ${index} must be a configuration object`);
  }
  return value as Config;
}

function pubkey(value: unknown, what: string): PublicKey {
  if (typeof value !== "string") {
    throw invalidParams(`${what} must be a base58 string`);
  }
  try {
    const key = new PublicKey(value);
    if (key.toBase58() !== value) {
      throw new Error("non-canonical");
    }
    return key;
  } catch {
    throw invalidParams(`Invalid param: ${what} is not a valid public key`);
  }
}

function boolOption(cfg: Config, name: string, fallback: boolean): boolean {
  const value = cfg[name];
  if (value === undefined || value === null) {
    return fallback;
  }
  if (typeof value !== "boolean") {
    throw invalidParams(`${name} must be a boolean`);
  }
  return value;
}

function checkMinContextSlot(chain: Chain, cfg: Config): void {
  const min = cfg.minContextSlot;
  if (typeof min === "number" && min > chain.currentSlot) {
    throw new RpcError(
      RpcErrorCode.minContextSlotNotReached,
      "Minimum context slot has not been reached",
      { contextSlot: chain.currentSlot },
    );
  }
}

function withContext(chain: Chain, value: unknown): unknown {
  return { context: { apiVersion: SOLANA_CORE_VERSION, slot: chain.currentSlot }, value };
}

function txEncoding(cfg: Config, fallback: "base58" | "base64"): "base58" | "base64" {
  const encoding = cfg.encoding ?? fallback;
  if (encoding !== "base58" && encoding !== "base64") {
    throw invalidParams(
      `unsupported encoding: ${String(encoding)}. Supported encodings: base58, base64`,
    );
  }
  return encoding;
}

/** An account in the `getAccountInfo` encoding requested (base64 by default in web3.js). */
function encodeAccount(chain: Chain, key: PublicKey, cfg: Config): unknown {
  const account = chain.getAccount(key);
  if (!account) {
    return null;
  }
  const encoding = cfg.encoding ?? "binary";
  let data = Buffer.from(account.data);
  const slice = cfg.dataSlice as { offset?: unknown; length?: unknown } | undefined;
  if (slice) {
    if (typeof slice.offset !== "number" || typeof slice.length !== "number") {
      throw invalidParams("dataSlice needs numeric offset and length");
    }
    data = data.subarray(slice.offset, slice.offset + slice.length);
  }
  let encoded: unknown;
  if (encoding === "base64" || encoding === "jsonParsed") {
    encoded = [data.toString("base64"), "base64"];
  } else if (encoding === "base58") {
    encoded = [bs58.encode(data), "base58"];
  } else if (encoding === "binary") {
    encoded = bs58.encode(data);
  } else {
    throw invalidParams(`unsupported encoding: ${String(encoding)}`);
  }
  return {
    data: encoded,
    executable: account.executable,
    lamports: account.lamports,
    owner: account.owner.toBase58(),
    rentEpoch: account.rentEpoch ?? 0,
    space: account.data.length,
  };
}

function status(entry: LedgerEntry): unknown {
  return {
    slot: entry.slot,
    confirmations: null,
    err: entry.err,
    status: entry.err === null ? { Ok: null } : { Err: entry.err },
    confirmationStatus: "finalized",
  };
}

/** `getTransaction` result in the `json`, `base64` or `base58` encoding. */
function transactionResult(entry: LedgerEntry, cfg: Config): unknown {
  const bytes = Buffer.from(entry.transaction, "base64");
  const tx = VersionedTransaction.deserialize(bytes);
  const version = tx.message.version === 0 ? 0 : "legacy";
  if (version === 0 && cfg.maxSupportedTransactionVersion === undefined) {
    throw new RpcError(
      -32015,
      'Transaction version (0) is not supported by the requesting client. Please try the request again with the following configuration parameter: "maxSupportedTransactionVersion": 0',
    );
  }
  const encoding = cfg.encoding ?? "json";
  let transaction: unknown;
  if (encoding === "base64") {
    transaction = [entry.transaction, "base64"];
  } else if (encoding === "base58") {
    transaction = [bs58.encode(bytes), "base58"];
  } else if (encoding === "json") {
    const msg = tx.message;
    transaction = {
      signatures: tx.signatures.map((s) => bs58.encode(s)),
      message: {
        accountKeys: msg.staticAccountKeys.map((k) => k.toBase58()),
        header: msg.header,
        recentBlockhash: msg.recentBlockhash,
        instructions: msg.compiledInstructions.map((ix) => ({
          programIdIndex: ix.programIdIndex,
          accounts: ix.accountKeyIndexes,
          data: bs58.encode(ix.data),
          stackHeight: null,
        })),
        ...(version === 0 ? { addressTableLookups: [] } : {}),
      },
    };
  } else {
    throw invalidParams(
      `unsupported encoding: ${String(encoding)}. Supported encodings: json, base58, base64`,
    );
  }
  return {
    slot: entry.slot,
    blockTime: entry.blockTime,
    version,
    transaction,
    meta: {
      err: entry.err,
      status: entry.err === null ? { Ok: null } : { Err: entry.err },
      fee: entry.fee,
      preBalances: entry.preBalances,
      postBalances: entry.postBalances,
      innerInstructions: [],
      logMessages: entry.logs,
      preTokenBalances: [],
      postTokenBalances: [],
      rewards: [],
      loadedAddresses: { writable: [], readonly: [] },
      computeUnitsConsumed: entry.computeUnits,
    },
  };
}

const methods: Readonly<Record<string, Method>> = {
  getAccountInfo(chain, params) {
    const cfg = config(params, 1);
    checkMinContextSlot(chain, cfg);
    return withContext(chain, encodeAccount(chain, pubkey(params[0], "address"), cfg));
  },
  getMultipleAccounts(chain, params) {
    const keys = params[0];
    if (!Array.isArray(keys)) {
      throw invalidParams("parameter 0 must be an array of addresses");
    }
    if (keys.length > MAX_MULTIPLE_ACCOUNTS) {
      throw invalidParams(`Too many inputs provided; max ${MAX_MULTIPLE_ACCOUNTS}`);
    }
    const cfg = config(params, 1);
    checkMinContextSlot(chain, cfg);
    return withContext(
      chain,
      keys.map((k) => encodeAccount(chain, pubkey(k, "address"), cfg)),
    );
  },
  getBalance(chain, params) {
    checkMinContextSlot(chain, config(params, 1));
    const account = chain.getAccount(pubkey(params[0], "address"));
    return withContext(chain, account?.lamports ?? 0);
  },
  getLatestBlockhash(chain, params) {
    checkMinContextSlot(chain, config(params, 0));
    return withContext(chain, chain.latestBlockhash());
  },
  isBlockhashValid(chain, params) {
    if (typeof params[0] !== "string") {
      throw invalidParams("parameter 0 must be a blockhash");
    }
    return withContext(chain, chain.isBlockhashValid(params[0]));
  },
  async sendTransaction(chain, params) {
    if (typeof params[0] !== "string") {
      throw invalidParams("parameter 0 must be an encoded transaction");
    }
    const cfg = config(params, 1);
    return chain.sendTransaction(
      params[0],
      txEncoding(cfg, "base58"),
      boolOption(cfg, "skipPreflight", false),
    );
  },
  simulateTransaction(chain, params) {
    if (typeof params[0] !== "string") {
      throw invalidParams("parameter 0 must be an encoded transaction");
    }
    const cfg = config(params, 1);
    return withContext(
      chain,
      chain.simulate(
        params[0],
        txEncoding(cfg, "base58"),
        boolOption(cfg, "sigVerify", false),
        boolOption(cfg, "replaceRecentBlockhash", false),
      ),
    );
  },
  getSignatureStatuses(chain, params) {
    const signatures = params[0];
    if (!Array.isArray(signatures) || signatures.some((s) => typeof s !== "string")) {
      throw invalidParams("parameter 0 must be an array of signatures");
    }
    if (signatures.length > MAX_SIGNATURE_STATUSES) {
      throw invalidParams(`Too many inputs provided; max ${MAX_SIGNATURE_STATUSES}`);
    }
    return withContext(
      chain,
      signatures.map((s: string) => {
        const entry = chain.entry(s);
        return entry ? status(entry) : null;
      }),
    );
  },
  getTransaction(chain, params) {
    if (typeof params[0] !== "string") {
      throw invalidParams("parameter 0 must be a signature");
    }
    const entry = chain.entry(params[0]);
    const cfg = typeof params[1] === "string" ? { encoding: params[1] } : config(params, 1);
    return entry ? transactionResult(entry, cfg) : null;
  },
  getMinimumBalanceForRentExemption(chain, params) {
    const length = params[0];
    if (typeof length !== "number" || !Number.isInteger(length) || length < 0) {
      throw invalidParams("parameter 0 must be a data length");
    }
    return chain.minimumBalanceForRentExemption(length);
  },
  async requestAirdrop(chain, params) {
    const to = pubkey(params[0], "pubkey");
    const lamports = params[1];
    if (typeof lamports !== "number" || !Number.isSafeInteger(lamports) || lamports <= 0) {
      throw invalidParams("lamports must be a positive integer");
    }
    return chain.requestAirdrop(to, lamports);
  },
  localnet_warpClock(chain, params) {
    const seconds = params[0];
    if (typeof seconds !== "number" || !Number.isSafeInteger(seconds) || seconds < 1) {
      throw invalidParams("seconds must be a positive integer");
    }
    try {
      return { unixTimestamp: chain.warpClock(seconds), offsetSeconds: chain.clockOffset };
    } catch (error) {
      if (error instanceof RangeError) {
        throw invalidParams(error.message);
      }
      throw error;
    }
  },
  getSlot(chain) {
    return chain.tick();
  },
  getBlockHeight(chain) {
    return chain.tick();
  },
  getTransactionCount(chain) {
    return chain.transactionCount;
  },
  getHealth(chain) {
    if (!chain.healthy) {
      throw new RpcError(RpcErrorCode.nodeUnhealthy, "Node is unhealthy");
    }
    return "ok";
  },
  getVersion() {
    return { "solana-core": SOLANA_CORE_VERSION, "feature-set": 0 };
  },
  getGenesisHash(chain) {
    return chain.genesis.genesisHash;
  },
  getEpochInfo(chain) {
    return chain.epochInfo();
  },
  getEpochSchedule(chain) {
    return chain.epochSchedule;
  },
  getFeeForMessage(chain, params) {
    if (typeof params[0] !== "string") {
      throw invalidParams("parameter 0 must be a base64 message");
    }
    let message: VersionedMessage;
    try {
      message = VersionedMessage.deserialize(Buffer.from(params[0], "base64"));
    } catch {
      throw invalidParams("invalid message");
    }
    return withContext(chain, chain.feeForMessage(message));
  },
};

/** A JSON-RPC 2.0 response object. */
export type RpcResponse =
  | { jsonrpc: "2.0"; id: unknown; result: unknown }
  | { jsonrpc: "2.0"; id: unknown; error: ReturnType<RpcError["toJSON"]> };

function isId(id: unknown): boolean {
  return id === null || typeof id === "string" || typeof id === "number";
}

/**
 * Answers one JSON-RPC 2.0 request object (already JSON-parsed).
 * @returns the response, or null for a notification (a request without `id`).
 * Unexpected failures become `-32603 Internal error` (the detail stays in the server log).
 */
export async function handleRequest(
  chain: Chain,
  request: unknown,
  onInternalError: (error: unknown) => void,
): Promise<RpcResponse | null> {
  if (
    request === null ||
    typeof request !== "object" ||
    Array.isArray(request) ||
    (request as { jsonrpc?: unknown }).jsonrpc !== "2.0" ||
    typeof (request as { method?: unknown }).method !== "string"
  ) {
    const id = (request as { id?: unknown } | null)?.id;
    return {
      jsonrpc: "2.0",
      id: isId(id) ? id : null,
      error: new RpcError(RpcErrorCode.invalidRequest, "Invalid Request").toJSON(),
    };
  }
  const { id, method, params } = request as { id?: unknown; method: string; params?: unknown };
  const notification = id === undefined;
  try {
    const handler = Object.hasOwn(methods, method) ? methods[method] : undefined;
    if (!handler) {
      throw new RpcError(RpcErrorCode.methodNotFound, "Method not found");
    }
    chain.tick();
    const result = await handler(chain, paramsOf(params));
    return notification ? null : { jsonrpc: "2.0", id, result };
  } catch (error) {
    let rpcError: RpcError;
    if (error instanceof RpcError) {
      rpcError = error;
    } else {
      onInternalError(error);
      rpcError = new RpcError(RpcErrorCode.internalError, "Internal error");
    }
    return notification
      ? null
      : { jsonrpc: "2.0", id: isId(id) ? id : null, error: rpcError.toJSON() };
  }
}
