/**
 * The local chain over real HTTP and WebSocket: @solana/web3.js `Connection` and Anchor 0.32
 * talk to it unchanged (blockhashes, airdrops, confirmation through signatureSubscribe,
 * transfers, statuses, transaction history, program calls and program errors), and the cluster's
 * error shapes (-32002 preflight, -32003 signature) come back as web3.js and Anchor expect.
 * Source: docs/protocol.md §7; Solana JSON-RPC HTTP/WebSocket methods.
 * @module
 */

import {
  AnchorProvider,
  BN,
  Program,
  ProgramError,
  parseIdlErrors,
  translateError,
  Wallet,
} from "@coral-xyz/anchor";
import {
  Connection,
  Keypair,
  LAMPORTS_PER_SOL,
  PublicKey,
  SendTransactionError,
  SystemProgram,
  sendAndConfirmTransaction,
  Transaction,
  type TransactionInstruction,
} from "@solana/web3.js";
import {
  COMMITMENT_ACCOUNT_SIZE,
  CommitmentErrorCode,
  createCommitInstruction,
  createInitializeInstruction,
  decodeCommitment,
  findCommitmentAddress,
  idlFor,
  LOCAL_PROGRAM_ID,
} from "@verifiable-memory/commitment-program";
import bs58 from "bs58";
import { LiteSVM } from "litesvm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import { type LocalChain, startLocalChain } from "../src/index.js";
import { removeDir, rpc, settleWebSockets, tempDir, until } from "./helpers.js";

const programId = new PublicKey(LOCAL_PROGRAM_ID);
let chain: LocalChain;
let dataDir: string;
let connection: Connection;
let payer: Keypair;

async function fundedKeypair(sol = 10): Promise<Keypair> {
  const keypair = Keypair.generate();
  const signature = await connection.requestAirdrop(keypair.publicKey, sol * LAMPORTS_PER_SOL);
  const latest = await connection.getLatestBlockhash();
  await connection.confirmTransaction({ signature, ...latest }, "confirmed");
  return keypair;
}

/** The Anchor method builder of instruction `name` (present in the commitment IDL). */
function method(program: Program, name: string) {
  const build = program.methods[name];
  if (!build) {
    throw new Error(`the IDL has no instruction ${name}`);
  }
  return build;
}

async function signed(
  instructions: TransactionInstruction[],
  signer: Keypair,
): Promise<Transaction> {
  const tx = new Transaction().add(...instructions);
  tx.feePayer = signer.publicKey;
  tx.recentBlockhash = (await connection.getLatestBlockhash()).blockhash;
  tx.sign(signer);
  return tx;
}

beforeAll(async () => {
  dataDir = tempDir();
  chain = await startLocalChain({ port: 0, dataDir, programId: LOCAL_PROGRAM_ID });
  connection = new Connection(chain.url, "confirmed");
  payer = await fundedKeypair(100);
});

afterAll(async () => {
  await settleWebSockets(chain);
  await chain.close();
  removeDir(dataDir);
});

