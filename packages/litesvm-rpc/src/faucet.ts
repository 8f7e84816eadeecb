/**
 * The client side of the local chain's faucet: `requestAirdrop` over Solana JSON-RPC, as tests,
 * benches and `pnpm start` fund keypairs on the embedded chain. Never used against a real cluster.
 * @module
 */

/**
 * Asks the chain at `rpcUrl` to airdrop `lamports` to `address` (base58). The local chain answers
 * once the transfer is executed and persisted.
 * @returns the airdrop transaction's signature, base58.
 * @throws Error naming the RPC error when the chain refuses, or the fetch error when it is down.
 */
export async function requestAirdrop(
  rpcUrl: string,
  address: string,
  lamports: number,
): Promise<string> {
  const res = await fetch(rpcUrl, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "requestAirdrop",
      params: [address, lamports],
    }),
  });
  const body = (await res.json()) as { result?: string; error?: { message: string } };
  if (body.error || typeof body.result !== "string") {
    throw new Error(`requestAirdrop failed: ${body.error?.message ?? `HTTP ${res.status}`}`);
  }
  return body.result;
}
