/**
 * ChainClient against the real local chain over HTTP: first commit initializes, sequential
 * commits, each program refusal as its typed error (count decreased, nonce race, wrong authority),
 * unfunded authorities, an unreachable RPC (never null or zero), a node that never confirms, and
 * the keypair-free reader.
 * Source: docs/protocol.md §6, §7, §1 ("a chain read that fails is unknown, never zero").
 * @module
 */

import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { Keypair, LAMPORTS_PER_SOL } from "@solana/web3.js";
import { LOCAL_PROGRAM_ID } from "@verifiable-memory/commitment-program";
import { type LocalChain, requestAirdrop, startLocalChain } from "@verifiable-memory/litesvm-rpc";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ChainClient,
  ChainUnavailableError,
  ConfirmationTimeoutError,
  CountDecreasedError,
  commitmentAddress,
  InsufficientFundsError,
  InvalidCommitmentAccountError,
  NonceRaceError,
  readCommitmentFromRpc,
  UnauthorizedAuthorityError,
} from "../src/index.js";
import { closedPortUrl, removeDir, rootOf, startRpcProxy, tempDir } from "./helpers.js";

let chain: LocalChain;
let dataDir: string;
let authority: Keypair;
let client: ChainClient;

function clientFor(keypair: Keypair, rpcUrl = chain.url, confirmTimeoutMs?: number): ChainClient {
  return new ChainClient({
    rpcUrl,
    programId: LOCAL_PROGRAM_ID,
    authority: keypair,
    ...(confirmTimeoutMs ? { confirmTimeoutMs } : {}),
  });
}

function owner(): string {
  return Keypair.generate().publicKey.toBase58();
}

beforeAll(async () => {
  dataDir = tempDir();
  chain = await startLocalChain({ port: 0, dataDir, programId: LOCAL_PROGRAM_ID });
  authority = Keypair.generate();
  await requestAirdrop(chain.url, authority.publicKey.toBase58(), 50 * LAMPORTS_PER_SOL);
  client = clientFor(authority);
});

afterAll(async () => {
  await chain.close();
  removeDir(dataDir);
});

