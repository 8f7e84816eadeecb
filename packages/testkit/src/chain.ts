/**
 * The anchoring local chain for tests: `@verifiable-memory/litesvm-rpc` (litesvm with the
 * commitment program) with a funded anchoring authority and a ChainClient signing as it.
 * `anchorNow` runs the anchoring step the caller gives (the anchor service's sweep, which a
 * package cannot import) and expects every commit confirmed.
 * @module
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Keypair } from "@solana/web3.js";
import { ChainClient } from "@verifiable-memory/chain-commit";
import { LOCAL_PROGRAM_ID } from "@verifiable-memory/commitment-program";
import type { Database } from "@verifiable-memory/db-schema";
import { requestAirdrop, startLocalChain } from "@verifiable-memory/litesvm-rpc";
import pino from "pino";
import { expect } from "vitest";

export { requestAirdrop, startLocalChain, warpClock } from "@verifiable-memory/litesvm-rpc";

/** What an anchoring step reports: one outcome per user it sealed. */
export interface AnchorReport {
  readonly outcomes: readonly { readonly outcome: string }[];
}

/**
 * Anchors every user of `db` with pending leaves through `chain` (in the tests above the apps:
 * the anchor service's `runSweep`).
 */
export type AnchorStep<R extends AnchorReport> = (db: Database, chain: ChainClient) => Promise<R>;

/** A running local chain with its anchoring authority. */
export interface AnchoringChain<R extends AnchorReport> {
  /** The chain's JSON-RPC URL. */
  readonly url: string;
  /** The anchoring authority (funded with 10 SOL). */
  readonly authority: Keypair;
  /** A ChainClient signing as the authority (confirmation timeout 20 s). */
  readonly client: ChainClient;
  /**
   * Anchors every user of `db` with pending leaves (one anchoring step); expects every outcome
   * confirmed.
   * @returns the step's report.
   */
  anchorNow(db: Database): Promise<R>;
  /** Stops the chain (and removes its data directory when this helper made it). */
  close(): Promise<void>;
}

/**
 * Starts the local chain in `dataDir` (default: a fresh temporary directory, removed by `close`)
 * and funds a new authority with 10 SOL.
 * @throws whatever starting the chain or the airdrop throws.
 */
export async function startAnchoringChain<R extends AnchorReport>(
  anchor: AnchorStep<R>,
  dataDir?: string,
): Promise<AnchoringChain<R>> {
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
    client,
    async anchorNow(db) {
      const report = await anchor(db, client);
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
