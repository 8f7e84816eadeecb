/**
 * verifyBundle and the svc-verify command line against a real chain: the local chain
 * (@verifiable-memory/litesvm-rpc, litesvm with the commitment program) in process on port 0, commitments made
 * with the program's own instructions by a funded authority, and bundles shaped like
 * `GET /memories/:id/proof` (docs/protocol.md §6) cut from an in-memory RFC 9162 log. VERIFIED for a good
 * bundle (library and spawned bin); NOT VERIFIED for a tampered proof, tampered content, a stale
 * checkpoint, a wrong program id, a foreign authority, and an owner without an account. An old
 * bundle bridged with `--api` by a consistency proof from an HTTP server standing in for the
 * memory API: VERIFIED when honest, NOT VERIFIED: consistency_invalid when it tampers.
 */
import { execFile } from "node:child_process";
import { randomBytes, randomUUID } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import {
  Connection,
  Keypair,
  LAMPORTS_PER_SOL,
  PublicKey,
  sendAndConfirmTransaction,
  Transaction,
} from "@solana/web3.js";
import {
  createCommitInstruction,
  createInitializeInstruction,
  LOCAL_PROGRAM_ID,
} from "@verifiable-memory/commitment-program";
import { type LocalChain, startLocalChain } from "@verifiable-memory/litesvm-rpc";
import {
  CompactRange,
  consistencyProof,
  inclusionProof,
  MemoryNodeStore,
  toHex,
} from "@verifiable-memory/merkle-log";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  commitmentAddress,
  contentHashOf,
  type LeafData,
  leafHashOf,
  runCli,
  type VerifyCheckName,
  type VerifyResult,
  verifyBundle,
} from "../src/index.js";

const run = promisify(execFile);
const programId = new PublicKey(LOCAL_PROGRAM_ID);

/** An owner's log kept in memory, committed to the chain on demand. */
class Log {
  readonly owner = Keypair.generate().publicKey;
  readonly range = CompactRange.empty();
  readonly store = new MemoryNodeStore();
  readonly memories: { leafData: LeafData; content: string; salt: Buffer }[] = [];
  nonce = 0;

  append(n: number): void {
    for (let i = 0; i < n; i++) {
      const salt = randomBytes(16);
      const content = `memory ${this.memories.length}: ${randomBytes(4).toString("hex")}`;
      const leafData: LeafData = {
        v: 1,
        memoryId: randomUUID(),
        owner: this.owner.toBase58(),
        createdAt: new Date().toISOString(),
        metadata: { n: this.memories.length },
        contentHash: contentHashOf(salt, content),
      };
      this.memories.push({ leafData, content, salt });
      this.store.put(this.range.append(leafHashOf(leafData)));
    }
  }
}

let chain: LocalChain;
let dataDir: string;
let connection: Connection;
const authority = Keypair.generate();

async function commit(log: Log): Promise<string> {
  const tx = new Transaction();
  if (log.nonce === 0) {
    tx.add(
      createInitializeInstruction({ programId, authority: authority.publicKey, owner: log.owner }),
    );
  }
  tx.add(
    createCommitInstruction({
      programId,
      authority: authority.publicKey,
      owner: log.owner,
      root: log.range.root(),
      memoryCount: BigInt(log.range.size),
      expectedNonce: BigInt(log.nonce),
    }),
  );
  const signature = await sendAndConfirmTransaction(connection, tx, [authority], {
    commitment: "confirmed",
  });
  log.nonce += 1;
  return signature;
}

