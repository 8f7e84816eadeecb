/**
 * A new program version on an existing local chain: every start deploys the committed ELF, so a
 * data directory made under an older program runs the new one (commit_many, the anchor
 * configuration) with every account kept; with an anchor authority the start writes the anchor
 * configuration, and a later start with another key replaces it.
 * Source: docs/protocol.md §7.1 "The commitment account", §7.4 "The chain client".
 * @module
 */

import { readFileSync } from "node:fs";
import {
  Connection,
  Keypair,
  LAMPORTS_PER_SOL,
  PublicKey,
  sendAndConfirmTransaction,
  Transaction,
  type TransactionInstruction,
} from "@solana/web3.js";
import {
  createCommitInstruction,
  createCommitManyInstruction,
  createInitializeInstruction,
  decodeAnchorConfig,
  decodeCommitment,
  findAnchorConfigAddress,
  findCommitmentAddress,
  findProgramDataAddress,
  LOCAL_PROGRAM_ID,
  programSoPath,
} from "@verifiable-memory/commitment-program";
import { afterEach, describe, expect, it } from "vitest";
import { type LocalChain, startLocalChain } from "../src/index.js";
import { removeDir, settleWebSockets, tempDir } from "./helpers.js";

const programId = new PublicKey(LOCAL_PROGRAM_ID);
const dirs: string[] = [];
const running: LocalChain[] = [];

async function start(
  dataDir: string,
  anchorAuthority?: PublicKey,
): Promise<{ chain: LocalChain; connection: Connection }> {
  const chain = await startLocalChain({
    port: 0,
    dataDir,
    programId: LOCAL_PROGRAM_ID,
    ...(anchorAuthority ? { anchorAuthority: anchorAuthority.toBase58() } : {}),
  });
  running.push(chain);
  return { chain, connection: new Connection(chain.url, "confirmed") };
}

async function stop(chain: LocalChain): Promise<void> {
  await settleWebSockets(chain);
  await chain.close();
  running.splice(running.indexOf(chain), 1);
}

function send(connection: Connection, signer: Keypair, ixs: TransactionInstruction[]) {
  return sendAndConfirmTransaction(connection, new Transaction().add(...ixs), [signer]);
}

async function funded(connection: Connection): Promise<Keypair> {
  const keypair = Keypair.generate();
  const signature = await connection.requestAirdrop(keypair.publicKey, 2 * LAMPORTS_PER_SOL);
  await connection.confirmTransaction(signature, "confirmed");
  return keypair;
}

async function anchorConfigOf(connection: Connection): Promise<string | null> {
  const info = await connection.getAccountInfo(findAnchorConfigAddress(programId)[0]);
  return info ? decodeAnchorConfig(info.data).anchorAuthority.toBase58() : null;
}

afterEach(async () => {
  for (const chain of running.splice(0)) {
    await chain.close();
  }
  for (const dir of dirs.splice(0)) {
    removeDir(dir);
  }
});

describe("program upgrade on an existing local chain", () => {
  it("runs the committed ELF on an old data directory, keeps its accounts, and writes the anchor configuration", async () => {
    const dataDir = tempDir();
    dirs.push(dataDir);
    const first = await start(dataDir);
    expect(await anchorConfigOf(first.connection)).toBeNull();
    const authority = await funded(first.connection);
    const owner = Keypair.generate().publicKey;
    const [commitment] = findCommitmentAddress(owner, programId);
    const root = new Uint8Array(32).fill(7);
    await send(first.connection, authority, [
      createInitializeInstruction({ programId, authority: authority.publicKey, owner }),
      createCommitInstruction({
        programId,
        authority: authority.publicKey,
        owner,
        root,
        memoryCount: 3n,
        expectedNonce: 0n,
      }),
    ]);
    await stop(first.chain);

    const second = await start(dataDir, authority.publicKey);
    const programData = await second.connection.getAccountInfo(findProgramDataAddress(programId));
    const elf = readFileSync(programSoPath);
    expect(Buffer.from(programData?.data.subarray(45, 45 + elf.length) ?? []).equals(elf)).toBe(
      true,
    );
    expect(await anchorConfigOf(second.connection)).toBe(authority.publicKey.toBase58());
    await send(second.connection, authority, [
      createCommitManyInstruction({
        programId,
        authority: authority.publicKey,
        entries: [
          { commitment, root: new Uint8Array(32).fill(8), memoryCount: 4n, expectedNonce: 1n },
        ],
      }),
    ]);
    const after = decodeCommitment(
      (await second.connection.getAccountInfo(commitment))?.data ?? new Uint8Array(),
    );
    expect(after.nonce).toBe(2n);
    expect(after.memoryCount).toBe(4n);

    const stranger = await funded(second.connection);
    const victim = Keypair.generate().publicKey;
    await expect(
      send(second.connection, stranger, [
        createInitializeInstruction({ programId, authority: stranger.publicKey, owner: victim }),
      ]),
    ).rejects.toThrow(/0x1770/);
    await send(second.connection, authority, [
      createInitializeInstruction({ programId, authority: authority.publicKey, owner: victim }),
    ]);
    await stop(second.chain);

    const next = Keypair.generate().publicKey;
    const third = await start(dataDir, next);
    expect(await anchorConfigOf(third.connection)).toBe(next.toBase58());
    await stop(third.chain);
  });
});
