/**
 * Test support shared by the SDK, CLI and MCP tests: the local chain (litesvm with the commitment
 * program) with a funded anchoring authority, and `anchorNow`, one anchor-service sweep that
 * anchors every user with pending leaves, as the worker does, and expects each commit confirmed.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Keypair } from "@solana/web3.js";
import { runSweep, type SweepReport } from "@verifiable-memory/anchor-service";
import { ChainClient } from "@verifiable-memory/chain-commit";
import { LOCAL_PROGRAM_ID } from "@verifiable-memory/commitment-program";
import type { Database } from "@verifiable-memory/db-schema";
import { requestAirdrop, startLocalChain } from "@verifiable-memory/local-chain";
import pino from "pino";
import { expect } from "vitest";

/** A running local chain with its anchoring authority. */
export interface AnchoringChain {
  /** The chain's JSON-RPC URL. */
  readonly url: string;
  /** The anchoring authority (funded with 10 SOL). */
  readonly authority: Keypair;
  /**
   * Anchors every user of `db` with pending leaves (one sweep); expects every outcome confirmed.
   * @returns the sweep's report.
   */
  anchorNow(db: Database): Promise<SweepReport>;
  /** Stops the chain (and removes its data directory when this helper made it). */
  close(): Promise<void>;
}

/**
 * Starts the local chain in `dataDir` (default: a fresh temporary directory, removed by `close`).
 * @throws whatever starting the chain or the airdrop throws.
 */
export async function startAnchoringChain(dataDir?: string): Promise<AnchoringChain> {
  const dir = dataDir ?? (await mkdtemp(join(tmpdir(), "svc-anchoring-")));
  const chain = await startLocalChain({
    port: 0,
    dataDir: dir,
    programId: LOCAL_PROGRAM_ID,
    logger: pino({ level: "silent" }),
  });
  const authority = Keypair.generate();
  await requestAirdrop(chain.url, authority.publicKey.toBase58(), 10e9);
  const client = new ChainClient({
    rpcUrl: chain.url,
    programId: LOCAL_PROGRAM_ID,
    authority,
    confirmTimeoutMs: 20_000,
  });
  return {
    url: chain.url,
    authority,
    async anchorNow(db) {
      const report = await runSweep({
        db,
        chain: client,
        logger: pino({ level: "silent" }),
        config: { sealMaxPending: 1, sealMaxAgeMs: 1, maxInFlight: 4 },
      });
      for (const outcome of report.outcomes) {
        expect(outcome.outcome, JSON.stringify(outcome)).toBe("confirmed");
      }
      return report;
    },
    async close() {
      await chain.close();
      if (dataDir === undefined) {
        await rm(dir, { recursive: true, force: true });
      }
    },
  };
}
