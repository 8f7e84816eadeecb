/**
 * Old bundles bridged to the on-chain root by an RFC 9162 §2.1.4 consistency proof
 * (docs/protocol.md §6.3), offline: an in-memory log (CompactRange + MemoryNodeStore), the chain
 * RPC and the memory API both answered by an injected fetch. An old bundle verifies with an honest
 * proof and records the bridge; it is `stale_checkpoint` without an API, `consistency_invalid` for
 * a tampered, wrong-range, malformed or forged proof (the API's own roots are never believed),
 * `consistency_unavailable` when no proof can be had, `proof_invalid` when its own inclusion proof
 * is bad; a bundle newer than the chain stays `checkpoint_mismatch`.
 */
import { randomBytes, randomUUID } from "node:crypto";
import { PublicKey } from "@solana/web3.js";
import {
  COMMITMENT_ACCOUNT_DISCRIMINATOR,
  LOCAL_PROGRAM_ID,
} from "@verifiable-memory/commitment-program";
import {
  CompactRange,
  consistencyProof,
  type Hash,
  inclusionProof,
  MemoryNodeStore,
  toHex,
} from "@verifiable-memory/merkle-log";
import { describe, expect, it, vi } from "vitest";
import {
  type CliIo,
  commitmentAddress,
  consistencyFetcher,
  consistencyUrl,
  contentHashOf,
  type FetchConsistency,
  type LeafData,
  leafHashOf,
  runCli,
  type VerifyOptions,
  verifyBundle,
} from "../src/index.js";

const RPC = "http://rpc.test";
const API = "http://api.test/base";
const authority = new PublicKey(randomBytes(32)).toBase58();

/** An owner's log in memory; `snapshot` keeps the nodes and roots of every size so far. */
class Log {
  readonly range = CompactRange.empty();
  readonly store = new MemoryNodeStore();
  readonly leaves: { leafData: LeafData; salt: Buffer }[] = [];
  readonly roots: Hash[] = [];

  constructor(readonly owner = new PublicKey(randomBytes(32)).toBase58()) {}

  /** Appends `n` leaves; leaf i's content is `${tag} ${i}`. */
  append(n: number, tag = "memory"): this {
    for (let i = 0; i < n; i++) {
      const salt = randomBytes(16);
      const leafData: LeafData = {
        v: 1,
        memoryId: randomUUID(),
        owner: this.owner,
        createdAt: "2026-11-22T10:00:00.000Z",
        metadata: { tag, i: this.leaves.length },
        contentHash: contentHashOf(salt, `${tag} ${this.leaves.length}`),
      };
      this.push({ leafData, salt });
    }
    return this;
  }

  push(leaf: { leafData: LeafData; salt: Buffer }): void {
    this.leaves.push(leaf);
    this.store.put(this.range.append(leafHashOf(leaf.leafData)));
    this.roots.push(this.range.root());
  }

  rootAt(size: number): Hash {
    const root = this.roots[size - 1];
    if (!root) {
      throw new RangeError(`no size ${size}`);
    }
    return root;
  }

  /** The bundle of leaf `index` cut at `size` (as `GET /memories/:id/proof` answered then). */
  async bundle(index: number, size: number) {
    const { leafData, salt } = this.leaves[index] as { leafData: LeafData; salt: Buffer };
    return {
      memoryId: leafData.memoryId,
      leafIndex: index,
      leafHash: toHex(leafHashOf(leafData)),
      leafData,
      salt: salt.toString("base64"),
      anchored: true,
      checkpoint: { treeSize: size, rootHash: toHex(this.rootAt(size)) },
      inclusionProof: (await inclusionProof(index, size, this.store)).map(toHex),
      anchor: {
        cluster: "localnet",
        programId: LOCAL_PROGRAM_ID,
        account: commitmentAddress(this.owner, LOCAL_PROGRAM_ID),
        memoryCount: size,
        nonce: 1,
        signature: "sig",
      },
    };
  }

  /** The answer of `GET /owners/{owner}/consistency?from&to`. */
  async answer(from: number, to: number) {
    return {
      owner: this.owner,
      from,
      to,
      fromRoot: toHex(this.rootAt(from)),
      toRoot: toHex(this.rootAt(to)),
      proof: (await consistencyProof(from, to, this.store)).map(toHex),
    };
  }
}

