/**
 * Staking end to end on the real local chain (the program deployed through the real loader, its
 * clock warped): sign in, build a stake transaction, sign it with the wallet keypair, submit, see
 * the lot; warp past maturity; unstake, sign, submit; the wallet's balance grows by the lot minus
 * the fee, to the lamport. Also: the relay refuses anything but the caller's own stake/unstake,
 * and every staking route that reads the chain answers 503 when the chain cannot be read (RPC
 * stopped, or answering errors), never a figure from the stake_lots cache.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as ed from "@noble/ed25519";
import { Connection, Keypair, PublicKey, SystemProgram, Transaction } from "@solana/web3.js";
import { createStakeInstruction, LOCAL_PROGRAM_ID } from "@verifiable-memory/commitment-program";
import { listStakeLots, replaceStakeLots } from "@verifiable-memory/db-schema";
import { requestAirdrop, startLocalChain, warpClock } from "@verifiable-memory/litesvm-rpc";
import type { HttpTarget } from "@verifiable-memory/testkit";
import bs58 from "bs58";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callAt, signIn, startTestApp, type TestApp, type Wallet } from "./helpers.js";

const LOCK_SECONDS = 3600;
const FEE = 5000;
const SOL = 1_000_000_000;

let chainDir: string;
let chain: Awaited<ReturnType<typeof startLocalChain>>;
let t: TestApp;
let connection: Connection;

beforeAll(async () => {
  chainDir = await mkdtemp(join(tmpdir(), "core-api-staking-"));
  chain = await startLocalChain({
    port: 0,
    dataDir: chainDir,
    programId: LOCAL_PROGRAM_ID,
    stakeLockSeconds: LOCK_SECONDS,
  });
  connection = new Connection(chain.url, "confirmed");
  t = await startTestApp({ env: { CHAIN_RPC_URL: chain.url, SIWS_CHAIN_ID: "localnet" } });
});
afterAll(async () => {
  await t?.close();
  await chain?.close();
  await rm(chainDir, { recursive: true, force: true });
});

/** A wallet whose SIWS signatures and transaction signatures come from one Solana keypair. */
function walletOf(keypair: Keypair): Wallet {
  return {
    publicKey: keypair.publicKey.toBase58(),
    sign: (message) =>
      bs58.encode(ed.sign(new TextEncoder().encode(message), keypair.secretKey.subarray(0, 32))),
  };
}

interface Staker {
  readonly keypair: Keypair;
  readonly userId: string;
  readonly headers: Record<string, string>;
}

async function newStaker(target: HttpTarget, lamports = 10 * SOL): Promise<Staker> {
  const keypair = Keypair.generate();
  if (lamports > 0) {
    await requestAirdrop(chain.url, keypair.publicKey.toBase58(), lamports);
  }
  const { token, userId } = await signIn(target, walletOf(keypair));
  return { keypair, userId, headers: { authorization: `Bearer ${token}` } };
}

/** Signs an unsigned base64 transaction from the API with the wallet's keypair. */
function signed(keypair: Keypair, base64: string): string {
  const tx = Transaction.from(Buffer.from(base64, "base64"));
  tx.partialSign(keypair);
  return tx.serialize().toString("base64");
}

interface Position {
  vault: string;
  balanceLamports: string;
  withdrawableLamports: string;
  lockPeriodSeconds: number;
  chainTime: string;
  lots: { amountLamports: string; maturesAt: string; matured: boolean }[];
}

function position(s: Staker, target: HttpTarget = t.app) {
  return callAt<Position>(target, "/staking", { headers: s.headers });
}

async function stake(s: Staker, amountLamports: number): Promise<string> {
  const prepared = await callAt<{ transaction: string; vault: string; maturesAt: string }>(
    t.app,
    "/staking/stake",
    { headers: s.headers, body: { amountLamports: String(amountLamports) } },
  );
  expect(prepared.status).toBe(200);
  const submitted = await callAt<{ signature: string }>(t.app, "/staking/submit", {
    headers: s.headers,
    body: { transaction: signed(s.keypair, prepared.body.transaction) },
  });
  expect(submitted.status).toBe(200);
  return submitted.body.signature;
}

