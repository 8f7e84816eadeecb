import * as ed from "@noble/ed25519";
import { Keypair } from "@solana/web3.js";
import {
  type AdapterWallet,
  createClient,
  type StandardWallet,
  type SvcClient,
  SvcError,
  unwrap,
} from "@verifiable-memory/client";
import { verify, verifyProof, withVerify } from "@verifiable-memory/client/verify";
import { LOCAL_PROGRAM_ID } from "@verifiable-memory/commitment-program";
import bs58 from "bs58";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Chain, type CoreApp, startChain, startCoreApi } from "../_apps.js";

let t: CoreApp;
let chain: Chain;
let authority: Keypair;

beforeAll(async () => {
  chain = await startChain();
  authority = chain.authority;
  t = await startCoreApi({ env: { CHAIN_RPC_URL: chain.url, SIWS_CHAIN_ID: "localnet" } });
});
afterAll(async () => {
  await t?.close();
  await chain?.close();
});

/** Anchors every user with pending leaves, as the anchor service's worker does each sweep. */
async function anchorNow(): Promise<void> {
  await chain.anchorNow(t.db);
}

/** A client signed in with a fresh keypair. */
async function signedIn(
  options: Partial<Parameters<typeof createClient>[0]> = {},
): Promise<{ client: SvcClient; keypair: Keypair }> {
  const keypair = Keypair.generate();
  const client = createClient({ baseUrl: t.url, ...options });
  await client.signInWithKeypair(keypair);
  return { client, keypair };
}

/** A fetch that records "METHOD path" of every request. */
function recordingFetch(log: string[]): typeof fetch {
  return (input, init) => {
    const request = new Request(input, init);
    log.push(`${request.method} ${new URL(request.url).pathname}`);
    return fetch(request);
  };
}