describe("commits on the local chain", () => {
  it("reads null before the first commit, then initializes and commits in one transaction", async () => {
    const user = owner();
    expect(await client.readCommitment(user)).toBeNull();

    const result = await client.commit(user, rootOf(1), 5, 0);
    expect(result.nonce).toBe(1);
    expect(result.slot).toBeGreaterThanOrEqual(0);

    const account = await client.readCommitment(user);
    expect(account).toEqual({
      address: commitmentAddress(user, LOCAL_PROGRAM_ID).toBase58(),
      authority: authority.publicKey.toBase58(),
      owner: user,
      root: rootOf(1),
      memoryCount: 5,
      nonce: 1,
      bump: expect.any(Number),
    });
    const tx = await client.getTransaction(result.signature);
    expect(tx).toMatchObject({
      signature: result.signature,
      slot: result.slot,
      err: null,
      fee: 5000,
    });
    expect(tx?.logs).toContain("Program log: Instruction: Initialize");
    expect(tx?.logs).toContain("Program log: Instruction: Commit");
  });

  it("commits sequentially, each at the nonce the previous one left", async () => {
    const user = owner();
    let nonce = 0;
    for (const [i, count] of [3, 5, 8, 20].entries()) {
      const result = await client.commit(user, rootOf(i + 10), count, nonce);
      expect(result.nonce).toBe(nonce + 1);
      nonce = result.nonce;
    }
    const account = await client.readCommitment(user);
    expect(account).toMatchObject({ memoryCount: 20, nonce: 4, root: rootOf(13) });
  });

  it("refuses a decreasing count with CountDecreasedError, charging nothing", async () => {
    const user = owner();
    await client.commit(user, rootOf(2), 10, 0);
    const balance = await client.authorityBalance();
    await expect(client.commit(user, rootOf(3), 9, 1)).rejects.toBeInstanceOf(CountDecreasedError);
    expect(await client.authorityBalance()).toBe(balance);
    expect(await client.readCommitment(user)).toMatchObject({ memoryCount: 10, nonce: 1 });
  });

  it("refuses a stale expectedNonce with NonceRaceError after a competing committer won", async () => {
    const user = owner();
    await client.commit(user, rootOf(4), 1, 0);
    const competitor = clientFor(authority);
    const seen = await client.readCommitment(user);
    await competitor.commit(user, rootOf(5), 2, seen?.nonce ?? -1);
    const error = await client.commit(user, rootOf(6), 3, seen?.nonce ?? -1).catch((e) => e);
    expect(error).toBeInstanceOf(NonceRaceError);
    expect(error).toMatchObject({ code: "nonce_race", owner: user, expectedNonce: 1 });
    expect(await client.readCommitment(user)).toMatchObject({ nonce: 2, root: rootOf(5) });
  });

  it("lets exactly one of two first commits racing to initialize win", async () => {
    const user = owner();
    const outcomes = await Promise.allSettled([
      client.commit(user, rootOf(7), 1, 0),
      clientFor(authority).commit(user, rootOf(8), 1, 0),
    ]);
    expect(outcomes.filter((o) => o.status === "fulfilled")).toHaveLength(1);
    const lost = outcomes.find((o) => o.status === "rejected") as PromiseRejectedResult;
    expect(lost.reason).toBeInstanceOf(NonceRaceError);
    expect(await client.readCommitment(user)).toMatchObject({ nonce: 1 });
  });

  it("refuses another authority with UnauthorizedAuthorityError", async () => {
    const user = owner();
    await client.commit(user, rootOf(9), 1, 0);
    const intruder = Keypair.generate();
    await requestAirdrop(chain.url, intruder.publicKey.toBase58(), LAMPORTS_PER_SOL);
    await expect(clientFor(intruder).commit(user, rootOf(9), 2, 1)).rejects.toBeInstanceOf(
      UnauthorizedAuthorityError,
    );
  });

  it("reports an unfunded authority as InsufficientFundsError with balance 0", async () => {
    const poor = clientFor(Keypair.generate());
    expect(await poor.authorityBalance()).toBe(0);
    const error = await poor.commit(owner(), rootOf(1), 1, 0).catch((e) => e);
    expect(error).toBeInstanceOf(InsufficientFundsError);
    expect(error.code).toBe("insufficient_funds");
  });

  it("reports an authority that can pay the fee but not the account's rent as InsufficientFundsError", async () => {
    const keypair = Keypair.generate();
    await requestAirdrop(chain.url, keypair.publicKey.toBase58(), 1_000_000);
    await expect(clientFor(keypair).commit(owner(), rootOf(1), 1, 0)).rejects.toBeInstanceOf(
      InsufficientFundsError,
    );
    expect(await clientFor(keypair).authorityBalance()).toBe(1_000_000);
  });

  it("refuses to read a PDA that holds something other than a commitment", async () => {
    const user = owner();
    await requestAirdrop(
      chain.url,
      commitmentAddress(user, LOCAL_PROGRAM_ID).toBase58(),
      LAMPORTS_PER_SOL,
    );
    await expect(client.readCommitment(user)).rejects.toBeInstanceOf(InvalidCommitmentAccountError);
  });

  it("validates arguments before touching the chain", async () => {
    await expect(client.commit("not-a-key", rootOf(1), 1, 0)).rejects.toBeInstanceOf(TypeError);
    await expect(client.commit(owner(), new Uint8Array(31), 1, 0)).rejects.toBeInstanceOf(
      RangeError,
    );
    await expect(client.commit(owner(), rootOf(1), -1, 0)).rejects.toBeInstanceOf(RangeError);
    await expect(client.commit(owner(), rootOf(1), 2 ** 53, 0)).rejects.toBeInstanceOf(RangeError);
    await expect(client.readCommitment("nope")).rejects.toBeInstanceOf(TypeError);
  });
});

