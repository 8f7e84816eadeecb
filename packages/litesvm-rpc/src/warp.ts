/**
 * The client side of the local chain's clock warp: `localnet_warpClock` over JSON-RPC, as tests
 * and `pnpm demo` mature stake lots without waiting. Local-only: no real cluster has the method.
 * @module
 */

/** The local chain's answer to a warp. */
export interface WarpResult {
  /** The chain's Unix time after the warp, seconds. */
  readonly unixTimestamp: number;
  /** Total seconds the chain's clock now runs ahead of the wall clock. */
  readonly offsetSeconds: number;
}

/**
 * Moves the clock of the local chain at `rpcUrl` forward by `seconds` (1..315 360 000).
 * @throws Error naming the RPC error when the chain refuses (e.g. a real cluster: "Method not
 *   found"), or the fetch error when it is down.
 */
export async function warpClock(rpcUrl: string, seconds: number): Promise<WarpResult> {
  const res = await fetch(rpcUrl, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "localnet_warpClock",
      params: [seconds],
    }),
  });
  const body = (await res.json()) as { result?: WarpResult; error?: { message: string } };
  if (body.error || typeof body.result?.unixTimestamp !== "number") {
    throw new Error(`localnet_warpClock failed: ${body.error?.message ?? `HTTP ${res.status}`}`);
  }
  return body.result;
}