describe("sign-in", () => {
  it("signs in with a web3.js Keypair, a 64-byte secret key and a 32-byte seed", async () => {
    const keypair = Keypair.generate();
    const address = keypair.publicKey.toBase58();
    const client = createClient({ baseUrl: `${t.url}/` });
    expect(client.baseUrl).toBe(t.url);
    expect(client.session).toBeNull();

    const session = await client.signInWithKeypair(keypair);
    expect(session).toMatchObject({ tokenType: "Bearer", publicKey: address });
    expect(session.token.split(".")).toHaveLength(3);
    expect(client.session).toEqual(session);
    expect((await client.list()).items).toEqual([]);

    const again = createClient({ baseUrl: t.url });
    const bySecret = await again.signInWithKeypair(keypair.secretKey);
    expect(bySecret.userId).toBe(session.userId);
    const bySeed = await again.signInWithKeypair(Array.from(keypair.secretKey.slice(0, 32)));
    expect(bySeed.userId).toBe(session.userId);

    // A token from an earlier sign-in works in a new client.
    const reused = createClient({ baseUrl: t.url, token: session.token });
    expect((await reused.log.get()).treeSize).toBe(0);
  });

  it("refuses inconsistent keys before calling the API", async () => {
    const client = createClient({ baseUrl: t.url });
    const a = Keypair.generate();
    const b = Keypair.generate();
    await expect(
      client.signInWithKeypair({ publicKey: b.publicKey, secretKey: a.secretKey }),
    ).rejects.toThrow(TypeError);
    const mixed = new Uint8Array(64);
    mixed.set(a.secretKey.slice(0, 32));
    mixed.set(b.publicKey.toBytes(), 32);
    await expect(client.signInWithKeypair(mixed)).rejects.toThrow(/not the public key/);
    await expect(client.signInWithKeypair(new Uint8Array(31))).rejects.toThrow(/32 \(seed\)/);
    expect(() => createClient({ baseUrl: t.url, apiKey: "svc_x", token: "y" })).toThrow(TypeError);
    expect(() => createClient({ baseUrl: "localhost:8787" })).toThrow(TypeError);
  });

  it("signs in with a Wallet Standard wallet (connecting first) and an adapter-style wallet", async () => {
    const secret = ed.utils.randomSecretKey();
    const publicKey = await ed.getPublicKeyAsync(secret);
    const account = { address: bs58.encode(publicKey), publicKey };
    const signed: string[] = [];
    let connected = false;
    const standard: StandardWallet & { accounts: (typeof account)[] } = {
      accounts: [],
      features: {
        "standard:connect": {
          connect: async () => {
            connected = true;
            return { accounts: [account] };
          },
        },
        "solana:signMessage": {
          signMessage: async (...inputs: { account: typeof account; message: Uint8Array }[]) =>
            Promise.all(
              inputs.map(async (input) => {
                expect(input.account.address).toBe(account.address);
                signed.push(new TextDecoder().decode(input.message));
                return {
                  signedMessage: input.message,
                  signature: await ed.signAsync(input.message, secret),
                };
              }),
            ),
        },
      },
    };
    const client = createClient({ baseUrl: t.url });
    const session = await client.signInWithWallet(standard);
    expect(connected).toBe(true);
    expect(session.publicKey).toBe(account.address);
    expect(signed[0]).toMatch(/^localhost:8787 wants you to sign in with your Solana account:\n/);
    expect(signed[0]).toContain(`\n${account.address}\n`);

    const adapter: AdapterWallet = {
      publicKey: { toBase58: () => account.address },
      signMessage: (message) => ed.signAsync(message, secret),
    };
    const other = createClient({ baseUrl: t.url });
    expect((await other.signInWithWallet(adapter)).userId).toBe(session.userId);

    await expect(
      createClient({ baseUrl: t.url }).signInWithWallet({ accounts: [account], features: {} }),
    ).rejects.toThrow(/solana:signMessage/);
  });

  it("never signs a challenge that is not a sign-in message for its key", async () => {
    const calls: string[] = [];
    const hostile = createClient({
      baseUrl: t.url,
      fetch: async (input, init) => {
        const request = new Request(input, init);
        calls.push(new URL(request.url).pathname);
        if (new URL(request.url).pathname === "/auth/challenge") {
          return Response.json({ message: "transfer 10 SOL", nonce: "x", expiresAt: "x" });
        }
        return fetch(request);
      },
    });
    await expect(hostile.signInWithKeypair(Keypair.generate())).rejects.toThrow(
      /not a sign-in message/,
    );
    expect(calls).toEqual(["/auth/challenge"]);
  });

  it("answers a bad signature with SvcError invalid_signature", async () => {
    const keypair = Keypair.generate();
    const client = createClient({ baseUrl: t.url });
    const wrong = Keypair.generate();
    const error = await client
      .signInWithWallet({
        publicKey: keypair.publicKey,
        signMessage: (message) => ed.signAsync(message, wrong.secretKey.slice(0, 32)),
      })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SvcError);
    expect(error).toMatchObject({ code: "invalid_signature", status: 401 });
    expect(client.session).toBeNull();
  });
});