/** The 121-byte commitment account of `owner` holding (root, memoryCount). */
function accountData(owner: string, root: Hash, memoryCount: number, nonce: number): string {
  const data = Buffer.alloc(121);
  Buffer.from(COMMITMENT_ACCOUNT_DISCRIMINATOR).copy(data, 0);
  new PublicKey(authority).toBuffer().copy(data, 8);
  new PublicKey(owner).toBuffer().copy(data, 40);
  Buffer.from(root).copy(data, 72);
  data.writeBigUInt64LE(BigInt(memoryCount), 104);
  data.writeBigUInt64LE(BigInt(nonce), 112);
  data[120] = 255;
  return data.toString("base64");
}

interface FakeNet {
  readonly fetch: typeof fetch;
  /** Every API request: its URL and its authorization header (null when absent). */
  readonly apiCalls: { url: string; authorization: string | null }[];
}

/**
 * A fetch answering the chain RPC with `owner`'s commitment (root, size) and the API with
 * `api(url)` (a Response).
 */
function fakeNet(
  log: Log,
  onChain: { root: Hash; size: number },
  api: (url: URL) => Promise<Response> | Response,
): FakeNet {
  const apiCalls: FakeNet["apiCalls"] = [];
  const fetchImpl = (async (input: string | URL | Request, init?: RequestInit) => {
    const request = new Request(input, init);
    const url = new URL(request.url);
    if (url.origin === RPC) {
      return Response.json({
        jsonrpc: "2.0",
        id: 1,
        result: {
          context: { slot: 1 },
          value: {
            data: [accountData(log.owner, onChain.root, onChain.size, 2), "base64"],
            owner: LOCAL_PROGRAM_ID,
          },
        },
      });
    }
    apiCalls.push({ url: request.url, authorization: request.headers.get("authorization") });
    return api(url);
  }) as typeof fetch;
  return { fetch: fetchImpl, apiCalls };
}

/** The honest API over `log`. */
function honestApi(log: Log) {
  return async (url: URL) => {
    const from = Number(url.searchParams.get("from"));
    const to = Number(url.searchParams.get("to"));
    return Response.json(await log.answer(from, to));
  };
}

const M = 5;
const N = 13;

