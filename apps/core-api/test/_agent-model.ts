/**
 * The harness of the agent memory model tests (agent-model.test.ts, agent-keys.test.ts): a
 * core-api over real PostgreSQL anchoring on a local chain with the real program, and the calls
 * those tests make (write, search, mint a key, anchor a user's whole log).
 * @module
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Keypair } from "@solana/web3.js";
import { ChainClient } from "@verifiable-memory/chain-commit";
import { LOCAL_PROGRAM_ID } from "@verifiable-memory/commitment-program";
import { rootAtSize } from "@verifiable-memory/db-schema";
import { requestAirdrop, startLocalChain } from "@verifiable-memory/litesvm-rpc";
import { afterAll, beforeAll, expect } from "vitest";
import { call, recordCheckpoint, startTestApp, type TestApp, type TestUser } from "./helpers.js";

export interface Memory {
  id: string;
  leafIndex: number;
  content: string;
  metadata: Record<string, unknown>;
  namespace: string | null;
  writtenBy: { kind: string; keyId?: string } | null;
  supersedes: string | null;
  supersededBy: string | null;
  createdAt: string;
  anchored: boolean;
  score?: number;
}
export interface ErrorBody {
  error: { code: string; message: string; details?: unknown };
}
export interface Page {
  items: Memory[];
  nextCursor: string | null;
}
export interface SearchPage extends Page {
  scanned: number;
}

/** The bearer header of a credential. */
export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** What {@link agentHarness} gives a test file, valid once its beforeAll ran. */
export interface AgentHarness {
  readonly t: TestApp;
  readonly chainUrl: string;
  write(
    headers: Record<string, string>,
    body: Record<string, unknown>,
  ): ReturnType<typeof call<Memory & ErrorBody>>;
  search(
    headers: Record<string, string>,
    body: Record<string, unknown>,
  ): ReturnType<typeof call<SearchPage & ErrorBody>>;
  /** Mints an API key for `user` (label "agent" unless `body` says otherwise). */
  createKey(
    user: TestUser,
    body: Record<string, unknown>,
  ): Promise<{ id: string; key: string; headers: Record<string, string> }>;
  /** Anchors the user's whole log on the local chain and records the checkpoint. */
  anchorAll(user: TestUser, size: number, nonce: number): Promise<void>;
}

/**
 * Registers the file's beforeAll (local chain, funded authority, core-api) and afterAll, and
 * returns the harness they fill.
 */
export function agentHarness(): AgentHarness {
  let t: TestApp | undefined;
  let chain: Awaited<ReturnType<typeof startLocalChain>> | undefined;
  let chainDir = "";
  let client: ChainClient | undefined;
  beforeAll(async () => {
    chainDir = await mkdtemp(join(tmpdir(), "core-api-agent-model-"));
    chain = await startLocalChain({ port: 0, dataDir: chainDir, programId: LOCAL_PROGRAM_ID });
    const authority = Keypair.generate();
    await requestAirdrop(chain.url, authority.publicKey.toBase58(), 10e9);
    client = new ChainClient({
      rpcUrl: chain.url,
      programId: LOCAL_PROGRAM_ID,
      authority,
      confirmTimeoutMs: 20_000,
    });
    t = await startTestApp({ env: { CHAIN_RPC_URL: chain.url, SIWS_CHAIN_ID: "localnet" } });
  });
  afterAll(async () => {
    await t?.close();
    await chain?.close();
    await rm(chainDir, { recursive: true, force: true });
  });
  const app = () => {
    if (t === undefined) {
      throw new Error("the agent harness is used before its beforeAll ran");
    }
    return t;
  };
  return {
    get t() {
      return app();
    },
    get chainUrl() {
      return chain?.url ?? "";
    },
    write: (headers, body) => call<Memory & ErrorBody>(`${app().url}/memories`, { headers, body }),
    search: (headers, body) =>
      call<SearchPage & ErrorBody>(`${app().url}/memories/search`, { headers, body }),
    async createKey(user, body) {
      const res = await call<{ id: string; key: string }>(`${app().url}/keys`, {
        headers: user.headers,
        body: { label: "agent", ...body },
      });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      return { id: res.body.id, key: res.body.key, headers: bearer(res.body.key) };
    },
    async anchorAll(user, size, nonce) {
      const root = await rootAtSize(app().db, user.userId, size);
      const committed = await (client as ChainClient).commit(
        user.wallet.publicKey,
        root,
        size,
        nonce,
      );
      await recordCheckpoint(app(), user, size, committed.nonce, committed.signature);
    },
  };
}