describe("cluster information", () => {
  it("serves blockhashes that are valid for 150 slots and slots that follow the wall clock", async () => {
    const latest = await connection.getLatestBlockhash();
    const slot = await connection.getSlot();
    expect(bs58.decode(latest.blockhash)).toHaveLength(32);
    expect(latest.lastValidBlockHeight).toBeGreaterThanOrEqual(slot + 149);
    expect(await connection.isBlockhashValid(latest.blockhash)).toMatchObject({ value: true });
    expect(
      await connection.isBlockhashValid(bs58.encode(new Uint8Array(32).fill(9))),
    ).toMatchObject({ value: false });
    // Slots follow the wall clock: the next one comes within a second.
    await until("the next slot", async () => (await connection.getSlot()) > slot, 5_000);
    // Block height equals the slot here (no skipped slots); a slot may tick between two reads.
    const slotBefore = await connection.getSlot();
    const blockHeight = await connection.getBlockHeight();
    const slotAfter = await connection.getSlot();
    expect(blockHeight).toBeGreaterThanOrEqual(slotBefore);
    expect(blockHeight).toBeLessThanOrEqual(slotAfter);
  });

  it("answers getVersion, getHealth, getGenesisHash and getEpochInfo", async () => {
    expect((await connection.getVersion())["solana-core"]).toBe("3.1.11");
    expect((await rpc(chain.url, "getHealth")).result).toBe("ok");
    expect(await connection.getGenesisHash()).toBe(chain.genesisHash);
    const epoch = await connection.getEpochInfo();
    expect(epoch.absoluteSlot).toBe(epoch.blockHeight);
    expect(epoch.slotIndex).toBeLessThan(epoch.slotsInEpoch);
    expect(epoch.transactionCount).toBeGreaterThanOrEqual(1);
  });

  it("reports the rent-exempt minimum litesvm computes (121-byte commitment account)", async () => {
    const expected = Number(
      new LiteSVM().minimumBalanceForRentExemption(BigInt(COMMITMENT_ACCOUNT_SIZE)),
    );
    expect(await connection.getMinimumBalanceForRentExemption(COMMITMENT_ACCOUNT_SIZE)).toBe(
      expected,
    );
    expect(expected).toBe(1_733_040);
  });

  it("answers GET /healthz with 200 {status: ok} and refuses other GETs", async () => {
    const health = await fetch(`${chain.url}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: "ok" });
    expect((await fetch(`${chain.url}/`)).status).toBe(405);
  });

  it("answers GET /readyz with 200 {status: ready} once the program is deployed", async () => {
    const ready = await fetch(`${chain.url}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: "ready" });
    expect(ready.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("answers CORS for any origin, as agave does: preflights 204, every answer allows *", async () => {
    const preflight = await fetch(chain.url, {
      method: "OPTIONS",
      headers: {
        origin: "http://console.example",
        "access-control-request-method": "POST",
        "access-control-request-headers": "content-type",
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("access-control-allow-origin")).toBe("*");
    expect(preflight.headers.get("access-control-allow-methods")).toContain("POST");
    expect(preflight.headers.get("access-control-allow-headers")).toBe("content-type");
    const call = await fetch(chain.url, {
      method: "POST",
      headers: { "content-type": "application/json", origin: "http://console.example" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "getSlot" }),
    });
    expect(call.status).toBe(200);
    expect(call.headers.get("access-control-allow-origin")).toBe("*");
  });

  it("puts x-request-id on every HTTP answer, keeping a sane incoming one", async () => {
    const kept = await fetch(chain.url, {
      method: "POST",
      headers: { "content-type": "application/json", "x-request-id": "rpc-call-7" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "getSlot" }),
    });
    expect(kept.headers.get("x-request-id")).toBe("rpc-call-7");
    const replaced = await fetch(`${chain.url}/healthz`, {
      headers: { "x-request-id": "a b<script>" },
    });
    expect(replaced.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    expect((await fetch(`${chain.url}/`)).headers.get("x-request-id")).toMatch(/.+/);
  });

  it("answers JSON-RPC errors and batches as JSON-RPC 2.0 says", async () => {
    const unknown = await rpc(chain.url, "getNoSuchThing");
    expect(unknown.error?.code).toBe(-32601);
    const parse = await fetch(chain.url, { method: "POST", body: "{not json" });
    expect(((await parse.json()) as { error: { code: number } }).error.code).toBe(-32700);
    const batch = await fetch(chain.url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify([
        { jsonrpc: "2.0", id: "a", method: "getSlot" },
        { jsonrpc: "2.0", id: "b", method: "getHealth" },
      ]),
    });
    const answers = (await batch.json()) as { id: string; result: unknown }[];
    expect(answers.map((a) => a.id)).toEqual(["a", "b"]);
    expect(answers[1]?.result).toBe("ok");
  });
});

describe("airdrops, transfers and history", () => {
  it("airdrops lamports that getBalance then reports", async () => {
    const keypair = await fundedKeypair(3);
    expect(await connection.getBalance(keypair.publicKey)).toBe(3 * LAMPORTS_PER_SOL);
  });

  it("executes a transfer, reports it finalized and returns it from getTransaction", async () => {
    const recipient = Keypair.generate().publicKey;
    const before = await connection.getBalance(payer.publicKey);
    const tx = await signed(
      [
        SystemProgram.transfer({
          fromPubkey: payer.publicKey,
          toPubkey: recipient,
          lamports: 2_000_000,
        }),
      ],
      payer,
    );
    const signature = await sendAndConfirmTransaction(connection, tx, [payer]);
    expect(await connection.getBalance(recipient)).toBe(2_000_000);
    expect(await connection.getBalance(payer.publicKey)).toBe(before - 2_000_000 - 5000);

    const { value } = await connection.getSignatureStatuses([
      signature,
      bs58.encode(new Uint8Array(64)),
    ]);
    expect(value[0]).toMatchObject({ err: null, confirmationStatus: "finalized" });
    expect(value[1]).toBeNull();

    const fetched = await connection.getTransaction(signature, {
      maxSupportedTransactionVersion: 0,
    });
    expect(fetched?.transaction.signatures).toEqual([signature]);
    expect(fetched?.meta?.err).toBeNull();
    expect(fetched?.meta?.fee).toBe(5000);
    expect(fetched?.meta?.preBalances[0]).toBe(before);
    expect(fetched?.meta?.postBalances[0]).toBe(before - 2_000_000 - 5000);
    expect(fetched?.meta?.logMessages).toContain(
      "Program 11111111111111111111111111111111 success",
    );
    expect(fetched?.slot).toBe(value[0]?.slot);
    expect(Math.abs((fetched?.blockTime ?? 0) - Date.now() / 1000)).toBeLessThan(60);
    expect(fetched?.transaction.message.staticAccountKeys[1]?.toBase58()).toBe(
      recipient.toBase58(),
    );
    expect(await connection.getTransaction(bs58.encode(new Uint8Array(64)))).toBeNull();
  });

  it("accepts base58-encoded transactions and reads several accounts at once", async () => {
    const recipient = Keypair.generate().publicKey;
    const tx = await signed(
      [
        SystemProgram.transfer({
          fromPubkey: payer.publicKey,
          toPubkey: recipient,
          lamports: 1_000_777,
        }),
      ],
      payer,
    );
    const sent = await rpc(chain.url, "sendTransaction", [bs58.encode(tx.serialize())]);
    expect(sent.result).toBe(bs58.encode(tx.signature as Buffer));
    const many = await connection.getMultipleAccountsInfo([
      recipient,
      Keypair.generate().publicKey,
    ]);
    expect(many[0]?.lamports).toBe(1_000_777);
    expect(many[1]).toBeNull();
  });

  it("refuses a transaction whose signature does not verify, even with skipPreflight", async () => {
    const tx = await signed(
      [
        SystemProgram.transfer({
          fromPubkey: payer.publicKey,
          toPubkey: payer.publicKey,
          lamports: 1,
        }),
      ],
      payer,
    );
    const bytes = tx.serialize();
    bytes[1] = (bytes[1] ?? 0) ^ 0xff;
    await expect(connection.sendRawTransaction(bytes)).rejects.toThrow(
      "Transaction signature verification failure",
    );
    const raw = await rpc(chain.url, "sendTransaction", [
      bytes.toString("base64"),
      { encoding: "base64", skipPreflight: true },
    ]);
    expect(raw.error?.code).toBe(-32003);
    const { value } = await connection.getSignatureStatuses([bs58.encode(bytes.subarray(1, 65))]);
    expect(value[0]).toBeNull();
  });

  it("rejects an unknown blockhash and a duplicate at preflight", async () => {
    const tx = new Transaction().add(
      SystemProgram.transfer({
        fromPubkey: payer.publicKey,
        toPubkey: payer.publicKey,
        lamports: 2,
      }),
    );
    tx.feePayer = payer.publicKey;
    tx.recentBlockhash = bs58.encode(new Uint8Array(32).fill(7));
    tx.sign(payer);
    const stale = await rpc(chain.url, "sendTransaction", [
      tx.serialize().toString("base64"),
      { encoding: "base64" },
    ]);
    expect(stale.error).toMatchObject({
      code: -32002,
      message: "Transaction simulation failed: Blockhash not found",
      data: { err: "BlockhashNotFound" },
    });

    const good = await signed(
      [
        SystemProgram.transfer({
          fromPubkey: payer.publicKey,
          toPubkey: payer.publicKey,
          lamports: 3,
        }),
      ],
      payer,
    );
    await sendAndConfirmTransaction(connection, good, [payer]);
    const again = await rpc(chain.url, "sendTransaction", [
      good.serialize().toString("base64"),
      { encoding: "base64" },
    ]);
    expect(again.error).toMatchObject({
      code: -32002,
      message: "Transaction simulation failed: This transaction has already been processed",
      data: { err: "AlreadyProcessed" },
    });
  });
});

describe("the commitment program over RPC", () => {
  it("runs initialize and commit through Anchor Program.methods...rpc() unchanged", async () => {
    const authority = await fundedKeypair(5);
    const provider = new AnchorProvider(connection, new Wallet(authority), {
      commitment: "confirmed",
    });
    const program = new Program(idlFor(LOCAL_PROGRAM_ID), provider);
    const owner = Keypair.generate().publicKey;
    const [commitment] = findCommitmentAddress(owner, programId);

    await method(program, "initialize")(owner).accounts({ authority: authority.publicKey }).rpc();
    const root = Array.from({ length: 32 }, (_, i) => i + 1);
    await method(program, "commit")(root, new BN(7), new BN(0))
      .accountsPartial({ authority: authority.publicKey, commitment })
      .rpc();

    const info = await connection.getAccountInfo(commitment);
    expect(info?.owner.toBase58()).toBe(LOCAL_PROGRAM_ID);
    expect(info?.data).toHaveLength(COMMITMENT_ACCOUNT_SIZE);
    const decoded = decodeCommitment(info?.data ?? new Uint8Array());
    expect(decoded.authority).toBe(authority.publicKey.toBase58());
    expect(Array.from(decoded.root)).toEqual(root);
    expect(decoded.memoryCount).toBe(7n);
    expect(decoded.nonce).toBe(1n);

    const failure = await method(program, "commit")(root, new BN(6), new BN(1))
      .accountsPartial({ authority: authority.publicKey, commitment })
      .rpc()
      .then(
        () => null,
        (error: unknown) => error,
      );
    // As against a cluster: the program writes no AnchorError log, so Anchor hands back the
    // web3.js SendTransactionError with its logs and program error stack.
    expect(failure).toBeInstanceOf(SendTransactionError);
    const sendError = failure as SendTransactionError & { programErrorStack: PublicKey[] };
    expect(sendError.logs?.at(-1)).toBe(
      `Program ${LOCAL_PROGRAM_ID} failed: custom program error: 0x1771`,
    );
    expect(sendError.programErrorStack.map((key) => key.toBase58())).toEqual([LOCAL_PROGRAM_ID]);
    const translated = translateError(
      new Error(sendError.transactionError.message),
      parseIdlErrors(program.idl),
    );
    expect(translated).toBeInstanceOf(ProgramError);
    expect((translated as ProgramError).code).toBe(CommitmentErrorCode.CountDecreased);
    expect((translated as ProgramError).msg).toBe("memory_count must not decrease");
  });

  it("gives a failed program instruction the cluster's -32002 shape, and lands it with skipPreflight", async () => {
    const authority = await fundedKeypair(5);
    const owner = Keypair.generate().publicKey;
    const root = new Uint8Array(32).fill(5);
    const commit = (count: bigint, nonce: bigint) =>
      createCommitInstruction({
        programId,
        authority: authority.publicKey,
        owner,
        root,
        memoryCount: count,
        expectedNonce: nonce,
      });
    await sendAndConfirmTransaction(
      connection,
      await signed(
        [
          createInitializeInstruction({ programId, authority: authority.publicKey, owner }),
          commit(4n, 0n),
        ],
        authority,
      ),
      [authority],
    );

    const decreasing = await signed([commit(3n, 1n)], authority);
    const encoded = decreasing.serialize().toString("base64");
    const preflight = await rpc(chain.url, "sendTransaction", [encoded, { encoding: "base64" }]);
    expect(preflight.error?.code).toBe(-32002);
    expect(preflight.error?.message).toBe(
      "Transaction simulation failed: Error processing Instruction 0: custom program error: 0x1771",
    );
    const data = preflight.error?.data as { err: unknown; logs: string[] };
    expect(data.err).toEqual({ InstructionError: [0, { Custom: 6001 }] });
    expect(data.logs.some((line) => line.includes("custom program error: 0x1771"))).toBe(true);

    const sendError = await connection.sendRawTransaction(decreasing.serialize()).then(
      () => null,
      (error: unknown) => error,
    );
    expect(sendError).toBeInstanceOf(SendTransactionError);
    expect((sendError as SendTransactionError).transactionError.message).toContain("0x1771");

    const balance = await connection.getBalance(authority.publicKey);
    const landed = await rpc(chain.url, "sendTransaction", [
      encoded,
      { encoding: "base64", skipPreflight: true },
    ]);
    expect(landed.result).toBe(bs58.encode(decreasing.signature as Buffer));
    const { value } = await connection.getSignatureStatuses([landed.result as string]);
    expect(value[0]?.err).toEqual({ InstructionError: [0, { Custom: 6001 }] });
    expect(await connection.getBalance(authority.publicKey)).toBe(balance - 5000);
    const fetched = await connection.getTransaction(landed.result as string, {
      maxSupportedTransactionVersion: 0,
    });
    expect(fetched?.meta?.err).toEqual({ InstructionError: [0, { Custom: 6001 }] });
  });
});

describe("PubSub on port + 1", () => {
  it("notifies slotSubscribe and answers signatureSubscribe for an executed signature at once", async () => {
    const signature = await connection.requestAirdrop(
      Keypair.generate().publicKey,
      LAMPORTS_PER_SOL,
    );
    const socket = new WebSocket(chain.wsUrl);
    await new Promise((resolve, reject) => {
      socket.once("open", resolve);
      socket.once("error", reject);
    });
    const messages: { id?: number; method?: string; result?: unknown; params?: unknown }[] = [];
    socket.on("message", (data) => messages.push(JSON.parse(String(data))));
    socket.send(
      JSON.stringify({ jsonrpc: "2.0", id: 1, method: "signatureSubscribe", params: [signature] }),
    );
    socket.send(JSON.stringify({ jsonrpc: "2.0", id: 2, method: "slotSubscribe" }));
    await until(
      "both answers and both notifications",
      () =>
        messages.filter((m) => m.id !== undefined).length === 2 &&
        messages.some((m) => m.method === "signatureNotification") &&
        messages.some((m) => m.method === "slotNotification"),
    );
    socket.close();

    const signatureNote = messages.find((m) => m.method === "signatureNotification");
    expect(signatureNote?.params).toMatchObject({ result: { value: { err: null } } });
    const slotNote = messages.find((m) => m.method === "slotNotification");
    expect(slotNote?.params).toMatchObject({ result: { slot: expect.any(Number) } });
    expect(messages.filter((m) => m.id !== undefined).map((m) => m.id)).toEqual([1, 2]);
  });
});