describe("memories", () => {
  it("remember, get, list (pages and async iteration), recall, update, history, forget", async () => {
    const { client, keypair } = await signedIn();
    const first = await client.remember("The user prefers answers in French.", {
      topic: "preferences",
    });
    expect(first).toMatchObject({
      leafIndex: 0,
      metadata: { topic: "preferences" },
      anchored: false,
      namespace: null,
      writtenBy: { kind: "session" },
    });
    expect(first.leafHash).toMatch(/^[0-9a-f]{64}$/);
    const second = await client.remember("Project Orion ships on 2026-12-15.", undefined, {
      namespace: "agent:research/run:1",
    });
    expect(second).toMatchObject({ leafIndex: 1, metadata: {}, namespace: "agent:research/run:1" });
    const third = await client.remember("Orion demo is on the 10th.", { source: "notes" });

    const got = await client.get(first.id);
    expect(got).toMatchObject({
      id: first.id,
      content: "The user prefers answers in French.",
      metadata: { topic: "preferences" },
    });

    const page = await client.list({ limit: 2 });
    expect(page.items.map((m) => m.id)).toEqual([third.id, second.id]);
    expect(page.nextCursor).toEqual(expect.any(String));
    const rest = await client.list({ limit: 2, cursor: page.nextCursor as string });
    expect(rest).toEqual({ items: [expect.objectContaining({ id: first.id })], nextCursor: null });

    const pages = [];
    for await (const p of client.listPages({ limit: 1 })) {
      pages.push(p.items.map((m) => m.leafIndex));
    }
    expect(pages).toEqual([[2], [1], [0]]);
    const all = [];
    for await (const memory of client.listAll({ limit: 2 })) {
      all.push(memory.content);
    }
    expect(all).toHaveLength(3);
    expect(
      (await client.list({ namespace: "agent:research/run:1" })).items.map((m) => m.id),
    ).toEqual([second.id]);

    const recalled = await client.recall("orion");
    expect(recalled.items.map((m) => m.id)).toEqual([third.id, second.id]);
    expect(recalled.scanned).toBeGreaterThanOrEqual(2);
    expect((await client.recall("ORION", { caseSensitive: true })).items).toEqual([]);
    expect(
      (await client.recall(undefined, { metadata: { source: "notes" } })).items.map((m) => m.id),
    ).toEqual([third.id]);
    const ranked = await client.recall("orion demo", { rank: "relevance" });
    expect(ranked.items[0]?.id).toBe(third.id);
    expect(ranked.items[0]?.score).toEqual(expect.any(Number));

    const updated = await client.update(third.id, "Orion demo moved to the 11th.", {
      source: "notes",
    });
    expect(updated).toMatchObject({ supersedes: third.id, leafIndex: 3 });
    expect((await client.get(third.id)).supersededBy).toBe(updated.id);
    const history = await client.history(updated.id);
    expect(history.map((m) => m.id)).toEqual([third.id, updated.id]);
    expect(history[0]?.proof.leafData.owner).toBe(keypair.publicKey.toBase58());
    expect((await client.list()).items.map((m) => m.id)).not.toContain(third.id);
    expect((await client.list({ includeSuperseded: true })).items.map((m) => m.id)).toContain(
      third.id,
    );

    await client.forget(second.id);
    const gone = await client.get(second.id).catch((e: unknown) => e);
    expect(gone).toMatchObject({ code: "not_found", status: 404 });
    expect((await client.log.get()).treeSize).toBe(4); // deletion keeps the leaf
  });

  it("rememberMany chunks at the batch limit, at contiguous leaves, in order", async () => {
    const requests: string[] = [];
    const { client } = await signedIn({ fetch: recordingFetch(requests) });
    expect(await client.rememberMany([])).toEqual([]);

    const items = Array.from({ length: 300 }, (_, i) => ({
      content: `item ${i}`,
      metadata: { i },
    }));
    requests.length = 0;
    const created = await client.rememberMany(items);
    expect(requests).toEqual(["POST /memories/batch", "POST /memories/batch"]);
    expect(created.map((m) => m.leafIndex)).toEqual(items.map((_, i) => i));
    expect(created.map((m) => m.metadata)).toEqual(items.map((item) => item.metadata));
    expect((await client.get(created[299]?.id as string)).content).toBe("item 299");

    // Each chunk is all or nothing: a bad item fails its chunk, earlier chunks stay stored.
    const error = await client
      .rememberMany(
        [{ content: "a" }, { content: "b" }, { content: "" }, { content: "d" }, { content: "e" }],
        { chunkSize: 2 },
      )
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SvcError);
    const failure = error as SvcError;
    expect(failure).toMatchObject({ code: "invalid_request", status: 400 });
    expect(failure.batch?.offset).toBe(2);
    expect(failure.batch?.stored.map((m) => m.leafIndex)).toEqual([300, 301]);
    expect(failure.details).toEqual([expect.objectContaining({ path: ["items", 0, "content"] })]);
    expect((await client.log.get()).treeSize).toBe(302);
  });
});

