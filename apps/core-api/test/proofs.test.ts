import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Keypair } from "@solana/web3.js";
import { ChainClient } from "@verifiable-memory/chain-commit";
import { LOCAL_PROGRAM_ID } from "@verifiable-memory/commitment-program";
import { rootAtSize } from "@verifiable-memory/db-schema";
import { requestAirdrop, startLocalChain } from "@verifiable-memory/litesvm-rpc";
import {
  fromHex,
  hashLeaf,
  rootFromLeafHashes,
  verifyConsistency,
  verifyInclusion,
} from "@verifiable-memory/merkle-log";
import {
  contentHashOf,
  leafDataBytes,
  type ProofBundle,
  verifyBundle,
} from "@verifiable-memory/verifier";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  callAt,
  newUser,
  recordCheckpoint,
  startTestApp,
  type TestApp,
  type TestUser,
} from "./helpers.js";

let t: TestApp;
let chain: Awaited<ReturnType<typeof startLocalChain>>;
let chainDir: string;
let authority: Keypair;
let client: ChainClient;

beforeAll(async () => {
  chainDir = await mkdtemp(join(tmpdir(), "core-api-proofs-"));
  chain = await startLocalChain({ port: 0, dataDir: chainDir, programId: LOCAL_PROGRAM_ID });
  authority = Keypair.generate();
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
  await t.close();
  await chain.close();
  await rm(chainDir, { recursive: true, force: true });
});

async function writeMany(user: TestUser, n: number, prefix = "memory"): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const res = await callAt<{ id: string }>(t.app, "/memories", {
      headers: user.headers,
      body: { content: `${prefix} ${i}`, metadata: { i } },
    });
    ids.push(res.body.id);
  }
  return ids;
}

function proof(user: TestUser, id: string) {
  return callAt<ProofBundle>(t.app, `/memories/${id}/proof`, { headers: user.headers });
}

