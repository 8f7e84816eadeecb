/**
 * One Solana JSON-RPC 2.0 call with fetch, straight to the chain's endpoint (never the memory
 * API): for balances and the development wallet's airdrop.
 * @module
 */

/**
 * Calls `method` with `params` at `rpcUrl`.
 * @returns the JSON-RPC `result`.
 * @throws Error with the RPC's message, or the network failure, or a timeout after `timeoutMs`.
 */
export async function rpcCall<T>(
  rpcUrl: string,
  method: string,
  params: readonly unknown[],
  timeoutMs = 15_000,
): Promise<T> {
  const res = await fetch(rpcUrl, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
    signal: AbortSignal.timeout(timeoutMs),
  });
  if (!res.ok) {
    throw new Error(`the RPC answered HTTP ${res.status}`);
  }
  const body = (await res.json()) as { result?: T; error?: { message?: string } };
  if (body.error !== undefined || !("result" in body)) {
    throw new Error(body.error?.message ?? "the RPC answered no result");
  }
  return body.result as T;
}
