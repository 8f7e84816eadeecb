/**
 * The agent memory model (docs/protocol.md §3 "Scopes and confinement", §4 "Namespaces",
 * "Updates", "Recall", §5 leaf version 2), over real HTTP, real PostgreSQL and the real program
 * on the local chain: namespaces committed in the leaf, scoped / expiring / confined API keys on
 * every route, `writtenBy` provenance, updates with a provable history, filters with operators,
 * relevance ranking and search cursors; version-1 leaves keep verifying.
 */
import { randomUUID } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Keypair } from "@solana/web3.js";
import { ChainClient } from "@verifiable-memory/chain-commit";
import { LOCAL_PROGRAM_ID } from "@verifiable-memory/commitment-program";
import { appendMemories, getUserById, rootAtSize } from "@verifiable-memory/db-schema";
import { requestAirdrop, startLocalChain } from "@verifiable-memory/local-chain";
import { memoryLeaf, newSalt, sealMemoryBody } from "@verifiable-memory/memory";
import { type ProofBundle, verifyBundle } from "@verifiable-memory/verifier";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  call,
  newUser,
  recordCheckpoint,
  startTestApp,
  type TestApp,
  type TestUser,
} from "./helpers.js";

interface Memory {
  id: string;
  leafIndex: number;
  content: string;
  metadata: Record<string, unknown>;
  namespace: string | null;
  writtenBy: { kind: string; keyId?: string } | null;
  supersedes: string | null;
  supersededBy: string | null;
  createdAt: string;
  anchored: boolean;
  score?: number;
}
interface ErrorBody {
  error: { code: string; message: string; details?: unknown };
}
interface Page {
  items: Memory[];
  nextCursor: string | null;
}
interface SearchPage extends Page {
  scanned: number;
}

let t: TestApp;
let chain: Awaited<ReturnType<typeof startLocalChain>>;
let chainDir: string;
let client: ChainClient;