describe("GET /memories/:id/proof", () => {
  it("answers anchored: false with null proof fields before any checkpoint", async () => {
    const user = await newUser(t.app);
    const [id] = await writeMany(user, 1);
    const res = await proof(user, id as string);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      memoryId: id,
      leafIndex: 0,
      anchored: false,
      checkpoint: null,
      inclusionProof: null,
      anchor: null,
    });
    const log = await callAt<{ anchored: unknown; treeSize: number }>(t.app, "/log", {
      headers: user.headers,
    });
    expect(log.body).toMatchObject({ treeSize: 1, anchored: null });
  });

  it("cuts proofs at the latest anchored checkpoint; a third party recomputes the leaf and verifies", async () => {
    const user = await newUser(t.app);
    const ids = await writeMany(user, 13);
    const root = await recordCheckpoint(t, user, 11, 4);
    for (const [i, id] of ids.entries()) {
      const { body } = await proof(user, id);
      if (i >= 11) {
        expect(body.anchored, `leaf ${i}`).toBe(false);
        expect(body.inclusionProof).toBeNull();
        continue;
      }
      expect(body.anchored).toBe(true);
      expect(body.checkpoint).toEqual({
        treeSize: 11,
        rootHash: Buffer.from(root).toString("hex"),
      });
      expect(body.anchor).toMatchObject({
        cluster: "localnet",
        programId: LOCAL_PROGRAM_ID,
        memoryCount: 11,
        nonce: 4,
        signature: "sig4",
      });
      // Recompute the leaf from content + salt + leafData, as a third party would.
      const salt = Buffer.from(body.salt, "base64");
      expect(body.leafData.contentHash).toBe(contentHashOf(salt, `memory ${i}`));
      const leafHash = hashLeaf(leafDataBytes(body.leafData));
      expect(Buffer.from(leafHash).toString("hex")).toBe(body.leafHash);
      verifyInclusion(
        body.leafIndex,
        11,
        leafHash,
        (body.inclusionProof ?? []).map(fromHex),
        fromHex(body.checkpoint?.rootHash ?? ""),
      );
    }
    const list = await callAt<{ items: { leafIndex: number; anchored: boolean }[] }>(
      t.app,
      "/memories?limit=200",
      { headers: user.headers },
    );
    for (const m of list.body.items) {
      expect(m.anchored, `leaf ${m.leafIndex}`).toBe(m.leafIndex < 11);
    }
  });

  it("follows each new checkpoint on every instance; 404 for unknown, deleted or others' memories", async () => {
    const second = await startTestApp({
      shareDatabaseOf: t,
      clock: t.clock,
      env: { CHAIN_RPC_URL: chain.url, SIWS_CHAIN_ID: "localnet" },
    });
    try {
      const user = await newUser(t.app);
      const ids = await writeMany(user, 6);
      const fetchProof = (app: TestApp, id: string) =>
        callAt<ProofBundle>(app.app, `/memories/${id}/proof`, { headers: user.headers });
      const expectCut = async (size: number | null, root: Uint8Array | null) => {
        for (const app of [t, second]) {
          for (const [i, id] of ids.entries()) {
            const { status, body } = await fetchProof(app, id);
            expect(status).toBe(200);
            if (size === null || i >= size) {
              expect(body).toMatchObject({ anchored: false, checkpoint: null, anchor: null });
              continue;
            }
            expect(body.checkpoint).toEqual({
              treeSize: size,
              rootHash: Buffer.from(root ?? []).toString("hex"),
            });
            expect(body.anchor).toMatchObject({ memoryCount: size, nonce: size });
            verifyInclusion(
              i,
              size,
              fromHex(body.leafHash),
              (body.inclusionProof ?? []).map(fromHex),
              root ?? new Uint8Array(32),
            );
          }
        }
      };
      await expectCut(null, null);
      await expectCut(3, await recordCheckpoint(t, user, 3, 3));
      await expectCut(6, await recordCheckpoint(t, user, 6, 6));

      const other = await newUser(t.app);
      const foreign = await callAt(t.app, `/memories/${ids[0]}/proof`, { headers: other.headers });
      expect(foreign.status).toBe(404);
      expect(foreign.body).toMatchObject({ error: { code: "not_found" } });
      const unknown = await fetchProof(second, "00000000-0000-4000-8000-000000000000");
      expect(unknown.status).toBe(404);
      const deleted = await callAt(t.app, `/memories/${ids[2]}`, {
        method: "DELETE",
        headers: user.headers,
      });
      expect(deleted.status).toBe(204);
      for (const app of [t, second]) {
        expect((await fetchProof(app, ids[2] as string)).status).toBe(404);
        expect((await fetchProof(app, ids[3] as string)).body.anchored).toBe(true);
      }
    } finally {
      await second.close();
    }
  });

  it("serves consistency proofs between any two sizes, verified with @verifiable-memory/merkle-log", async () => {
    const user = await newUser(t.app);
    await writeMany(user, 21);
    const leaves = (
      await t.sql<{ leaf_hash: Buffer }[]>`
        select leaf_hash from memories where user_id = ${user.userId} order by leaf_index`
    ).map((r) => new Uint8Array(r.leaf_hash));
    const log = await callAt<{ treeSize: number; rootHash: string }>(t.app, "/log", {
      headers: user.headers,
    });
    expect(log.body.treeSize).toBe(21);
    expect(log.body.rootHash).toBe(Buffer.from(rootFromLeafHashes(leaves)).toString("hex"));
    for (const [from, to] of [
      [1, 1],
      [1, 21],
      [7, 8],
      [8, 16],
      [5, 21],
      [20, 21],
      [21, 21],
    ] as const) {
      const res = await callAt<{
        from: number;
        to: number;
        fromRoot: string;
        toRoot: string;
        proof: string[];
      }>(t.app, `/log/consistency?from=${from}&to=${to}`, { headers: user.headers });
      expect(res.status).toBe(200);
      expect(res.body.fromRoot).toBe(
        Buffer.from(rootFromLeafHashes(leaves.slice(0, from))).toString("hex"),
      );
      expect(res.body.toRoot).toBe(
        Buffer.from(rootFromLeafHashes(leaves.slice(0, to))).toString("hex"),
      );
      if (from === to) {
        expect(res.body.proof).toEqual([]);
      }
      verifyConsistency(
        from,
        to,
        res.body.proof.map(fromHex),
        fromHex(res.body.fromRoot),
        fromHex(res.body.toRoot),
      );
    }
  });
});