describe("events", () => {
  it("follows memory events, filtered by namespace, and resumes after the last one processed", async () => {
    const { client } = await signedIn();
    const a = await client.remember("first", undefined, { namespace: "agent:a" });
    const b = await client.remember("second", undefined, { namespace: "agent:b" });
    const read = async (options: Parameters<SvcClient["events"]>[0], count: number) => {
      const controller = new AbortController();
      const seen: { id: string; type: string; data: Record<string, unknown> }[] = [];
      for await (const event of client.events({ ...options, signal: controller.signal })) {
        seen.push(event);
        if (seen.length === count) {
          controller.abort();
        }
      }
      return seen;
    };
    const all = await read({ lastEventId: "0" }, 2);
    expect(all.map((e) => [e.type, e.data.id])).toEqual([
      ["memory.created", a.id],
      ["memory.created", b.id],
    ]);
    const resumed = await read({ lastEventId: all[0]?.id as string }, 1);
    expect(resumed.map((e) => e.data.id)).toEqual([b.id]);
    const filtered = await read({ lastEventId: "0", namespace: "agent:b" }, 1);
    expect(filtered.map((e) => e.data.id)).toEqual([b.id]);
    const stranger = createClient({ baseUrl: t.url });
    await expect(stranger.events().next()).rejects.toMatchObject({
      name: "SvcError",
      code: "unauthorized",
      status: 401,
    });
  });
});

describe("API keys", () => {
  it("create, authenticate with, list, revoke; key management needs a session", async () => {
    const { client } = await signedIn();
    const created = await client.keys.create("research agent");
    expect(created).toMatchObject({ label: "research agent", prefix: created.key.slice(0, 12) });
    expect(created.key).toMatch(/^svc_[0-9a-f]{48}$/);
    t.clock.advance(1000); // the test clock stands still: order the two keys in time
    const scoped = await client.keys.create({
      label: "reader",
      scopes: ["memories:read"],
      namespace: "agent:reader",
    });
    expect(scoped).toMatchObject({ scopes: ["memories:read"], namespace: "agent:reader" });

    const agent = createClient({ baseUrl: t.url, apiKey: created.key });
    const memory = await agent.remember("written with a key");
    expect(memory.writtenBy).toEqual({ kind: "api_key", keyId: created.id });
    const refused = await agent.keys.list().catch((e: unknown) => e);
    expect(refused).toMatchObject({ code: "session_required", status: 403 });
    const reader = createClient({ baseUrl: t.url });
    reader.setApiKey(scoped.key);
    expect(await reader.remember("x").catch((e: unknown) => e)).toMatchObject({
      code: "insufficient_scope",
      status: 403,
    });

    const listed = await client.keys.list({ limit: 1 });
    expect(listed.items.map((k) => k.id)).toEqual([scoped.id]);
    const ids = [];
    for await (const page of client.keys.listPages({ limit: 1 })) {
      ids.push(...page.items.map((k) => k.id));
    }
    expect(ids).toEqual([scoped.id, created.id]);

    await client.keys.revoke(created.id);
    await client.keys.revoke(created.id); // again: 204
    const revoked = await agent.list().catch((e: unknown) => e);
    expect(revoked).toMatchObject({ code: "unauthorized", status: 401 });
    expect((await client.keys.list()).items.find((k) => k.id === created.id)?.revokedAt).toEqual(
      expect.any(String),
    );
    agent.signOut();
    expect(await agent.log.get().catch((e: unknown) => e)).toMatchObject({ code: "unauthorized" });
  });
});

