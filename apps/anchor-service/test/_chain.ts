/**
 * Test support for the real chain: the local chain (@verifiable-memory/litesvm-rpc, litesvm with the commitment
 * program) in process on port 0, funded authorities (airdrop over JSON-RPC), chain clients, and
 * a pino logger whose JSON lines the tests can read.
 * @module
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Keypair } from "@solana/web3.js";
import { ChainClient } from "@verifiable-memory/chain-commit";
import { LOCAL_PROGRAM_ID } from "@verifiable-memory/commitment-program";
import { requestAirdrop, startLocalChain } from "@verifiable-memory/litesvm-rpc";
import { type Logger, pino } from "pino";

/** The local chain of a test file. */
export interface TestChain {
  readonly url: string;
  readonly programId: string;
  /**
   * A ChainClient for `authority` at `rpcUrl` (default this chain's URL); confirmation waits
   * `confirmTimeoutMs` (default 20 000).
   */
  client(authority: Keypair, rpcUrl?: string, confirmTimeoutMs?: number): ChainClient;
  /** A fresh authority holding `sol` SOL (none when 0). */
  authority(sol?: number): Promise<Keypair>;
  close(): Promise<void>;
}

async function rpc(url: string, method: string, params: unknown[]): Promise<unknown> {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  const body = (await res.json()) as { result?: unknown; error?: { message: string } };
  if (body.error) {
    throw new Error(`${method}: ${body.error.message}`);
  }
  return body.result;
}

/** Starts the local chain in a temporary data directory. */
export async function startTestChain(): Promise<TestChain> {
  const dataDir = await mkdtemp(join(tmpdir(), "svc-anchor-chain-"));
  const chain = await startLocalChain({ port: 0, dataDir, programId: LOCAL_PROGRAM_ID });
  return {
    url: chain.url,
    programId: LOCAL_PROGRAM_ID,
    client: (authority, rpcUrl = chain.url, confirmTimeoutMs = 20_000) =>
      new ChainClient({
        rpcUrl,
        programId: LOCAL_PROGRAM_ID,
        authority,
        confirmTimeoutMs,
        requestTimeoutMs: 5_000,
      }),
    async authority(sol = 100) {
      const keypair = Keypair.generate();
      if (sol > 0) {
        const address = keypair.publicKey.toBase58();
        await requestAirdrop(chain.url, address, sol * 1e9);
        for (let i = 0; i < 100; i++) {
          const balance = (await rpc(chain.url, "getBalance", [address])) as { value: number };
          if (balance.value > 0) {
            return keypair;
          }
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
        throw new Error("airdrop did not land");
      }
      return keypair;
    },
    async close() {
      await chain.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** A pino logger writing parsed JSON lines into `lines`. */
export function captureLogger(): { logger: Logger; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  const logger = pino(
    { level: "info" },
    {
      write(line: string) {
        lines.push(JSON.parse(line) as Record<string, unknown>);
      },
    },
  );
  return { logger, lines };
}
