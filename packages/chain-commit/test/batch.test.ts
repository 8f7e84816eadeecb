/**
 * ChainClient.commitMany against the real local chain over HTTP: new and existing accounts mixed
 * in legacy transactions of at most 1 232 bytes (12 existing owners per transaction), a stale
 * nonce failing only its owner while the rest lands on the retry, each refusal as the typed error
 * `commit` throws, and an unreachable RPC.
 * Source: docs/protocol.md §7.2 "Instructions" (commit_many), §7.4 "The chain client".
 * @module
 */

import { Keypair, LAMPORTS_PER_SOL } from "@solana/web3.js";
import { LOCAL_PROGRAM_ID } from "@verifiable-memory/commitment-program";
import { type LocalChain, requestAirdrop, startLocalChain } from "@verifiable-memory/litesvm-rpc";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type BatchCommitOutcome,
  ChainClient,
  ChainUnavailableError,
  CountDecreasedError,
  NonceRaceError,
  RootMismatchError,
  UnauthorizedAuthorityError,
} from "../src/index.js";
import { closedPortUrl, removeDir, rootOf, tempDir } from "./helpers.js";

let chain: LocalChain;
let dataDir: string;
let authority: Keypair;
let client: ChainClient;

const owner = (): string => Keypair.generate().publicKey.toBase58();

function confirmed(
  outcome: BatchCommitOutcome | undefined,
): Extract<BatchCommitOutcome, { status: "confirmed" }> {
  if (outcome?.status !== "confirmed") {
    throw new Error(`not confirmed: ${JSON.stringify(outcome)}`);
  }
  return outcome;
}

beforeAll(async () => {
  dataDir = tempDir();
  chain = await startLocalChain({ port: 0, dataDir, programId: LOCAL_PROGRAM_ID });
  authority = Keypair.generate();
  await requestAirdrop(chain.url, authority.publicKey.toBase58(), 50 * LAMPORTS_PER_SOL);
  client = new ChainClient({ rpcUrl: chain.url, programId: LOCAL_PROGRAM_ID, authority });
});

afterAll(async () => {
  await chain.close();
  removeDir(dataDir);
});

describe("commitMany", () => {
  it("creates new accounts and commits existing ones, in as few legacy transactions as fit", async () => {
    const users = Array.from({ length: 30 }, owner);
    const first = await client.commitMany(
      users.map((u, i) => ({ owner: u, root: rootOf(i), memoryCount: 1, expectedNonce: 0 })),
    );
    const firstSignatures = new Set(first.map((o) => confirmed(o).signature));
    // New accounts need an initialize each: fewer owners per transaction than the 12 of commits.
    expect(firstSignatures.size).toBeGreaterThan(3);
    const second = await client.commitMany(
      users.map((u, i) => ({ owner: u, root: rootOf(100 + i), memoryCount: 2, expectedNonce: 1 })),
    );
    const secondSignatures = new Set(second.map((o) => confirmed(o).signature));
    expect(secondSignatures.size).toBe(3); // 12 + 12 + 6
    for (const signature of secondSignatures) {
      const tx = await client.getTransaction(signature);
      expect(tx?.err).toBeNull();
      expect(tx?.fee).toBe(5000);
      expect(tx?.logs).toContain("Program log: Instruction: CommitMany");
    }
    const account = await client.readCommitment(users[7] as string);
    expect(account).toMatchObject({ memoryCount: 2, nonce: 2, root: rootOf(107) });
  });

  it("a stale nonce fails only its owner; the others land on the retry without it", async () => {
    const users = Array.from({ length: 5 }, owner);
    for (const outcome of await client.commitMany(
      users.map((u) => ({ owner: u, root: rootOf(1), memoryCount: 1, expectedNonce: 0 })),
    )) {
      confirmed(outcome);
    }
    const outcomes = await client.commitMany(
      users.map((u, i) => ({
        owner: u,
        root: rootOf(2),
        memoryCount: 2,
        expectedNonce: i === 3 ? 0 : 1,
      })),
    );
    expect(outcomes.map((o) => o.status)).toEqual([
      "confirmed",
      "confirmed",
      "confirmed",
      "failed",
      "confirmed",
    ]);
    const stale = outcomes[3];
    expect(stale?.status === "failed" && stale.error).toBeInstanceOf(NonceRaceError);
    expect(
      new Set(outcomes.filter((o) => o.status === "confirmed").map((o) => confirmed(o).signature))
        .size,
    ).toBe(1);
    expect(await client.readCommitment(users[3] as string)).toMatchObject({
      nonce: 1,
      memoryCount: 1,
    });
    expect(await client.readCommitment(users[4] as string)).toMatchObject({
      nonce: 2,
      memoryCount: 2,
    });
  });

  it("each refusal is commit's typed error; an initialize refused for one owner fails only that owner", async () => {
    const [a, b, c] = [owner(), owner(), owner()];
    for (const outcome of await client.commitMany(
      [a, b].map((u) => ({ owner: u, root: rootOf(5), memoryCount: 5, expectedNonce: 0 })),
    )) {
      confirmed(outcome);
    }
    const other = Keypair.generate();
    await requestAirdrop(chain.url, other.publicKey.toBase58(), LAMPORTS_PER_SOL);
    const foreign = new ChainClient({
      rpcUrl: chain.url,
      programId: LOCAL_PROGRAM_ID,
      authority: other,
    });
    const taken = owner();
    confirmed(
      (
        await foreign.commitMany([
          { owner: taken, root: rootOf(1), memoryCount: 1, expectedNonce: 0 },
        ])
      )[0],
    );

    const outcomes = await client.commitMany([
      { owner: a, root: rootOf(5), memoryCount: 4, expectedNonce: 1 },
      { owner: b, root: rootOf(6), memoryCount: 5, expectedNonce: 1 },
      { owner: taken, root: rootOf(2), memoryCount: 2, expectedNonce: 1 },
      { owner: c, root: rootOf(7), memoryCount: 3, expectedNonce: 0 },
    ]);
    const errorOf = (i: number) => {
      const o = outcomes[i];
      return o?.status === "failed" ? o.error : null;
    };
    expect(errorOf(0)).toBeInstanceOf(CountDecreasedError);
    expect(errorOf(1)).toBeInstanceOf(RootMismatchError);
    expect(errorOf(2)).toBeInstanceOf(UnauthorizedAuthorityError);
    confirmed(outcomes[3]);
    expect(await client.readCommitment(c)).toMatchObject({ memoryCount: 3, nonce: 1 });
  });

  it("refuses duplicate owners, and an unreachable RPC is ChainUnavailableError before anything is sent", async () => {
    const u = owner();
    await expect(
      client.commitMany([
        { owner: u, root: rootOf(1), memoryCount: 1, expectedNonce: 0 },
        { owner: u, root: rootOf(1), memoryCount: 1, expectedNonce: 0 },
      ]),
    ).rejects.toBeInstanceOf(RangeError);
    const offline = new ChainClient({
      rpcUrl: await closedPortUrl(),
      programId: LOCAL_PROGRAM_ID,
      authority,
      requestTimeoutMs: 2000,
    });
    await expect(
      offline.commitMany([{ owner: u, root: rootOf(1), memoryCount: 1, expectedNonce: 0 }]),
    ).rejects.toBeInstanceOf(ChainUnavailableError);
  });
});
