/**
 * JSON-RPC plumbing shared by the chain clients: the Connection factory, the read of a
 * program-owned account, preflight error parsing and confirmation levels.
 * Source: Solana RPC HTTP methods (solana.com/docs/rpc/http); agave `TransactionError` texts.
 * @module
 */

import { type AccountInfo, type Commitment, Connection, type PublicKey } from "@solana/web3.js";
import { ChainUnavailableError, InvalidCommitmentAccountError } from "./errors.js";

/**
 * A web3.js Connection to `rpcUrl` with a per-request timeout, no retry on 429 and one retry of a
 * request whose kept-alive socket the server had closed.
 * @throws TypeError if `rpcUrl` is not an http(s) URL.
 */
export function connect(
  rpcUrl: string,
  commitment: Commitment,
  requestTimeoutMs: number,
): Connection {
  let protocol: string;
  try {
    protocol = new URL(rpcUrl).protocol;
  } catch {
    protocol = "";
  }
  if (protocol !== "http:" && protocol !== "https:") {
    throw new TypeError(`rpcUrl must be an http(s) URL, got ${JSON.stringify(rpcUrl)}`);
  }
  return new Connection(rpcUrl, {
    commitment,
    disableRetryOnRateLimit: true,
    fetch: async (input, init) => {
      for (let attempt = 1; ; attempt++) {
        try {
          return await fetch(input, { ...init, signal: AbortSignal.timeout(requestTimeoutMs) });
        } catch (error) {
          // A kept-alive connection the server closed while the request went out: retry once.
          // Safe for every Solana RPC call (a resent transaction is deduplicated by signature).
          if (attempt >= 2 || !isConnectionReset(error)) {
            throw error;
          }
        }
      }
    },
  });
}

function isConnectionReset(error: unknown): boolean {
  const code = (error as { cause?: { code?: unknown } } | null)?.cause?.code;
  return code === "ECONNRESET" || code === "UND_ERR_SOCKET" || code === "EPIPE";
}

/**
 * `value ?? fallback`, checked to be a positive safe integer.
 * @throws RangeError naming `name` otherwise.
 */
export function positiveInteger(value: number | undefined, fallback: number, name: string): number {
  const out = value ?? fallback;
  if (!Number.isSafeInteger(out) || out <= 0) {
    throw new RangeError(`${name} must be a positive integer, got ${value}`);
  }
  return out;
}

/**
 * The cluster JSON error behind a preflight failure's message ("Transaction simulation failed:
 * …"), e.g. `{ InstructionError: [0, { Custom: 6009 }] }` or `"BlockhashNotFound"`; null when the
 * message is not a preflight failure. Source: agave `TransactionError` Display texts.
 */
export function errorFromPreflightMessage(message: string): unknown | null {
  const text = /Transaction simulation failed: (.*)$/s.exec(message)?.[1]?.trim();
  if (text === undefined) {
    return null;
  }
  const custom = /^Error processing Instruction (\d+): custom program error: 0x([0-9a-f]+)/i.exec(
    text,
  );
  if (custom) {
    return {
      InstructionError: [Number(custom[1]), { Custom: Number.parseInt(custom[2] ?? "", 16) }],
    };
  }
  const rent = /^Transaction results in an account \((\d+)\) with insufficient funds for rent/.exec(
    text,
  );
  if (rent) {
    return { InsufficientFundsForRent: { account_index: Number(rent[1]) } };
  }
  const known: Record<string, string> = {
    "Blockhash not found": "BlockhashNotFound",
    "This transaction has already been processed": "AlreadyProcessed",
    "Attempt to debit an account but found no record of a prior credit.": "AccountNotFound",
    "Insufficient funds for fee": "InsufficientFundsForFee",
  };
  return known[text] ?? text;
}

/** The instruction index and custom program error code of a cluster error, if it is one. */
export function customCode(err: unknown): { index: number; code: number } | null {
  const ie = (err as { InstructionError?: [number, { Custom?: number }] } | null)?.InstructionError;
  if (Array.isArray(ie) && typeof ie[1]?.Custom === "number") {
    return { index: ie[0], code: ie[1].Custom };
  }
  return null;
}

/**
 * Whether a signature status `status` ("processed" | "confirmed" | "finalized") satisfies the
 * client's `commitment` level.
 */
export function reachedCommitment(commitment: Commitment, status: string | undefined): boolean {
  if (commitment === "finalized" || commitment === "max" || commitment === "root") {
    return status === "finalized";
  }
  if (commitment === "processed" || commitment === "recent") {
    return status !== undefined;
  }
  return status === "confirmed" || status === "finalized";
}

/**
 * Reads the account at `address`, which must belong to `program` (getAccountInfo at
 * `commitment`).
 * @returns the account, or null when none exists there.
 * @throws ChainUnavailableError when the read fails (never null then); InvalidCommitmentAccountError
 *   when another program owns the account.
 */
export async function readProgramAccount(
  connection: Connection,
  program: PublicKey,
  address: PublicKey,
  commitment: Commitment,
): Promise<AccountInfo<Buffer> | null> {
  let info: AccountInfo<Buffer> | null;
  try {
    info = await connection.getAccountInfo(address, commitment);
  } catch (error) {
    throw new ChainUnavailableError("getAccountInfo", error);
  }
  if (info && !info.owner.equals(program)) {
    throw new InvalidCommitmentAccountError(
      `owned by ${info.owner.toBase58()}, not the program`,
      address.toBase58(),
    );
  }
  return info;
}