describe("readCommitmentFromRpc (no authority keypair)", () => {
  it("reads the same account as the client, and null for an unknown owner", async () => {
    const user = owner();
    await client.commit(user, rootOf(42), 42, 0);
    expect(await readCommitmentFromRpc(chain.url, LOCAL_PROGRAM_ID, user)).toEqual(
      await client.readCommitment(user),
    );
    expect(await readCommitmentFromRpc(chain.url, LOCAL_PROGRAM_ID, owner())).toBeNull();
  });
});

describe("an unreachable RPC", () => {
  it("makes reads, balance, history and commits fail with ChainUnavailableError, never null or zero", async () => {
    const url = await closedPortUrl();
    const down = clientFor(authority, url);
    const user = owner();
    await expect(down.readCommitment(user)).rejects.toBeInstanceOf(ChainUnavailableError);
    await expect(down.authorityBalance()).rejects.toBeInstanceOf(ChainUnavailableError);
    await expect(down.commit(user, rootOf(1), 1, 0)).rejects.toBeInstanceOf(ChainUnavailableError);
    await expect(down.commit(user, rootOf(1), 2, 1)).rejects.toBeInstanceOf(ChainUnavailableError);
    await expect(down.getTransaction("1".repeat(64))).rejects.toBeInstanceOf(ChainUnavailableError);
    await expect(readCommitmentFromRpc(url, LOCAL_PROGRAM_ID, user)).rejects.toMatchObject({
      code: "chain_unavailable",
    });
  });

  it("treats an RPC that answers HTTP 503 as unavailable", async () => {
    const server = createServer((_req, res) => {
      res.writeHead(503);
      res.end("maintenance");
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      await expect(clientFor(authority, url).readCommitment(owner())).rejects.toBeInstanceOf(
        ChainUnavailableError,
      );
      await expect(
        clientFor(authority, url).commit(owner(), rootOf(1), 1, 0),
      ).rejects.toBeInstanceOf(ChainUnavailableError);
    } finally {
      server.close();
    }
  });
});

describe("a node that never reports the transaction", () => {
  it("ends in ConfirmationTimeoutError carrying the signature of the transaction that landed", async () => {
    const proxy = await startRpcProxy(chain.url, (request) =>
      request.method === "getSignatureStatuses"
        ? {
            jsonrpc: "2.0",
            id: request.id,
            result: {
              context: { slot: 1 },
              value: new Array((request.params[0] as unknown[]).length).fill(null),
            },
          }
        : undefined,
    );
    try {
      const user = owner();
      const started = Date.now();
      const error = await clientFor(authority, proxy.url, 600)
        .commit(user, rootOf(3), 3, 0)
        .catch((e) => e);
      expect(error).toBeInstanceOf(ConfirmationTimeoutError);
      expect(Date.now() - started).toBeGreaterThanOrEqual(600);
      expect(proxy.calls.filter((m) => m === "getSignatureStatuses").length).toBeGreaterThan(1);
      const landed = await client.getTransaction((error as ConfirmationTimeoutError).signature);
      expect(landed?.err).toBeNull();
      expect(await client.readCommitment(user)).toMatchObject({ nonce: 1, memoryCount: 3 });
    } finally {
      await proxy.close();
    }
  });
});

describe("a node that does not know the blockhash it gave out", () => {
  it("retries with a fresh blockhash and commits", async () => {
    let refused = false;
    const proxy = await startRpcProxy(chain.url, (request) => {
      if (request.method !== "sendTransaction" || refused) {
        return undefined;
      }
      refused = true;
      return {
        jsonrpc: "2.0",
        id: request.id,
        error: {
          code: -32002,
          message: "Transaction simulation failed: Blockhash not found",
          data: { err: "BlockhashNotFound", logs: [] },
        },
      };
    });
    try {
      const result = await clientFor(authority, proxy.url).commit(owner(), rootOf(4), 4, 0);
      expect(result.nonce).toBe(1);
      expect(proxy.calls.filter((m) => m === "getLatestBlockhash")).toHaveLength(2);
      expect(proxy.calls.filter((m) => m === "sendTransaction")).toHaveLength(2);
    } finally {
      await proxy.close();
    }
  });
});
