/**
 * Persistence of the local chain across close() + restart on one data directory: account data,
 * balances, transaction statuses and history, genesis identity and slot order survive; the
 * restored program state keeps working; a write torn by a crash is cut off; a damaged ledger
 * stops the start.
 * Source: packages/litesvm-rpc/README.md "Persistence"; docs/protocol.md §7 (state kept in DATA_DIR).
 * @module
 */

import { appendFileSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  Connection,
  Keypair,
  LAMPORTS_PER_SOL,
  PublicKey,
  SystemProgram,
  sendAndConfirmTransaction,
  Transaction,
  type TransactionInstruction,
} from "@solana/web3.js";
import {
  createCommitInstruction,
  createInitializeInstruction,
  decodeCommitment,
  findCommitmentAddress,
  LOCAL_PROGRAM_ID,
} from "@verifiable-memory/commitment-program";
import { afterEach, describe, expect, it } from "vitest";
import { LedgerCorruptError, type LocalChain, startLocalChain } from "../src/index.js";
import { removeDir, settleWebSockets, tempDir } from "./helpers.js";

const programId = new PublicKey(LOCAL_PROGRAM_ID);
const dirs: string[] = [];
const running: LocalChain[] = [];

async function start(dataDir: string): Promise<{ chain: LocalChain; connection: Connection }> {
  const chain = await startLocalChain({ port: 0, dataDir, programId: LOCAL_PROGRAM_ID });
  running.push(chain);
  return { chain, connection: new Connection(chain.url, "confirmed") };
}

async function stop(chain: LocalChain): Promise<void> {
  await settleWebSockets(chain);
  await chain.close();
}

async function send(
  connection: Connection,
  signer: Keypair,
  instructions: TransactionInstruction[],
): Promise<string> {
  return sendAndConfirmTransaction(connection, new Transaction().add(...instructions), [signer]);
}

afterEach(async () => {
  for (const chain of running.splice(0)) {
    await chain.close();
  }
  for (const dir of dirs.splice(0)) {
    removeDir(dir);
  }
});

describe("restart on the same data directory", () => {
  it("keeps accounts, balances, statuses, history and genesis; the program state stays usable", async () => {
    const dataDir = tempDir();
    dirs.push(dataDir);
    const first = await start(dataDir);
    const authority = Keypair.generate();
    const airdrop = await first.connection.requestAirdrop(
      authority.publicKey,
      5 * LAMPORTS_PER_SOL,
    );
    const owner = Keypair.generate().publicKey;
    const recipient = Keypair.generate().publicKey;
    const [commitment] = findCommitmentAddress(owner, programId);
    const root = new Uint8Array(32).fill(0xab);
    const committed = await send(first.connection, authority, [
      createInitializeInstruction({ programId, authority: authority.publicKey, owner }),
      createCommitInstruction({
        programId,
        authority: authority.publicKey,
        owner,
        root,
        memoryCount: 9n,
        expectedNonce: 0n,
      }),
      SystemProgram.transfer({
        fromPubkey: authority.publicKey,
        toPubkey: recipient,
        lamports: 3_000_000,
      }),
    ]);
    const before = {
      commitment: await first.connection.getAccountInfo(commitment),
      authority: await first.connection.getBalance(authority.publicKey),
      recipient: await first.connection.getBalance(recipient),
      statuses: (await first.connection.getSignatureStatuses([airdrop, committed])).value,
      slot: await first.connection.getSlot(),
      genesis: first.chain.genesisHash,
    };
    await stop(first.chain);

    const second = await start(dataDir);
    const after = second.connection;
    expect(second.chain.genesisHash).toBe(before.genesis);
    expect(await after.getSlot()).toBeGreaterThanOrEqual(before.slot);
    const restored = await after.getAccountInfo(commitment);
    expect(restored?.owner.toBase58()).toBe(LOCAL_PROGRAM_ID);
    expect(restored?.lamports).toBe(before.commitment?.lamports);
    expect(Buffer.from(restored?.data ?? [])).toEqual(Buffer.from(before.commitment?.data ?? []));
    expect(await after.getBalance(authority.publicKey)).toBe(before.authority);
    expect(await after.getBalance(recipient)).toBe(before.recipient);
    expect((await after.getSignatureStatuses([airdrop, committed])).value).toEqual(before.statuses);
    const history = await after.getTransaction(committed, { maxSupportedTransactionVersion: 0 });
    expect(history?.meta?.err).toBeNull();
    expect(history?.slot).toBe(before.statuses[1]?.slot);

    await send(after, authority, [
      createCommitInstruction({
        programId,
        authority: authority.publicKey,
        owner,
        root,
        memoryCount: 10n,
        expectedNonce: 1n,
      }),
    ]);
    const next = decodeCommitment(
      (await after.getAccountInfo(commitment))?.data ?? new Uint8Array(),
    );
    expect(next.nonce).toBe(2n);
    expect(next.memoryCount).toBe(10n);
    await stop(second.chain);
  });

  it("cuts off a ledger line torn by a crash and keeps every complete one", async () => {
    const dataDir = tempDir();
    dirs.push(dataDir);
    const first = await start(dataDir);
    const wallet = Keypair.generate();
    const signature = await first.connection.requestAirdrop(wallet.publicKey, LAMPORTS_PER_SOL);
    await stop(first.chain);
    const ledgerPath = join(dataDir, "chain", "ledger.jsonl");
    const complete = readFileSync(ledgerPath, "utf8");
    appendFileSync(ledgerPath, '{"v":1,"signature":"torn');

    const second = await start(dataDir);
    expect(await second.connection.getBalance(wallet.publicKey)).toBe(LAMPORTS_PER_SOL);
    expect((await second.connection.getSignatureStatuses([signature])).value[0]?.err).toBeNull();
    expect(readFileSync(ledgerPath, "utf8")).toBe(complete);
    await stop(second.chain);
  });

  it("refuses to start on a ledger with a damaged complete line", async () => {
    const dataDir = tempDir();
    dirs.push(dataDir);
    const first = await start(dataDir);
    await first.connection.requestAirdrop(Keypair.generate().publicKey, LAMPORTS_PER_SOL);
    await stop(first.chain);
    const ledgerPath = join(dataDir, "chain", "ledger.jsonl");
    writeFileSync(ledgerPath, `garbage\n${readFileSync(ledgerPath, "utf8")}`);
    await expect(
      startLocalChain({ port: 0, dataDir, programId: LOCAL_PROGRAM_ID }),
    ).rejects.toBeInstanceOf(LedgerCorruptError);
  });
});