describe("grants", () => {
  it("create, list, use (with and without the URL), audit, revoke", async () => {
    const { client } = await signedIn();
    const a = await client.remember("shared fact one");
    const b = await client.remember("shared fact two");
    const grant = await client.grants.create({
      operation: { type: "read_memories", memoryIds: [a.id, b.id] },
      maxUses: 2,
      label: "for the auditor",
    });
    expect(grant).toMatchObject({ maxUses: 2, usesRemaining: 2, label: "for the auditor" });
    expect(grant.url).toBe(`http://localhost:8787/agent-cases/${grant.token}`);

    const used = await client.grants.use(grant.url.replace("http://localhost:8787", t.url));
    expect(used.memories.map((m) => m.content)).toEqual(["shared fact one", "shared fact two"]);
    expect(used.memories[0]?.proof.memoryId).toBe(a.id);
    expect(used.usesRemaining).toBe(1);
    // The recipient needs no credential.
    const stranger = createClient({ baseUrl: t.url });
    expect((await stranger.grants.use(grant.token)).usesRemaining).toBe(0);
    expect(await stranger.grants.use(grant.token).catch((e: unknown) => e)).toMatchObject({
      code: "grant_exhausted",
      status: 410,
    });

    t.clock.advance(1000); // the test clock stands still: order the two grants in time
    const search = await client.grants.create({ operation: { type: "search", query: "fact" } });
    const listed = await client.grants.list();
    expect(listed.items.map((g) => [g.id, g.status])).toEqual([
      [search.id, "active"],
      [grant.id, "exhausted"],
    ]);
    const pages = [];
    for await (const page of client.grants.listPages({ limit: 1 })) {
      pages.push(page.items.length);
    }
    expect(pages).toEqual([1, 1]);

    const audit = await client.grants.audit(grant.id);
    expect(audit.items.map((row) => row.outcome)).toEqual(["exhausted", "ok", "ok"]);

    await client.grants.revoke(search.id);
    expect(await stranger.grants.use(search.token).catch((e: unknown) => e)).toMatchObject({
      code: "grant_revoked",
      status: 410,
    });
  });
});

