/**
 * The local chain's staking support: the stake configuration created on a new chain with
 * STAKE_LOCK_SECONDS (and kept across restarts, whatever a later start asks), and the local-only
 * `localnet_warpClock` method: it moves the Clock sysvar and block times forward, durably, refuses
 * bad input, and is what lets a stake lot mature without waiting.
 * Source: packages/litesvm-rpc/README.md "Clock warp"; docs/staking.md.
 * @module
 */

import {
  Connection,
  Keypair,
  PublicKey,
  SYSVAR_CLOCK_PUBKEY,
  sendAndConfirmTransaction,
  Transaction,
} from "@solana/web3.js";
import {
  createStakeInstruction,
  createUnstakeInstruction,
  decodeStakeConfig,
  decodeStakeVault,
  findStakeConfigAddress,
  findVaultAddress,
  LOCAL_PROGRAM_ID,
} from "@verifiable-memory/commitment-program";
import { afterEach, describe, expect, it } from "vitest";
import { type LocalChain, requestAirdrop, startLocalChain, warpClock } from "../src/index.js";
import { removeDir, rpc, settleWebSockets, tempDir } from "./helpers.js";

const programId = new PublicKey(LOCAL_PROGRAM_ID);
const dirs: string[] = [];
const running: LocalChain[] = [];

afterEach(async () => {
  for (const chain of running.splice(0)) {
    await settleWebSockets(chain);
    await chain.close();
  }
  for (const dir of dirs.splice(0)) {
    removeDir(dir);
  }
});

async function start(dataDir: string, stakeLockSeconds?: number): Promise<LocalChain> {
  const chain = await startLocalChain({
    port: 0,
    dataDir,
    programId: LOCAL_PROGRAM_ID,
    ...(stakeLockSeconds === undefined ? {} : { stakeLockSeconds }),
  });
  running.push(chain);
  return chain;
}

async function chainTime(connection: Connection): Promise<number> {
  const info = await connection.getAccountInfo(SYSVAR_CLOCK_PUBKEY);
  return Number(Buffer.from(info?.data ?? Buffer.alloc(40)).readBigInt64LE(32));
}

async function lockPeriod(connection: Connection): Promise<bigint> {
  const info = await connection.getAccountInfo(findStakeConfigAddress(programId)[0]);
  return decodeStakeConfig(info?.data ?? new Uint8Array()).lockPeriodSeconds;
}

describe("stake configuration", () => {
  it("is created with STAKE_LOCK_SECONDS on a new chain and kept by later starts", async () => {
    const dir = tempDir();
    dirs.push(dir);
    let chain = await start(dir, 1234);
    expect(await lockPeriod(new Connection(chain.url, "confirmed"))).toBe(1234n);
    await settleWebSockets(chain);
    await chain.close();
    running.pop();
    chain = await start(dir, 99);
    expect(await lockPeriod(new Connection(chain.url, "confirmed"))).toBe(1234n);
  });
});

describe("localnet_warpClock", () => {
  it("moves the chain clock forward durably and matures a stake lot", async () => {
    const dir = tempDir();
    dirs.push(dir);
    let chain = await start(dir, 600);
    let connection = new Connection(chain.url, "confirmed");
    const owner = Keypair.generate();
    await requestAirdrop(chain.url, owner.publicKey.toBase58(), 5e9);
    await sendAndConfirmTransaction(
      connection,
      new Transaction().add(
        createStakeInstruction({ programId, owner: owner.publicKey, amountLamports: 1_000_000n }),
      ),
      [owner],
    );
    const vault = findVaultAddress(owner.publicKey, programId)[0];
    const lot = decodeStakeVault((await connection.getAccountInfo(vault))?.data ?? new Uint8Array())
      .lots[0];
    const before = await chainTime(connection);
    expect(Number(lot?.unlockAt) - before).toBeGreaterThanOrEqual(599);

    const warped = await warpClock(chain.url, 601);
    expect(warped.offsetSeconds).toBe(601);
    expect(warped.unixTimestamp).toBeGreaterThanOrEqual(before + 601);
    expect(await chainTime(connection)).toBe(warped.unixTimestamp);

    await settleWebSockets(chain);
    await chain.close();
    running.pop();
    chain = await start(dir);
    connection = new Connection(chain.url, "confirmed");
    expect(await chainTime(connection)).toBeGreaterThanOrEqual(warped.unixTimestamp);

    const balance = await connection.getBalance(owner.publicKey);
    const signature = await sendAndConfirmTransaction(
      connection,
      new Transaction().add(createUnstakeInstruction({ programId, owner: owner.publicKey })),
      [owner],
    );
    expect(await connection.getBalance(owner.publicKey)).toBe(balance + 1_000_000 - 5000);
    const tx = await connection.getTransaction(signature, { commitment: "confirmed" });
    expect(tx?.blockTime).toBeGreaterThanOrEqual(warped.unixTimestamp);
  });

  it("refuses a non-positive, fractional, missing or oversized warp with -32602", async () => {
    const dir = tempDir();
    dirs.push(dir);
    const chain = await start(dir);
    for (const params of [[0], [-5], [1.5], ["60"], [], [315_360_001]]) {
      const res = await rpc(chain.url, "localnet_warpClock", params);
      expect(res.error?.code, JSON.stringify(params)).toBe(-32602);
    }
    expect((await rpc(chain.url, "localnet_warpClock", [1])).result).toMatchObject({
      offsetSeconds: 1,
    });
  });
});