describe("staking on the local chain", () => {
  it("stakes, refuses an early unstake, matures by warp and pays back to the lamport", async () => {
    const s = await newStaker(t.app);
    const empty = await position(s);
    expect(empty.status).toBe(200);
    expect(empty.body).toMatchObject({
      balanceLamports: "0",
      withdrawableLamports: "0",
      lockPeriodSeconds: LOCK_SECONDS,
      lots: [],
    });

    const prepared = await callAt<{ transaction: string; vault: string; maturesAt: string }>(
      t.app,
      "/staking/stake",
      { headers: s.headers, body: { amountLamports: String(2 * SOL) } },
    );
    expect(prepared.status).toBe(200);
    expect(prepared.body.vault).toBe(empty.body.vault);
    const unsigned = Transaction.from(Buffer.from(prepared.body.transaction, "base64"));
    expect(unsigned.feePayer?.equals(s.keypair.publicKey)).toBe(true);
    expect(unsigned.signatures.every((sig) => sig.signature === null)).toBe(true);
    const submitted = await callAt<{ signature: string; slot: number }>(t.app, "/staking/submit", {
      headers: s.headers,
      body: { transaction: signed(s.keypair, prepared.body.transaction) },
    });
    expect(submitted.status).toBe(200);
    expect(bs58.decode(submitted.body.signature)).toHaveLength(64);

    const staked = await position(s);
    expect(staked.body.balanceLamports).toBe(String(2 * SOL));
    expect(staked.body.withdrawableLamports).toBe("0");
    expect(staked.body.lots).toEqual([
      { amountLamports: String(2 * SOL), maturesAt: expect.any(String), matured: false },
    ]);
    const maturesAt = Date.parse(staked.body.lots[0]?.maturesAt ?? "");
    expect(maturesAt - Date.parse(staked.body.chainTime)).toBeGreaterThan(
      (LOCK_SECONDS - 60) * 1000,
    );
    const cached = await listStakeLots(t.db, s.userId);
    expect(cached.map((l) => [l.position, l.amountLamports])).toEqual([[0, BigInt(2 * SOL)]]);

    const early = await callAt<{ error: { code: string } }>(t.app, "/staking/unstake", {
      headers: s.headers,
      body: {},
    });
    expect(early.status).toBe(409);
    expect(early.body.error.code).toBe("nothing_matured");

    await warpClock(chain.url, LOCK_SECONDS + 1);
    const matured = await position(s);
    expect(matured.body.lots[0]?.matured).toBe(true);
    expect(matured.body.withdrawableLamports).toBe(String(2 * SOL));

    const unstake = await callAt<{ transaction: string; amountLamports: string; lots: unknown[] }>(
      t.app,
      "/staking/unstake",
      { headers: s.headers, body: {} },
    );
    expect(unstake.status).toBe(200);
    expect(unstake.body.amountLamports).toBe(String(2 * SOL));
    expect(unstake.body.lots).toHaveLength(1);
    const before = await connection.getBalance(s.keypair.publicKey);
    const paid = await callAt(t.app, "/staking/submit", {
      headers: s.headers,
      body: { transaction: signed(s.keypair, unstake.body.transaction) },
    });
    expect(paid.status).toBe(200);
    expect(await connection.getBalance(s.keypair.publicKey)).toBe(before + 2 * SOL - FEE);

    const after = await position(s);
    expect(after.body).toMatchObject({ balanceLamports: "0", lots: [] });
    expect(await listStakeLots(t.db, s.userId)).toEqual([]);
  });

  it("pays only matured lots when some are still locked", async () => {
    const s = await newStaker(t.app);
    await stake(s, SOL);
    await warpClock(chain.url, LOCK_SECONDS + 1);
    await stake(s, 3 * SOL);
    const mixed = await position(s);
    expect(mixed.body.lots.map((l) => [l.amountLamports, l.matured])).toEqual([
      [String(SOL), true],
      [String(3 * SOL), false],
    ]);
    const unstake = await callAt<{ transaction: string; amountLamports: string }>(
      t.app,
      "/staking/unstake",
      { headers: s.headers, body: {} },
    );
    expect(unstake.body.amountLamports).toBe(String(SOL));
    const before = await connection.getBalance(s.keypair.publicKey);
    await callAt(t.app, "/staking/submit", {
      headers: s.headers,
      body: { transaction: signed(s.keypair, unstake.body.transaction) },
    });
    expect(await connection.getBalance(s.keypair.publicKey)).toBe(before + SOL - FEE);
    const left = await position(s);
    expect(left.body.lots.map((l) => l.amountLamports)).toEqual([String(3 * SOL)]);
  });

  it("refuses a stake the wallet cannot pay with 409 insufficient_funds", async () => {
    const s = await newStaker(t.app, SOL);
    const res = await callAt<{ error: { code: string } }>(t.app, "/staking/stake", {
      headers: s.headers,
      body: { amountLamports: String(5 * SOL) },
    });
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe("insufficient_funds");
  });

  it("validates amountLamports as a positive u64 decimal string", async () => {
    const s = await newStaker(t.app, 0);
    for (const amountLamports of ["0", "-1", "1.5", "18446744073709551616", 5, "", "01"]) {
      const res = await callAt<{ error: { code: string } }>(t.app, "/staking/stake", {
        headers: s.headers,
        body: { amountLamports },
      });
      expect(res.status, String(amountLamports)).toBe(400);
      expect(res.body.error.code).toBe("invalid_request");
    }
  });

  it("relays only this program's stake/unstake of the caller's own vault", async () => {
    const s = await newStaker(t.app);
    const other = Keypair.generate();
    const { blockhash, lastValidBlockHeight } = await connection.getLatestBlockhash();
    const base = () =>
      new Transaction({ feePayer: s.keypair.publicKey, blockhash, lastValidBlockHeight });
    const signedBy = (tx: Transaction, ...signers: Keypair[]) => {
      tx.sign(...signers);
      return tx.serialize().toString("base64");
    };
    const stakeIx = (owner: Keypair, programId = new PublicKey(LOCAL_PROGRAM_ID)) =>
      createStakeInstruction({ programId, owner: owner.publicKey, amountLamports: 1000n });
    const refused: Record<string, string> = {
      "a system transfer": signedBy(
        base().add(
          SystemProgram.transfer({
            fromPubkey: s.keypair.publicKey,
            toPubkey: other.publicKey,
            lamports: 1000,
          }),
        ),
        s.keypair,
      ),
      "a stake into another wallet's vault": signedBy(base().add(stakeIx(other)), s.keypair, other),
      "another program's stake": signedBy(
        base().add(stakeIx(s.keypair, new Keypair().publicKey)),
        s.keypair,
      ),
      "a stake with another fee payer": signedBy(
        new Transaction({ feePayer: other.publicKey, blockhash, lastValidBlockHeight }).add(
          stakeIx(s.keypair),
        ),
        other,
        s.keypair,
      ),
      "a stake and a transfer together": signedBy(
        base()
          .add(stakeIx(s.keypair))
          .add(
            SystemProgram.transfer({
              fromPubkey: s.keypair.publicKey,
              toPubkey: other.publicKey,
              lamports: 1,
            }),
          ),
        s.keypair,
      ),
      "an unsigned stake": base()
        .add(stakeIx(s.keypair))
        .serialize({ requireAllSignatures: false })
        .toString("base64"),
      "not a transaction": Buffer.from("hello").toString("base64"),
    };
    for (const [what, transaction] of Object.entries(refused)) {
      const res = await callAt<{ error: { code: string } }>(t.app, "/staking/submit", {
        headers: s.headers,
        body: { transaction },
      });
      expect(res.status, what).toBe(400);
      expect(res.body.error.code, what).toBe("invalid_transaction");
    }
    expect((await position(s)).body.lots).toEqual([]);
  });
});