beforeAll(async () => {
  chainDir = await mkdtemp(join(tmpdir(), "core-api-agent-model-"));
  chain = await startLocalChain({ port: 0, dataDir: chainDir, programId: LOCAL_PROGRAM_ID });
  const authority = Keypair.generate();
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

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

function write(headers: Record<string, string>, body: Record<string, unknown>) {
  return call<Memory & ErrorBody>(`${t.url}/memories`, { headers, body });
}

function search(headers: Record<string, string>, body: Record<string, unknown>) {
  return call<SearchPage & ErrorBody>(`${t.url}/memories/search`, { headers, body });
}

async function createKey(
  user: TestUser,
  body: Record<string, unknown>,
): Promise<{ id: string; key: string; headers: Record<string, string> }> {
  const res = await call<{ id: string; key: string }>(`${t.url}/keys`, {
    headers: user.headers,
    body: { label: "agent", ...body },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return { id: res.body.id, key: res.body.key, headers: bearer(res.body.key) };
}

/** Anchors the user's whole log on the local chain and records the checkpoint. */
async function anchorAll(user: TestUser, size: number, nonce: number): Promise<void> {
  const root = await rootAtSize(t.db, user.userId, size);
  const committed = await client.commit(user.wallet.publicKey, root, size, nonce);
  await recordCheckpoint(t, user, size, committed.nonce, committed.signature);
}

describe("namespaces", () => {
  it("commits the namespace in a version-2 leaf and filters lists and search by it", async () => {
    const user = await newUser(t.url);
    const a = await write(user.headers, {
      content: "alpha run",
      namespace: "agent:research/run:1",
    });
    const b = await write(user.headers, { content: "beta run", namespace: "agent:research/run:2" });
    const c = await write(user.headers, { content: "gamma", namespace: "agent:writer" });
    const none = await write(user.headers, { content: "no namespace" });
    expect(a.status).toBe(201);
    expect(a.body.namespace).toBe("agent:research/run:1");
    expect(none.body.namespace).toBeNull();

    const proof = await call<ProofBundle>(`${t.url}/memories/${a.body.id}/proof`, {
      headers: user.headers,
    });
    expect(proof.body.leafData).toMatchObject({
      v: 2,
      namespace: "agent:research/run:1",
      writtenBy: { kind: "session" },
      supersedes: null,
    });

    const list = (query: string) =>
      call<Page>(`${t.url}/memories?${query}`, { headers: user.headers });
    expect((await list("namespace=agent:writer")).body.items.map((m) => m.id)).toEqual([c.body.id]);
    expect((await list("namespacePrefix=agent:research/")).body.items.map((m) => m.id)).toEqual([
      b.body.id,
      a.body.id,
    ]);
    // `_` and `%` are literal in a prefix, not LIKE wildcards.
    expect((await list("namespacePrefix=agent_research")).body.items).toEqual([]);
    const found = await search(user.headers, { namespacePrefix: "agent:research/" });
    expect(found.body.items.map((m) => m.id)).toEqual([b.body.id, a.body.id]);
    const exact = await search(user.headers, { query: "run", namespace: "agent:research/run:2" });
    expect(exact.body.items.map((m) => m.id)).toEqual([b.body.id]);
  });

  it("refuses a malformed namespace with 400 naming it", async () => {
    const user = await newUser(t.url);
    for (const namespace of ["", "has space", "x".repeat(129), "émoji"]) {
      const res = await write(user.headers, { content: "x", namespace });
      expect(res.status, namespace).toBe(400);
      expect(JSON.stringify(res.body.error.details)).toContain("namespace");
    }
  });
});

describe("scoped, expiring, confined API keys", () => {
  it("shows scopes, expiry and namespace on POST and GET /keys; all four scopes by default", async () => {
    const user = await newUser(t.url);
    const expiresAt = new Date(t.clock.now().getTime() + 3_600_000).toISOString();
    const created = await call<Record<string, unknown>>(`${t.url}/keys`, {
      headers: user.headers,
      body: { label: "reader", scopes: ["memories:read"], expiresAt, namespace: "agent:a/" },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      scopes: ["memories:read"],
      expiresAt,
      namespace: "agent:a/",
    });
    await createKey(user, {});
    const listed = await call<{ items: Record<string, unknown>[] }>(`${t.url}/keys`, {
      headers: user.headers,
    });
    expect(
      listed.body.items.map(({ scopes, expiresAt, namespace }) => ({
        scopes,
        expiresAt,
        namespace,
      })),
    ).toEqual([
      {
        scopes: ["memories:read", "memories:write", "memories:delete", "grants:write"],
        expiresAt: null,
        namespace: null,
      },
      { scopes: ["memories:read"], expiresAt, namespace: "agent:a/" },
    ]);
    for (const body of [
      { label: "x", scopes: [] },
      { label: "x", scopes: ["read"] },
      { label: "x", scopes: ["memories:read", "memories:read"] },
      { label: "x", expiresAt: new Date(t.clock.now().getTime() - 1000).toISOString() },
      { label: "x", expiresAt: "tomorrow" },
      { label: "x", namespace: "bad namespace" },
    ]) {
      const res = await call<ErrorBody>(`${t.url}/keys`, { headers: user.headers, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.code).toBe("invalid_request");
    }
  });

  it("answers 401 once a key has expired", async () => {
    const user = await newUser(t.url);
    const key = await createKey(user, {
      expiresAt: new Date(t.clock.now().getTime() + 60_000).toISOString(),
    });
    expect((await call(`${t.url}/memories`, { headers: key.headers })).status).toBe(200);
    t.clock.advance(60_000);
    const expired = await call<ErrorBody>(`${t.url}/memories`, { headers: key.headers });
    expect(expired.status).toBe(401);
    expect(expired.body.error.code).toBe("unauthorized");
  });

  it("enforces the scope of every route: 403 insufficient_scope without it, served with it", async () => {
    const user = await newUser(t.url);
    const seed = await write(user.headers, { content: "scoped seed" });
    const grant = await call<{ id: string }>(`${t.url}/agent-cases`, {
      headers: user.headers,
      body: { operation: { type: "search", query: "seed" } },
    });
    const id = seed.body.id;
    const routes: [scope: string, method: string, path: string, body?: unknown][] = [
      ["memories:read", "GET", "/memories"],
      ["memories:read", "GET", `/memories/${id}`],
      ["memories:read", "GET", `/memories/${id}/proof`],
      ["memories:read", "GET", `/memories/${id}/history`],
      ["memories:read", "POST", "/memories/search", { query: "seed" }],
      ["memories:read", "GET", "/log"],
      ["memories:read", "GET", "/log/consistency?from=1&to=1"],
      ["memories:write", "POST", "/memories", { content: "x" }],
      ["memories:write", "POST", "/memories/batch", { items: [{ content: "x" }] }],
      ["memories:write", "PUT", `/memories/${randomUUID()}`, { content: "x" }],
      ["memories:delete", "DELETE", `/memories/${randomUUID()}`],
      ["grants:write", "GET", "/agent-cases"],
      ["grants:write", "POST", "/agent-cases", { operation: { type: "search", query: "x" } }],
      ["grants:write", "DELETE", `/agent-cases/${grant.body.id}`],
      ["grants:write", "GET", `/agent-cases/${grant.body.id}/audit`],
    ];
    const all = ["memories:read", "memories:write", "memories:delete", "grants:write"];
    for (const [scope, method, path, body] of routes) {
      const without = await createKey(user, { scopes: all.filter((s) => s !== scope) });
      const refused = await call<ErrorBody>(`${t.url}${path}`, {
        method,
        headers: without.headers,
        ...(body === undefined ? {} : { body }),
      });
      expect(refused.status, `${method} ${path} without ${scope}`).toBe(403);
      expect(refused.body.error.code).toBe("insufficient_scope");
      const only = await createKey(user, { scopes: [scope] });
      const served = await call(`${t.url}${path}`, {
        method,
        headers: only.headers,
        ...(body === undefined ? {} : { body }),
      });
      expect(served.status, `${method} ${path} with ${scope}`).not.toBe(403);
      expect(served.status, `${method} ${path} with ${scope}`).toBeLessThan(500);
    }
    // Key management stays with the wallet session, whatever the scopes.
    const full = await createKey(user, {});
    const keys = await call<ErrorBody>(`${t.url}/keys`, { headers: full.headers });
    expect(keys.body.error.code).toBe("session_required");
  });

  it("commits writtenBy: the API key id in the leaf, so which agent wrote a memory is provable", async () => {
    const user = await newUser(t.url);
    const key = await createKey(user, {});
    const byKey = await write(key.headers, { content: "written by an agent" });
    const bySession = await write(user.headers, { content: "written by the wallet" });
    expect(byKey.body.writtenBy).toEqual({ kind: "api_key", keyId: key.id });
    expect(bySession.body.writtenBy).toEqual({ kind: "session" });
    await anchorAll(user, 2, 0);
    const proof = await call<ProofBundle>(`${t.url}/memories/${byKey.body.id}/proof`, {
      headers: user.headers,
    });
    expect(proof.body.leafData).toMatchObject({ writtenBy: { kind: "api_key", keyId: key.id } });
    const audit = await verifyBundle(proof.body, {
      rpcUrl: chain.url,
      content: "written by an agent",
    });
    expect(audit).toMatchObject({ verified: true, contentChecked: true });
    // Another writer claimed in the bundle no longer matches the committed leaf.
    const forged = {
      ...proof.body,
      leafData: { ...proof.body.leafData, writtenBy: { kind: "session" } },
    };
    expect((await verifyBundle(forged, { rpcUrl: chain.url })).reason).toBe("leaf_mismatch");
  });

  it("confines two agents of one wallet to their own namespaces: they cannot see, prove, share, update or delete outside", async () => {
    const user = await newUser(t.url);
    const agentA = await createKey(user, { namespace: "agent:a/" });
    const agentB = await createKey(user, { namespace: "agent:b/" });
    const a1 = await write(agentA.headers, { content: "a's secret plan" });
    const a2 = await write(agentA.headers, {
      content: "a's second plan",
      namespace: "agent:a/run:2",
    });
    const b1 = await write(agentB.headers, { content: "b's secret plan" });
    const open = await write(user.headers, { content: "the wallet's own plan" });
    expect(a1.body.namespace).toBe("agent:a/");
    expect(a2.body.namespace).toBe("agent:a/run:2");
    expect(b1.body.namespace).toBe("agent:b/");

    const outside = await write(agentA.headers, { content: "x", namespace: "agent:b/sneaky" });
    expect(outside.status).toBe(403);
    expect(outside.body.error.code).toBe("forbidden");
    expect(outside.body.error.details).toEqual([
      { path: ["namespace"], message: '"agent:b/sneaky" is outside the key\'s namespace' },
    ]);
    const batch = await call<ErrorBody>(`${t.url}/memories/batch`, {
      headers: agentA.headers,
      body: { items: [{ content: "ok" }, { content: "x", namespace: "agent:c" }] },
    });
    expect(batch.status).toBe(403);
    expect((batch.body.error.details as { path: unknown[] }[])[0]?.path).toEqual([
      "items",
      1,
      "namespace",
    ]);

    const listA = await call<Page>(`${t.url}/memories`, { headers: agentA.headers });
    expect(listA.body.items.map((m) => m.id)).toEqual([a2.body.id, a1.body.id]);
    const searchA = await search(agentA.headers, { query: "plan" });
    expect(searchA.body.items.map((m) => m.id)).toEqual([a2.body.id, a1.body.id]);
    const relevantA = await search(agentA.headers, { query: "secret plan", rank: "relevance" });
    expect(relevantA.body.items.map((m) => m.id).sort()).toEqual([a1.body.id, a2.body.id].sort());
    const wallet = await search(user.headers, { query: "plan" });
    expect(wallet.body.items).toHaveLength(4);

    for (const foreign of [b1.body.id, open.body.id]) {
      for (const [method, path, body] of [
        ["GET", `/memories/${foreign}`],
        ["GET", `/memories/${foreign}/proof`],
        ["GET", `/memories/${foreign}/verify`],
        ["GET", `/memories/${foreign}/history`],
        ["PUT", `/memories/${foreign}`, { content: "taken over" }],
        ["DELETE", `/memories/${foreign}`],
        ["POST", "/agent-cases", { operation: { type: "read_memories", memoryIds: [foreign] } }],
      ] as [string, string, unknown?][]) {
        const res = await call<ErrorBody>(`${t.url}${path}`, {
          method,
          headers: agentA.headers,
          ...(body === undefined ? {} : { body }),
        });
        expect(res.status, `${method} ${path}`).toBe(404);
      }
    }
    expect(
      (await call(`${t.url}/memories/${b1.body.id}`, { headers: agentB.headers })).status,
    ).toBe(200);

    // A search grant made by agent A reaches only agent A's namespace.
    const shared = await call<{ id: string; token: string; operation: Record<string, unknown> }>(
      `${t.url}/agent-cases`,
      { headers: agentA.headers, body: { operation: { type: "search", query: "plan" } } },
    );
    expect(shared.status).toBe(201);
    expect(shared.body.operation).toMatchObject({ namespacePrefix: "agent:a/" });
    const used = await call<{ memories: Memory[] }>(`${t.url}/agent-cases/${shared.body.token}`);
    expect(used.body.memories.map((m) => m.id).sort()).toEqual([a1.body.id, a2.body.id].sort());
    const walletGrant = await call<{ id: string }>(`${t.url}/agent-cases`, {
      headers: user.headers,
      body: { operation: { type: "search", query: "plan" } },
    });
    const grantsA = await call<{ items: { id: string }[] }>(`${t.url}/agent-cases`, {
      headers: agentA.headers,
    });
    expect(grantsA.body.items.map((g) => g.id)).toEqual([shared.body.id]);
    const revokeOther = await call(`${t.url}/agent-cases/${walletGrant.body.id}`, {
      method: "DELETE",
      headers: agentA.headers,
    });
    expect(revokeOther.status).toBe(404);
    const grantsB = await call<{ items: unknown[] }>(`${t.url}/agent-cases`, {
      headers: agentB.headers,
    });
    expect(grantsB.body.items).toEqual([]);
  });
});

describe("updates with provable history", () => {
  it("appends a version that supersedes; lists show current versions; history proves every version on chain", async () => {
    const user = await newUser(t.url);
    const v1 = await write(user.headers, {
      content: "the user lives in Paris",
      metadata: { topic: "home" },
      namespace: "profile",
    });
    const other = await write(user.headers, { content: "unrelated" });
    const v2 = await call<Memory>(`${t.url}/memories/${v1.body.id}`, {
      method: "PUT",
      headers: user.headers,
      body: { content: "the user lives in Lyon", metadata: { topic: "home" } },
    });
    expect(v2.status).toBe(201);
    expect(v2.body).toMatchObject({ supersedes: v1.body.id, namespace: "profile", leafIndex: 2 });
    const v3 = await call<Memory>(`${t.url}/memories/${v2.body.id}`, {
      method: "PUT",
      headers: user.headers,
      body: { content: "the user lives in Nice" },
    });
    expect(v3.status).toBe(201);

    const old = await call<Memory>(`${t.url}/memories/${v1.body.id}`, { headers: user.headers });
    expect(old.body).toMatchObject({
      content: "the user lives in Paris",
      supersededBy: v2.body.id,
    });
    const current = await call<Page>(`${t.url}/memories`, { headers: user.headers });
    expect(current.body.items.map((m) => m.id)).toEqual([v3.body.id, other.body.id]);
    const everything = await call<Page>(`${t.url}/memories?includeSuperseded=true`, {
      headers: user.headers,
    });
    expect(everything.body.items).toHaveLength(4);
    const lives = await search(user.headers, { query: "lives" });
    expect(lives.body.items.map((m) => m.id)).toEqual([v3.body.id]);
    const allLives = await search(user.headers, { query: "lives", includeSuperseded: true });
    expect(allLives.body.items.map((m) => m.id)).toEqual([v3.body.id, v2.body.id, v1.body.id]);

    await anchorAll(user, 4, 0);
    for (const id of [v1.body.id, v2.body.id, v3.body.id]) {
      const history = await call<{ items: (Memory & { proof: ProofBundle })[] }>(
        `${t.url}/memories/${id}/history`,
        { headers: user.headers },
      );
      expect(history.status).toBe(200);
      expect(history.body.items.map((m) => m.id)).toEqual([v1.body.id, v2.body.id, v3.body.id]);
      expect(history.body.items.map((m) => m.proof.leafData)).toMatchObject([
        { v: 2, supersedes: null },
        { v: 2, supersedes: v1.body.id },
        { v: 2, supersedes: v2.body.id },
      ]);
      for (const version of history.body.items) {
        const audit = await verifyBundle(version.proof, {
          rpcUrl: chain.url,
          content: version.content,
        });
        expect(audit, version.id).toMatchObject({ verified: true, contentChecked: true });
      }
    }
  });

  it("refuses to update a superseded or deleted memory (409) and an unknown one (404)", async () => {
    const user = await newUser(t.url);
    const v1 = await write(user.headers, { content: "first" });
    const put = (id: string) =>
      call<ErrorBody & Memory>(`${t.url}/memories/${id}`, {
        method: "PUT",
        headers: user.headers,
        body: { content: "next" },
      });
    expect((await put(v1.body.id)).status).toBe(201);
    const again = await put(v1.body.id);
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe("conflict");
    const gone = await write(user.headers, { content: "to delete" });
    await call(`${t.url}/memories/${gone.body.id}`, { method: "DELETE", headers: user.headers });
    expect((await put(gone.body.id)).status).toBe(409);
    expect((await put(randomUUID())).status).toBe(404);
  });

  it("lets exactly one of two concurrent updates of one memory win; the other answers 409", async () => {
    const user = await newUser(t.url);
    for (let round = 0; round < 5; round++) {
      const base = await write(user.headers, { content: `base ${round}` });
      const answers = await Promise.all(
        ["left", "right"].map((side) =>
          call<Memory>(`${t.url}/memories/${base.body.id}`, {
            method: "PUT",
            headers: user.headers,
            body: { content: `${side} ${round}` },
          }),
        ),
      );
      expect(answers.map((a) => a.status).sort()).toEqual([201, 409]);
      const winner = answers.find((a) => a.status === 201) as { body: Memory };
      const history = await call<{ items: Memory[] }>(`${t.url}/memories/${base.body.id}/history`, {
        headers: user.headers,
      });
      expect(history.body.items.map((m) => m.id)).toEqual([base.body.id, winner.body.id]);
    }
    const count = await t.sql<{ n: string }[]>`
      select count(*) as n from memories where user_id = ${user.userId}`;
    expect(Number(count[0]?.n)).toBe(10);
  });

  it("deleting one version destroys only that version's body; the others stay readable and provable", async () => {
    const user = await newUser(t.url);
    const v1 = await write(user.headers, { content: "version one" });
    const v2 = await call<Memory>(`${t.url}/memories/${v1.body.id}`, {
      method: "PUT",
      headers: user.headers,
      body: { content: "version two" },
    });
    const del = await call(`${t.url}/memories/${v2.body.id}`, {
      method: "DELETE",
      headers: user.headers,
    });
    expect(del.status).toBe(204);
    const row = await t.sql<{ ciphertext: Buffer | null }[]>`
      select ciphertext from memories where id = ${v2.body.id}`;
    expect(row[0]?.ciphertext).toBeNull();
    const first = await call<Memory>(`${t.url}/memories/${v1.body.id}`, { headers: user.headers });
    expect(first.body.content).toBe("version one");
    const history = await call<{ items: Memory[] }>(`${t.url}/memories/${v1.body.id}/history`, {
      headers: user.headers,
    });
    expect(history.body.items.map((m) => m.id)).toEqual([v1.body.id]);
    expect(
      (await call(`${t.url}/memories/${v1.body.id}/proof`, { headers: user.headers })).status,
    ).toBe(200);
  });
});

describe("filters, ranking and cursors", () => {
  const TAGS = ["red", "green", "blue"];

  /** The answer by definition: a filter over the plaintexts, newest first. */
  function reference(
    memories: readonly { id: string; metadata: Record<string, unknown>; createdAt: string }[],
    filter: {
      n?: number | { $gte?: number; $lte?: number } | { $in: number[] };
      tags?: { $contains: string };
      color?: string;
      createdAfter?: string;
    },
  ): string[] {
    return memories
      .filter((m) => {
        const n = m.metadata.n as number;
        if (typeof filter.n === "number" && n !== filter.n) {
          return false;
        }
        if (typeof filter.n === "object" && "$in" in filter.n && !filter.n.$in.includes(n)) {
          return false;
        }
        if (typeof filter.n === "object" && "$gte" in filter.n && filter.n.$gte !== undefined) {
          if (!(n >= filter.n.$gte)) {
            return false;
          }
        }
        if (typeof filter.n === "object" && "$lte" in filter.n && filter.n.$lte !== undefined) {
          if (!(n <= filter.n.$lte)) {
            return false;
          }
        }
        if (filter.tags && !(m.metadata.tags as string[]).includes(filter.tags.$contains)) {
          return false;
        }
        if (filter.color !== undefined && m.metadata.color !== filter.color) {
          return false;
        }
        if (filter.createdAfter && !(Date.parse(m.createdAt) > Date.parse(filter.createdAfter))) {
          return false;
        }
        return true;
      })
      .map((m) => m.id)
      .reverse();
  }

  it("answers filter-only searches exactly as a reference filter over the plaintexts, page by page", async () => {
    const user = await newUser(t.url);
    const memories: { id: string; metadata: Record<string, unknown>; createdAt: string }[] = [];
    const rng = fc.sample(
      fc.record({
        n: fc.integer({ min: 0, max: 9 }),
        color: fc.constantFrom(...TAGS),
        tags: fc.subarray(TAGS),
      }),
      { numRuns: 60, seed: 20261125 },
    );
    for (const [i, metadata] of rng.entries()) {
      t.clock.advance(1000);
      const res = await write(user.headers, { content: `memory ${i}`, metadata });
      memories.push({ id: res.body.id, metadata, createdAt: res.body.createdAt });
    }
    const filterArb = fc.record(
      {
        n: fc.oneof(
          fc.integer({ min: 0, max: 9 }),
          fc.record({ $gte: fc.integer({ min: 0, max: 9 }) }),
          fc.record({ $lte: fc.integer({ min: 0, max: 9 }) }),
          fc.record({ $gte: fc.integer({ min: 0, max: 4 }), $lte: fc.integer({ min: 5, max: 9 }) }),
          fc.record({ $in: fc.array(fc.integer({ min: 0, max: 9 }), { maxLength: 4 }) }),
        ),
        tags: fc.record({ $contains: fc.constantFrom(...TAGS) }),
        color: fc.constantFrom(...TAGS),
        createdAfter: fc.constantFrom(...memories.map((m) => m.createdAt)),
      },
      { requiredKeys: [] },
    );
    await fc.assert(
      fc.asyncProperty(filterArb, fc.integer({ min: 1, max: 7 }), async (filter, limit) => {
        const { createdAfter, ...metadata } = filter;
        const want = reference(memories, filter);
        const body = {
          ...(Object.keys(metadata).length > 0 ? { metadata } : {}),
          ...(createdAfter ? { createdAfter } : {}),
        };
        if (Object.keys(body).length === 0) {
          return; // no filter at all needs a query (tested below)
        }
        const got: string[] = [];
        let cursor: string | null = null;
        do {
          const page: { status: number; body: SearchPage & ErrorBody } = await search(
            user.headers,
            { ...body, limit, ...(cursor ? { cursor } : {}) },
          );
          expect(page.status, JSON.stringify(page.body)).toBe(200);
          expect(page.body.items.length).toBeLessThanOrEqual(limit);
          got.push(...page.body.items.map((m) => m.id));
          cursor = page.body.nextCursor;
        } while (cursor);
        expect(got).toEqual(want);
      }),
      { numRuns: 40, seed: 4242 },
    );
  });

  it("needs a query without a filter, and for relevance; refuses a foreign cursor", async () => {
    const user = await newUser(t.url);
    for (const body of [{}, { limit: 5 }, { rank: "relevance", metadata: { a: 1 } }]) {
      const res = await search(user.headers, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
    }
    const bad = await search(user.headers, { query: "x", cursor: "bm90IGEgY3Vyc29y" });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body.error.details)).toContain("cursor");
  });

  it("ranks by BM25 relevance with a score per item, whole words only, paged by cursor", async () => {
    const user = await newUser(t.url);
    const docs = [
      "the cat sat on the mat",
      "a cat and another cat played with a cat toy",
      "concatenate the strings",
      "dogs chase the cat around the garden all day long in the summer heat",
      "nothing relevant here",
    ];
    const ids: string[] = [];
    for (const content of docs) {
      ids.push((await write(user.headers, { content })).body.id);
    }
    const res = await search(user.headers, { query: "cat", rank: "relevance", limit: 10 });
    expect(res.status).toBe(200);
    const got = res.body.items;
    expect(got.map((m) => m.id)).toEqual([ids[1], ids[0], ids[3]]);
    const scores = got.map((m) => m.score as number);
    expect(scores.every((s) => s > 0)).toBe(true);
    expect([...scores].sort((a, b) => b - a)).toEqual(scores);
    const paged: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { body: SearchPage } = await search(user.headers, {
        query: "cat",
        rank: "relevance",
        limit: 1,
        ...(cursor ? { cursor } : {}),
      });
      paged.push(...page.body.items.map((m) => m.id));
      cursor = page.body.nextCursor;
    } while (cursor);
    expect(paged).toEqual(got.map((m) => m.id));
    const twoTerms = await search(user.headers, { query: "cat garden", rank: "relevance" });
    expect(twoTerms.body.items[0]?.id).toBe(ids[3]);
  });
});

describe("version-1 leaves", () => {
  it("keep verifying exactly as before, beside version-2 leaves, through the API and the auditor", async () => {
    const user = await newUser(t.url);
    const row = await getUserById(t.db, user.userId);
    const dataKey = t.config.masterKeys.unwrap(row?.wrappedDataKey as Uint8Array, user.userId);
    const id = randomUUID();
    const createdAt = t.clock.now();
    const body = { salt: newSalt(), content: "written before namespaces existed" };
    const { leafData, leafHash } = memoryLeaf(
      { memoryId: id, owner: user.wallet.publicKey, createdAt, metadata: { old: true } },
      body,
    );
    expect(leafData.v).toBe(1);
    const sealed = sealMemoryBody(dataKey, body, { userId: user.userId, memoryId: id });
    await appendMemories(t.db, user.userId, [
      { id, ...sealed, leafHash, metadata: { old: true }, createdAt },
    ]);
    const v2 = await write(user.headers, { content: "written after" });
    await anchorAll(user, 2, 0);

    const read = await call<Memory>(`${t.url}/memories/${id}`, { headers: user.headers });
    expect(read.body).toMatchObject({ writtenBy: null, namespace: null, supersedes: null });
    for (const [memoryId, content, v] of [
      [id, body.content, 1],
      [v2.body.id, "written after", 2],
    ] as const) {
      const proof = await call<ProofBundle>(`${t.url}/memories/${memoryId}/proof`, {
        headers: user.headers,
      });
      expect(proof.body.leafData.v).toBe(v);
      expect(await verifyBundle(proof.body, { rpcUrl: chain.url, content })).toMatchObject({
        verified: true,
      });
      const served = await call<{ verified: boolean }>(`${t.url}/memories/${memoryId}/verify`, {
        headers: user.headers,
      });
      expect(served.body.verified).toBe(true);
    }
    // An update of a version-1 memory is a version-2 leaf that supersedes it.
    const updated = await call<Memory>(`${t.url}/memories/${id}`, {
      method: "PUT",
      headers: user.headers,
      body: { content: "updated after" },
    });
    expect(updated.body.supersedes).toBe(id);
  });
});