describe("GET /owners/{owner}/consistency (public)", () => {
  type OwnerConsistency = {
    owner: string;
    from: number;
    to: number;
    fromRoot: string;
    toRoot: string;
    proof: string[];
  };
  const publicProof = (owner: string, query: string) =>
    callAt<OwnerConsistency & { error: { code: string; details?: unknown } }>(
      t.app,
      `/owners/${owner}/consistency?${query}`,
    );

  it("serves proofs between anchored sizes to anyone, verified with @verifiable-memory/merkle-log", async () => {
    const user = await newUser(t.app);
    const owner = user.wallet.publicKey;
    await writeMany(user, 21);
    const leaves = (
      await t.sql<{ leaf_hash: Buffer }[]>`
        select leaf_hash from memories where user_id = ${user.userId} order by leaf_index`
    ).map((r) => new Uint8Array(r.leaf_hash));
    const hex = (size: number) =>
      Buffer.from(rootFromLeafHashes(leaves.slice(0, size))).toString("hex");

    // Never anchored: as unknown as an owner nobody signed in with.
    const never = await publicProof(owner, "from=1&to=1");
    const stranger = await publicProof(Keypair.generate().publicKey.toBase58(), "from=1&to=1");
    expect(never.status).toBe(404);
    expect(stranger.status).toBe(404);
    expect(never.body).toEqual(stranger.body);
    expect(never.body.error.code).toBe("not_found");

    await recordCheckpoint(t, user, 13, 2);
    for (const [from, to] of [
      [1, 1],
      [1, 13],
      [4, 8],
      [5, 13],
      [8, 13],
      [13, 13],
    ] as const) {
      const res = await publicProof(owner, `from=${from}&to=${to}`);
      expect(res.status, `${from}..${to}`).toBe(200);
      expect(Object.keys(res.body).sort()).toEqual(
        ["from", "owner", "proof", "fromRoot", "toRoot", "to"].sort(),
      );
      expect(res.body).toMatchObject({ owner, from, to, fromRoot: hex(from), toRoot: hex(to) });
      if (from === to) {
        expect(res.body.proof).toEqual([]);
      }
      verifyConsistency(
        from,
        to,
        res.body.proof.map(fromHex),
        fromHex(hex(from)),
        fromHex(hex(to)),
      );
    }
    // The authenticated route computes the same proof.
    const authed = await callAt<{ proof: string[] }>(t.app, "/log/consistency?from=5&to=13", {
      headers: user.headers,
    });
    expect((await publicProof(owner, "from=5&to=13")).body.proof).toEqual(authed.body.proof);

    // Only anchored sizes are public, although the log has 21 leaves.
    const past = await publicProof(owner, "from=5&to=14");
    expect(past.status).toBe(400);
    expect(past.body.error).toMatchObject({
      code: "invalid_request",
      details: [{ path: ["to"] }],
    });
    for (const query of ["from=0&to=5", "from=6&to=5", "from=1", "to=5", "from=1&to=2&x=1"]) {
      const res = await publicProof(owner, query);
      expect(res.status, query).toBe(400);
      expect(res.body.error.code, query).toBe("invalid_request");
    }
    expect((await publicProof(owner, "from=6&to=5")).body.error.details).toMatchObject([
      { path: ["from"] },
    ]);
    for (const bad of ["0OIl0OIl0OIl0OIl0OIl0OIl0OIl0OIl", "short", "x".repeat(45)]) {
      expect((await publicProof(bad, "from=1&to=1")).status, bad).toBe(400);
    }

    // A later checkpoint widens what is public.
    await recordCheckpoint(t, user, 21, 3);
    const wider = await publicProof(owner, "from=13&to=21");
    expect(wider.status).toBe(200);
    verifyConsistency(13, 21, wider.body.proof.map(fromHex), fromHex(hex(13)), fromHex(hex(21)));
  });
});

describe("GET /memories/:id/verify against the chain", () => {
  it("verifies anchored memories against the on-chain root, reports not_anchored and root_mismatch", async () => {
    const user = await newUser(t.app);
    const ids = await writeMany(user, 6, "chain");
    const verify = (id: string) =>
      callAt<{
        verified: boolean;
        reason: string | null;
        checkedAgainst: Record<string, unknown> | null;
      }>(t.app, `/memories/${id}/verify`, { headers: user.headers });

    const before = await verify(ids[0] as string);
    expect(before.body).toEqual({
      verified: false,
      reason: "not_anchored",
      path: "account",
      checkedAgainst: null,
      checkpointLog: null,
    });

    const root = await rootAtSize(t.db, user.userId, 5);
    const committed = await client.commit(user.wallet.publicKey, root, 5, 0);
    await recordCheckpoint(t, user, 5, committed.nonce);
    const good = await verify(ids[2] as string);
    expect(good.body.verified).toBe(true);
    expect(good.body.reason).toBeNull();
    expect(good.body.checkedAgainst).toMatchObject({
      cluster: "localnet",
      memoryCount: 5,
      nonce: 1,
      rootHash: Buffer.from(root).toString("hex"),
    });
    const uncovered = await verify(ids[5] as string);
    expect(uncovered.body.reason).toBe("not_anchored");

    // The bundle checks out with the auditor's own chain read too.
    const bundle = await proof(user, ids[2] as string);
    const audit = await verifyBundle(bundle.body, { rpcUrl: chain.url, content: "chain 2" });
    expect(audit.verified).toBe(true);

    // A root on chain that is not this log's: root_mismatch, never verified.
    await client.commit(user.wallet.publicKey, new Uint8Array(32).fill(9), 6, 1);
    const mismatch = await verify(ids[2] as string);
    expect(mismatch.body).toMatchObject({ verified: false, reason: "root_mismatch" });
  });

  it("answers 503 chain_unavailable when the RPC is down", async () => {
    const down = await startTestApp({
      env: { CHAIN_RPC_URL: "http://127.0.0.1:9" },
      shareDatabaseOf: t,
    });
    try {
      const user = await newUser(down.app);
      const created = await callAt<{ id: string }>(down.app, "/memories", {
        headers: user.headers,
        body: { content: "x" },
      });
      const res = await callAt<{ error: { code: string } }>(
        down.app,
        `/memories/${created.body.id}/verify`,
        {
          headers: user.headers,
        },
      );
      expect(res.status).toBe(503);
      expect(res.body.error.code).toBe("chain_unavailable");
    } finally {
      await down.close();
    }
  });
});