describe("staking when the chain cannot be read", () => {
  let erroring: Server;
  let erroringUrl: string;
  let down: TestApp;
  let failing: TestApp;

  beforeAll(async () => {
    erroring = createServer((req, res) => {
      let body = "";
      req.on("data", (chunk: Buffer) => {
        body += chunk.toString();
      });
      req.on("end", () => {
        const id = (() => {
          try {
            return (JSON.parse(body) as { id?: unknown }).id ?? null;
          } catch {
            return null;
          }
        })();
        res.setHeader("content-type", "application/json");
        res.end(JSON.stringify({ jsonrpc: "2.0", id, error: { code: -32603, message: "boom" } }));
      });
    });
    await new Promise<void>((resolve) => erroring.listen(0, "127.0.0.1", () => resolve()));
    erroringUrl = `http://127.0.0.1:${(erroring.address() as AddressInfo).port}`;
    const stopped = createServer();
    await new Promise<void>((resolve) => stopped.listen(0, "127.0.0.1", () => resolve()));
    const stoppedUrl = `http://127.0.0.1:${(stopped.address() as AddressInfo).port}`;
    await new Promise<void>((resolve) => stopped.close(() => resolve()));
    down = await startTestApp({ env: { CHAIN_RPC_URL: stoppedUrl, SIWS_CHAIN_ID: "localnet" } });
    failing = await startTestApp({
      env: { CHAIN_RPC_URL: erroringUrl, SIWS_CHAIN_ID: "localnet" },
    });
  });
  afterAll(async () => {
    await down?.close();
    await failing?.close();
    await new Promise<void>((resolve) => erroring.close(() => resolve()));
  });

  for (const which of ["stopped", "answering errors"] as const) {
    it(`answers 503 chain_unavailable on every chain-reading route (RPC ${which}), never the cache`, async () => {
      const app = which === "stopped" ? down : failing;
      const s = await newStaker(app.app, 0);
      await replaceStakeLots(
        app.db,
        s.userId,
        [{ amountLamports: 5n * BigInt(SOL), unlockAt: new Date(0) }],
        new Date(),
      );
      const requests: [string, unknown][] = [
        ["/staking", undefined],
        ["/staking/stake", { amountLamports: "1000" }],
        ["/staking/unstake", {}],
      ];
      for (const [path, body] of requests) {
        const res = await callAt<{ error: { code: string } }>(app.app, `${path}`, {
          headers: s.headers,
          ...(body === undefined ? {} : { body }),
        });
        expect(res.status, path).toBe(503);
        expect(res.body.error.code, path).toBe("chain_unavailable");
        expect(JSON.stringify(res.body), path).not.toContain("5000000000");
      }
    });
  }
});