describe("an old bundle (checkpoint 5, chain 13)", () => {
  const log = new Log().append(N);
  const chainNow = { root: log.rootAt(N), size: N };

  it("is stale_checkpoint without an API, as before", async () => {
    const net = fakeNet(log, chainNow, honestApi(log));
    const result = await verifyBundle(await log.bundle(2, M), { rpcUrl: RPC, fetch: net.fetch });
    expect(result).toMatchObject({ verified: false, reason: "stale_checkpoint", bridged: null });
    expect(result.onChain).toMatchObject({ memoryCount: N, root: toHex(chainNow.root) });
    expect(net.apiCalls).toEqual([]);
  });

  it("verifies through the public route of apiUrl, without a credential; the answer's roots are not believed", async () => {
    const net = fakeNet(log, chainNow, async (url) =>
      Response.json({
        ...(await log.answer(Number(url.searchParams.get("from")), N)),
        fromRoot: "00".repeat(32),
        toRoot: "11".repeat(32),
      }),
    );
    const bundle = await log.bundle(2, M);
    const result = await verifyBundle(bundle, { rpcUrl: RPC, apiUrl: API, fetch: net.fetch });
    expect(result).toMatchObject({
      verified: true,
      reason: null,
      bridged: { from: M, to: N, proof: (await log.answer(M, N)).proof },
    });
    expect(result.message).toContain(`consistency proof ${M} → ${N}`);
    expect(result.checks.map(({ check, passed }) => `${check} ${passed}`)).toEqual([
      "bundle true",
      "anchored true",
      "leaf true",
      "account true",
      "chain true",
      "checkpoint true",
      "inclusion true",
      "consistency true",
    ]);
    expect(net.apiCalls).toEqual([
      {
        url: `http://api.test/base/owners/${log.owner}/consistency?from=${M}&to=${N}`,
        authorization: null,
      },
    ]);
    // The grant shape (a memory with its content and the bundle nested as `proof`) bridges too.
    const grantMemory = { id: bundle.memoryId, content: "memory 2", proof: bundle };
    expect(
      await verifyBundle(grantMemory, { rpcUrl: RPC, apiUrl: API, fetch: net.fetch }),
    ).toMatchObject({ verified: true, contentChecked: true, bridged: { from: M, to: N } });
    expect(
      await verifyBundle(
        { ...grantMemory, content: "memory 3" },
        { rpcUrl: RPC, apiUrl: API, fetch: net.fetch },
      ),
    ).toMatchObject({ verified: false, reason: "content_mismatch" });
  });

  it("asks fetchConsistency for (owner, M, N) and prefers it to apiUrl", async () => {
    const net = fakeNet(log, chainNow, () => new Response("never", { status: 500 }));
    const fetchConsistency = vi.fn<FetchConsistency>(async (request) =>
      log.answer(request.from, request.to),
    );
    const result = await verifyBundle(await log.bundle(4, M), {
      rpcUrl: RPC,
      apiUrl: API,
      fetch: net.fetch,
      fetchConsistency,
    });
    expect(result).toMatchObject({ verified: true, bridged: { from: M, to: N } });
    expect(fetchConsistency).toHaveBeenCalledExactlyOnceWith({ owner: log.owner, from: M, to: N });
    expect(net.apiCalls).toEqual([]);
  });

  it("bridges every leaf from every older size, powers of two included (RFC 9162 §2.1.4.2 step 1)", async () => {
    const net = fakeNet(log, chainNow, honestApi(log));
    for (const from of [1, 2, 3, 4, 7, 8, 12]) {
      for (const index of new Set([0, from - 1, Math.floor(from / 2)])) {
        const result = await verifyBundle(await log.bundle(index, from), {
          rpcUrl: RPC,
          apiUrl: API,
          fetch: net.fetch,
        });
        expect(result.verified, `leaf ${index} at size ${from}`).toBe(true);
        expect(result.bridged).toMatchObject({ from, to: N });
      }
    }
  });

  it("is consistency_invalid for a tampered, truncated, wrong-range or malformed proof", async () => {
    const honest = await log.answer(M, N);
    const flip = (node: string) => `${node[0] === "0" ? "1" : "0"}${node.slice(1)}`;
    const answers: [string, unknown][] = [
      ["tampered node", { ...honest, proof: honest.proof.map((n, i) => (i === 1 ? flip(n) : n)) }],
      ["truncated", { ...honest, proof: honest.proof.slice(0, -1) }],
      ["extended", { ...honest, proof: [...honest.proof, "ab".repeat(32)] }],
      ["empty", { ...honest, proof: [] }],
      ["another range", await log.answer(M + 1, N)],
      ["another target", await log.answer(M, N - 1)],
      ["uppercase hex", { ...honest, proof: honest.proof.map((n) => n.toUpperCase()) }],
      ["no proof", { ...honest, proof: undefined }],
      ["not an object", ["x"]],
    ];
    for (const [label, answer] of answers) {
      const result = await verifyBundle(await log.bundle(2, M), {
        rpcUrl: RPC,
        fetch: fakeNet(log, chainNow, () => new Response()).fetch,
        fetchConsistency: async () => answer,
      });
      expect({ label, reason: result.reason, verified: result.verified }).toEqual({
        label,
        reason: "consistency_invalid",
        verified: false,
      });
      expect(result.bridged).toBeNull();
    }
  });

  it("is consistency_unavailable (unknown) when no proof can be had", async () => {
    const cases: [string, (url: URL) => Response | Promise<Response>][] = [
      [
        "404",
        () =>
          Response.json(
            { error: { code: "not_found", message: "no anchored log for this owner" } },
            { status: 404 },
          ),
      ],
      ["429", () => Response.json({ error: { code: "rate_limited" } }, { status: 429 })],
      ["not JSON", () => new Response("<html>")],
      [
        "network",
        () => {
          throw new TypeError("fetch failed");
        },
      ],
    ];
    for (const [label, api] of cases) {
      const result = await verifyBundle(await log.bundle(2, M), {
        rpcUrl: RPC,
        apiUrl: API,
        fetch: fakeNet(log, chainNow, api).fetch,
      });
      expect({ label, reason: result.reason }).toEqual({
        label,
        reason: "consistency_unavailable",
      });
    }
    const rejected = await verifyBundle(await log.bundle(2, M), {
      rpcUrl: RPC,
      fetch: fakeNet(log, chainNow, honestApi(log)).fetch,
      fetchConsistency: () => Promise.reject(new Error("archive offline")),
    });
    expect(rejected).toMatchObject({ reason: "consistency_unavailable" });
    expect(rejected.message).toContain("archive offline");
  });

  it("is proof_invalid when the bundle's own inclusion proof does not give its root; the API is not asked", async () => {
    const net = fakeNet(log, chainNow, honestApi(log));
    const bundle = await log.bundle(2, M);
    const badPath = { ...bundle, inclusionProof: [...bundle.inclusionProof].reverse() };
    const badRoot = { ...bundle, checkpoint: { treeSize: M, rootHash: "cd".repeat(32) } };
    for (const input of [badPath, badRoot, { ...bundle, leafIndex: 3 }]) {
      const result = await verifyBundle(input, { rpcUrl: RPC, apiUrl: API, fetch: net.fetch });
      expect(result).toMatchObject({ verified: false, reason: "proof_invalid" });
    }
    expect(net.apiCalls).toEqual([]);
  });

  it("is consistency_invalid for a bundle whose root was never on chain, whatever the API forges", async () => {
    // A forked log: the same owner, the genuine first leaves, then a leaf the owner never wrote.
    const fork = new Log(log.owner);
    for (const leaf of log.leaves.slice(0, M - 1)) {
      fork.push(leaf);
    }
    fork.append(N - (M - 1), "forged");
    const forged = await fork.bundle(M - 1, M);
    expect(forged.checkpoint.rootHash).not.toBe(toHex(log.rootAt(M)));
    const forgeries: unknown[] = [
      await fork.answer(M, N), // the fork's own consistency, to the fork's root
      { ...(await log.answer(M, N)), fromRoot: forged.checkpoint.rootHash }, // the real proof
      { ...(await fork.answer(M, N)), toRoot: toHex(chainNow.root) }, // claiming the chain's root
    ];
    for (const answer of forgeries) {
      const result = await verifyBundle(forged, {
        rpcUrl: RPC,
        fetch: fakeNet(log, chainNow, () => new Response()).fetch,
        fetchConsistency: async () => answer,
      });
      expect(result).toMatchObject({ verified: false, reason: "consistency_invalid" });
    }
  });

  it("keeps checkpoint_mismatch for a bundle newer than the chain, or another root at the chain's size", async () => {
    const behind = { root: log.rootAt(M), size: M };
    const net = fakeNet(log, behind, honestApi(log));
    const newer = await verifyBundle(await log.bundle(2, N), {
      rpcUrl: RPC,
      apiUrl: API,
      fetch: net.fetch,
    });
    expect(newer).toMatchObject({ verified: false, reason: "checkpoint_mismatch", bridged: null });
    const same = await log.bundle(2, M);
    const otherRoot = { ...same, checkpoint: { treeSize: M, rootHash: "ef".repeat(32) } };
    expect(
      await verifyBundle(otherRoot, { rpcUrl: RPC, apiUrl: API, fetch: net.fetch }),
    ).toMatchObject({ reason: "checkpoint_mismatch" });
    expect(net.apiCalls).toEqual([]);
    // A current bundle does not ask the API either, and is not marked bridged.
    const current = await verifyBundle(same, { rpcUrl: RPC, apiUrl: API, fetch: net.fetch });
    expect(current).toMatchObject({ verified: true, bridged: null });
    expect(net.apiCalls).toEqual([]);
  });
});