describe("errors", () => {
  it("throws SvcError with the API's code, status, request id and details", async () => {
    const { client } = await signedIn({ headers: { "x-request-id": "sdk-test-42" } });
    const missing = await client.get("no-such-memory").catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(SvcError);
    expect(missing).toMatchObject({
      name: "SvcError",
      code: "not_found",
      status: 404,
      requestId: "sdk-test-42", // the answer's x-request-id (the server kept ours)
    });

    const fresh = await signedIn();
    const invalid = await fresh.client.remember("").catch((e: unknown) => e);
    expect(invalid).toMatchObject({ code: "invalid_request", status: 400 });
    expect((invalid as SvcError).requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect((invalid as SvcError).details).toEqual([
      expect.objectContaining({ path: ["content"], message: expect.any(String) }),
    ]);

    const badRange = await fresh.client.log.consistency(5, 9).catch((e: unknown) => e);
    expect(badRange).toMatchObject({ code: "invalid_request", status: 400 });
    const anonymous = await createClient({ baseUrl: t.url })
      .list()
      .catch((e: unknown) => e);
    expect(anonymous).toMatchObject({ code: "unauthorized", status: 401 });
    await expect(client.get(42 as unknown as string)).rejects.toThrow(TypeError);
  });
});

describe("proofs and verification against the chain", () => {
  it("verify: not anchored, then true once anchored; false for tampered bundles and a lying API", async () => {
    const { client: plain, keypair } = await signedIn();
    const client = withVerify(plain);
    const info = await client.info();
    expect(info).toMatchObject({ cluster: "localnet", programId: LOCAL_PROGRAM_ID });

    const ids = (
      await client.rememberMany([
        { content: "alpha", metadata: { n: 1 } },
        { content: "beta" },
        { content: "gamma", metadata: { n: 3 } },
      ])
    ).map((m) => m.id);
    const id = ids[1] as string;
    const unanchored = await client.prove(id);
    expect(unanchored).toMatchObject({ anchored: false, checkpoint: null, anchor: null });
    expect(await client.verify(id, { rpcUrl: chain.url })).toMatchObject({
      ok: false,
      reason: "not_anchored",
    });

    await anchorNow();
    const log = await client.log.get();
    expect(log).toMatchObject({ treeSize: 3, anchored: { treeSize: 3, nonce: 1 } });
    expect(log.anchored?.rootHash).toBe(log.rootHash);

    const bundle = await client.prove(id);
    expect(bundle).toMatchObject({
      memoryId: id,
      leafIndex: 1,
      anchored: true,
      checkpoint: { treeSize: 3 },
      anchor: { cluster: "localnet", programId: LOCAL_PROGRAM_ID, memoryCount: 3, nonce: 1 },
    });
    expect(bundle.leafData.owner).toBe(keypair.publicKey.toBase58());

    const ok = await client.verify(id, {
      rpcUrl: chain.url,
      programId: LOCAL_PROGRAM_ID,
      authority: authority.publicKey.toBase58(),
    });
    expect(ok).toMatchObject({ ok: true, contentChecked: true });
    expect(ok.reason).toBeUndefined();
    expect(ok.onChain).toMatchObject({ memoryCount: 3, nonce: 1, root: log.rootHash });
    expect(
      await verify(plain, ids[0] as string, {
        connection: { rpcEndpoint: chain.url },
        checkContent: false,
      }),
    ).toMatchObject({ ok: true, contentChecked: false });
    expect(await client.verifyOnServer(id)).toMatchObject({ verified: true, reason: null });

    // Tampered bundles.
    const tamperedLeaf = structuredClone(bundle);
    (tamperedLeaf.leafData.metadata as Record<string, unknown>).n = 2;
    expect(await verifyProof(tamperedLeaf, { rpcUrl: chain.url })).toMatchObject({
      ok: false,
      reason: "leaf_mismatch",
    });
    const tamperedPath = structuredClone(bundle);
    (tamperedPath.inclusionProof as string[])[0] = "0".repeat(64);
    expect(await verifyProof(tamperedPath, { rpcUrl: chain.url })).toMatchObject({
      ok: false,
      reason: "proof_invalid",
    });
    const tamperedRoot = structuredClone(bundle);
    (tamperedRoot.checkpoint as { rootHash: string }).rootHash = "f".repeat(64);
    expect(await verifyProof(tamperedRoot, { rpcUrl: chain.url })).toMatchObject({
      ok: false,
      reason: "checkpoint_mismatch",
    });
    expect(
      await verifyProof(bundle, { rpcUrl: chain.url, content: "not what was committed" }),
    ).toMatchObject({ ok: false, reason: "content_mismatch" });
    expect(
      await verifyProof(bundle, {
        rpcUrl: chain.url,
        authority: Keypair.generate().publicKey.toBase58(),
      }),
    ).toMatchObject({ ok: false, reason: "authority_mismatch" });
    expect(await verifyProof(bundle, { rpcUrl: "http://127.0.0.1:9" })).toMatchObject({
      ok: false,
      reason: "chain_unavailable",
    });

    // An API that lies about a memory's content is caught: the chain, not the API, decides.
    const liar = withVerify(
      createClient({
        baseUrl: t.url,
        token: client.session?.token as string,
        fetch: async (input, init) => {
          const request = new Request(input, init);
          const response = await fetch(request);
          if (request.method === "GET" && new URL(request.url).pathname === `/memories/${id}`) {
            const memory = (await response.json()) as { content: string };
            return Response.json({ ...memory, content: "rewritten by the server" });
          }
          return response;
        },
      }),
    );
    expect(await liar.verify(id, { rpcUrl: chain.url })).toMatchObject({
      ok: false,
      reason: "content_mismatch",
    });
    await expect(client.verify(id, {} as { rpcUrl: string })).rejects.toThrow(/rpcUrl/);
    expect(
      await client.verify("no-such-memory", { rpcUrl: chain.url }).catch((e) => e),
    ).toMatchObject({ code: "not_found" });

    // The log only grew: a consistency proof between two sizes.
    await client.remember("delta");
    const proof = await client.log.consistency(3, 4);
    expect(proof).toMatchObject({ from: 3, to: 4, fromRoot: log.rootHash });
    expect(proof.proof.length).toBeGreaterThan(0);
  });

  it("reaches uncovered routes through the raw typed client and unwrap", async () => {
    const { client } = await signedIn();
    const { data, response } = await client.raw.GET("/log");
    expect(response.status).toBe(200);
    expect(data?.treeSize).toBe(0);
    const health = await unwrap(client.raw.GET("/healthz"));
    expect(health).toEqual({ status: "ok" });
    const error = await unwrap(
      client.raw.GET("/memories/{id}", { params: { path: { id: "nope" } } }),
    ).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "not_found", status: 404 });
  });
});