/** The bundle of memory `index` cut at the log's current size (as committed by `signature`). */
async function bundleOf(log: Log, index: number, signature: string) {
  const memory = log.memories[index];
  if (!memory) {
    throw new RangeError(`no memory ${index}`);
  }
  const size = log.range.size;
  const proof = await inclusionProof(index, size, log.store);
  return {
    memoryId: memory.leafData.memoryId,
    leafIndex: index,
    leafHash: toHex(leafHashOf(memory.leafData)),
    leafData: memory.leafData,
    salt: memory.salt.toString("base64"),
    anchored: true,
    checkpoint: { treeSize: size, rootHash: toHex(log.range.root()) },
    inclusionProof: proof.map((node) => toHex(node)),
    anchor: {
      cluster: "localnet",
      programId: LOCAL_PROGRAM_ID,
      account: commitmentAddress(log.owner.toBase58(), LOCAL_PROGRAM_ID),
      memoryCount: size,
      nonce: log.nonce,
      signature,
    },
  };
}

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), "svc-verifier-chain-"));
  chain = await startLocalChain({ port: 0, dataDir, programId: LOCAL_PROGRAM_ID });
  connection = new Connection(chain.url, { commitment: "confirmed", wsEndpoint: chain.wsUrl });
  const airdrop = await connection.requestAirdrop(authority.publicKey, 10 * LAMPORTS_PER_SOL);
  const latest = await connection.getLatestBlockhash();
  await connection.confirmTransaction({ signature: airdrop, ...latest }, "confirmed");
});

afterAll(async () => {
  await chain?.close();
  await rm(dataDir, { recursive: true, force: true });
});

describe("verifyBundle against the local chain", () => {
  const log = new Log();
  let firstBundle: Awaited<ReturnType<typeof bundleOf>>;

  /**
   * The verdict, and its checks: each passed but the last, which fails with the reason's message
   * unless verified; `checks` (when given) names the checks made, in order.
   */
  const expectVerdict = (
    result: VerifyResult,
    reason: string | null,
    checks?: readonly VerifyCheckName[],
  ) => {
    expect({ verified: result.verified, reason: result.reason, message: result.message }).toEqual({
      verified: reason === null,
      reason,
      message: expect.any(String),
    });
    const passed = result.checks.map((check) => check.passed);
    expect(passed).toEqual(result.checks.map((_, i) => reason === null || i < passed.length - 1));
    if (reason !== null) {
      expect(result.checks.at(-1)?.detail).toBe(result.message);
    }
    if (checks !== undefined) {
      expect(result.checks.map((check) => check.check)).toEqual(checks);
    }
  };

  it("VERIFIED: the proof leads to the root read from the chain, content included", async () => {
    log.append(5);
    const signature = await commit(log);
    firstBundle = await bundleOf(log, 2, signature);
    const content = log.memories[2]?.content;
    const result = await verifyBundle(firstBundle, { rpcUrl: chain.url, content });
    expectVerdict(result, null, [
      "bundle",
      "anchored",
      "leaf",
      "content",
      "account",
      "chain",
      "checkpoint",
      "inclusion",
    ]);
    expect(result.contentChecked).toBe(true);
    expect(result.onChain).toEqual({
      account: firstBundle.anchor.account,
      programId: LOCAL_PROGRAM_ID,
      authority: authority.publicKey.toBase58(),
      owner: log.owner.toBase58(),
      root: toHex(log.range.root()),
      memoryCount: 5,
      nonce: 1,
    });
    // The grant shape: a memory object with the bundle nested as `proof` and its content.
    const grantMemory = { id: firstBundle.memoryId, content, proof: firstBundle };
    expectVerdict(await verifyBundle(grantMemory, { rpcUrl: chain.url }), null);
    expectVerdict(
      await verifyBundle(firstBundle, {
        rpcUrl: chain.url,
        authority: authority.publicKey.toBase58(),
      }),
      null,
    );
  });

  it("NOT VERIFIED: proof_invalid for a tampered proof node", async () => {
    const tampered = structuredClone(firstBundle);
    const node = tampered.inclusionProof[0] as string;
    tampered.inclusionProof[0] = `${node[0] === "0" ? "1" : "0"}${node.slice(1)}`;
    expectVerdict(await verifyBundle(tampered, { rpcUrl: chain.url }), "proof_invalid", [
      "bundle",
      "anchored",
      "leaf",
      "account",
      "chain",
      "checkpoint",
      "inclusion",
    ]);
    const shifted = { ...firstBundle, leafIndex: 3 };
    expectVerdict(await verifyBundle(shifted, { rpcUrl: chain.url }), "proof_invalid");
  });

  it("NOT VERIFIED: content_mismatch for tampered content", async () => {
    const result = await verifyBundle(
      { ...firstBundle, content: `${log.memories[2]?.content}!` },
      { rpcUrl: chain.url },
    );
    expectVerdict(result, "content_mismatch");
  });

  it("NOT VERIFIED: account_mismatch for a wrong program id", async () => {
    const other = Keypair.generate().publicKey.toBase58();
    expectVerdict(
      await verifyBundle(firstBundle, { rpcUrl: chain.url, programId: other }),
      "account_mismatch",
    );
    // The bundle claiming another program: its account is not the PDA under that program.
    const claimed = { ...firstBundle, anchor: { ...firstBundle.anchor, programId: other } };
    expectVerdict(await verifyBundle(claimed, { rpcUrl: chain.url }), "account_mismatch");
  });

  it("NOT VERIFIED: authority_mismatch when another authority is expected", async () => {
    const result = await verifyBundle(firstBundle, {
      rpcUrl: chain.url,
      authority: Keypair.generate().publicKey.toBase58(),
    });
    expectVerdict(result, "authority_mismatch", [
      "bundle",
      "anchored",
      "leaf",
      "account",
      "chain",
      "authority",
    ]);
  });

  it("NOT VERIFIED: stale_checkpoint once a newer root is committed; a fresh bundle verifies", async () => {
    log.append(3);
    const signature = await commit(log);
    const result = await verifyBundle(firstBundle, { rpcUrl: chain.url });
    expectVerdict(result, "stale_checkpoint", [
      "bundle",
      "anchored",
      "leaf",
      "account",
      "chain",
      "checkpoint",
    ]);
    expect(result.onChain?.memoryCount).toBe(8);
    expectVerdict(
      await verifyBundle(await bundleOf(log, 2, signature), { rpcUrl: chain.url }),
      null,
    );
    expectVerdict(
      await verifyBundle(await bundleOf(log, 7, signature), { rpcUrl: chain.url }),
      null,
    );
  });

  it("NOT VERIFIED: checkpoint_mismatch when the bundle claims a root the chain does not hold", async () => {
    const signature = await commit(log); // same size, nonce + 1
    const fresh = await bundleOf(log, 1, signature);
    const forged = { ...fresh, checkpoint: { ...fresh.checkpoint, rootHash: "ab".repeat(32) } };
    expectVerdict(await verifyBundle(forged, { rpcUrl: chain.url }), "checkpoint_mismatch");
  });

  it("NOT VERIFIED: account_not_found for an owner never committed", async () => {
    const lonely = new Log();
    lonely.append(1);
    const bundle = await bundleOf(lonely, 0, "none");
    expectVerdict(await verifyBundle(bundle, { rpcUrl: chain.url }), "account_not_found");
  });
});