describe("consistencyUrl / consistencyFetcher / options", () => {
  it("builds the route under a base URL with or without a path prefix or trailing slash", () => {
    const request = { owner: "Own3r", from: 3, to: 40 };
    expect(consistencyUrl("https://memory.example.com", request)).toBe(
      "https://memory.example.com/owners/Own3r/consistency?from=3&to=40",
    );
    expect(consistencyUrl("https://memory.example.com/api/?x=1#y", request)).toBe(
      "https://memory.example.com/api/owners/Own3r/consistency?from=3&to=40",
    );
  });

  it("refuses an API URL that is not absolute http(s) with a TypeError", async () => {
    expect(() => consistencyFetcher("memory.example.com")).toThrow(TypeError);
    expect(() => consistencyFetcher("ftp://memory.example.com")).toThrow(TypeError);
    const options: VerifyOptions = { rpcUrl: RPC, apiUrl: "not a url" };
    await expect(verifyBundle({}, options)).rejects.toThrow(TypeError);
  });

  it("svc-verify refuses a malformed --api with exit 2", async () => {
    const out: string[] = [];
    const io: CliIo = {
      stdout: (t) => out.push(t),
      stderr: (t) => out.push(t),
      readStdin: async () => "{}",
      readFile: async () => "{}",
    };
    expect(await runCli(["--rpc", RPC, "--api", "localhost:8787", "b.json"], io)).toBe(2);
    expect(out.join("")).toContain("--api must be an absolute http(s) URL");
    expect(out.join("")).toContain("usage: svc-verify");
  });
});