describe("svc-verify (the bin, spawned)", () => {
  it("prints VERIFIED and exits 0; NOT VERIFIED: <reason> and exits 1", async () => {
    const log = new Log();
    log.append(4);
    const signature = await commit(log);
    const bundle = await bundleOf(log, 3, signature);
    const dir = await mkdtemp(join(tmpdir(), "svc-verify-"));
    const good = join(dir, "good.json");
    const content = join(dir, "content.txt");
    const bad = join(dir, "bad.json");
    await writeFile(good, JSON.stringify(bundle));
    await writeFile(content, log.memories[3]?.content ?? "");
    await writeFile(bad, JSON.stringify({ ...bundle, leafIndex: 2 }));
    const bin = fileURLToPath(new URL("../bin/svc-verify.js", import.meta.url));
    try {
      const ok = await run(process.execPath, [bin, "--rpc", chain.url, "--content", content, good]);
      expect(ok.stdout.split("\n")[0]).toBe("VERIFIED");
      expect(ok.stdout).toContain("(content checked)");
      const failed = await run(process.execPath, [bin, "--rpc", chain.url, bad]).then(
        () => null,
        (error: { code: number; stdout: string }) => error,
      );
      expect(failed?.code).toBe(1);
      expect(failed?.stdout.split("\n")[0]).toBe("NOT VERIFIED: proof_invalid");
      const io = {
        out: [] as string[],
        stdout(text: string) {
          this.out.push(text);
        },
        stderr() {},
        readStdin: async () => JSON.stringify(bundle),
        readFile: async () => "",
      };
      expect(await runCli(["--rpc", chain.url, "--json"], io)).toBe(0);
      expect(JSON.parse(io.out.join(""))).toMatchObject({ verified: true, reason: null });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

/**
 * An HTTP server standing in for the memory API's public `GET /owners/{owner}/consistency`,
 * answering from `log`'s node store; `tamper` alters the proof before it is sent.
 */
async function consistencyServer(
  log: Log,
  tamper: (proof: string[]) => string[] = (proof) => proof,
): Promise<{ url: string; requests: string[]; server: Server }> {
  const requests: string[] = [];
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://x");
    requests.push(
      `${req.method} ${url.pathname}${url.search} auth=${req.headers.authorization ?? "none"}`,
    );
    const match = /^\/owners\/([^/]+)\/consistency$/.exec(url.pathname);
    const from = Number(url.searchParams.get("from"));
    const to = Number(url.searchParams.get("to"));
    if (
      !match ||
      match[1] !== log.owner.toBase58() ||
      !(from >= 1 && from <= to && to <= log.range.size)
    ) {
      res.writeHead(404, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { code: "not_found", message: "no anchored log" } }));
      return;
    }
    void consistencyProof(from, to, log.store).then((proof) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(
        JSON.stringify({
          owner: match[1],
          from,
          to,
          fromRoot: "00".repeat(32),
          toRoot: "00".repeat(32),
          proof: tamper(proof.map((node) => toHex(node))),
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, requests, server };
}

describe("an old bundle bridged by a consistency proof (--api)", () => {
  it("VERIFIED through an honest API after more commits; NOT VERIFIED: consistency_invalid when it tampers", async () => {
    const log = new Log();
    log.append(6);
    const old = await bundleOf(log, 4, await commit(log));
    for (let round = 0; round < 3; round++) {
      log.append(5);
      await commit(log);
    }
    const honest = await consistencyServer(log);
    const tampered = await consistencyServer(log, (proof) =>
      proof.map((node, i) =>
        i === proof.length - 1 ? `${node.slice(0, 63)}${node[63] === "0" ? "1" : "0"}` : node,
      ),
    );
    const dir = await mkdtemp(join(tmpdir(), "svc-verify-old-"));
    const file = join(dir, "old.json");
    await writeFile(file, JSON.stringify(old));
    const bin = fileURLToPath(new URL("../bin/svc-verify.js", import.meta.url));
    try {
      const stale = await run(process.execPath, [bin, "--rpc", chain.url, file]).catch(
        (error: { code: number; stdout: string }) => error,
      );
      expect(stale).toMatchObject({ code: 1 });
      expect((stale as { stdout: string }).stdout.split("\n")[0]).toBe(
        "NOT VERIFIED: stale_checkpoint",
      );

      const ok = await run(process.execPath, [bin, "--rpc", chain.url, "--api", honest.url, file]);
      expect(ok.stdout.split("\n")[0]).toBe("VERIFIED");
      expect(ok.stdout).toContain("consistency proof 6 → 21");
      expect(honest.requests).toEqual([
        `GET /owners/${log.owner.toBase58()}/consistency?from=6&to=21 auth=none`,
      ]);

      const result = await verifyBundle(old, {
        rpcUrl: chain.url,
        apiUrl: honest.url,
        authority: authority.publicKey.toBase58(),
        content: log.memories[4]?.content,
      });
      expect(result).toMatchObject({
        verified: true,
        contentChecked: true,
        bridged: { from: 6, to: 21 },
        onChain: { memoryCount: 21, nonce: 4, root: toHex(log.range.root()) },
      });

      const bad = await run(process.execPath, [
        bin,
        "--rpc",
        chain.url,
        "--api",
        tampered.url,
        file,
      ])
        .then(() => null)
        .catch((error: { code: number; stdout: string }) => error);
      expect(bad?.code).toBe(1);
      expect(bad?.stdout.split("\n")[0]).toBe("NOT VERIFIED: consistency_invalid");
      expect(await verifyBundle(old, { rpcUrl: chain.url, apiUrl: tampered.url })).toMatchObject({
        verified: false,
        reason: "consistency_invalid",
        bridged: null,
      });
    } finally {
      honest.server.close();
      tampered.server.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
