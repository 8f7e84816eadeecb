/**
 * The agent memory model's credentials (docs/protocol.md §3.5 "Scopes, expiry and confinement",
 * §4.6 "Namespaces"), over real HTTP, real PostgreSQL and the real program on the local chain:
 * namespaces committed in the leaf, scoped / expiring / confined API keys on every route, and
 * `writtenBy` provenance. Updates, filters, ranking and version-1 leaves: agent-model.test.ts.
 */
import { randomUUID } from "node:crypto";
import { type ProofBundle, verifyBundle } from "@verifiable-memory/verifier";
import { describe, expect, it } from "vitest";
import { agentHarness, type ErrorBody, type Memory, type Page } from "./_agent-model.js";
import { callAt, newUser } from "./helpers.js";

const h = agentHarness();

describe("namespaces", () => {
  it("commits the namespace in a version-2 leaf and filters lists and search by it", async () => {
    const user = await newUser(h.t.app);
    const a = await h.write(user.headers, {
      content: "alpha run",
      namespace: "agent:research/run:1",
    });
    const b = await h.write(user.headers, {
      content: "beta run",
      namespace: "agent:research/run:2",
    });
    const c = await h.write(user.headers, { content: "gamma", namespace: "agent:writer" });
    const none = await h.write(user.headers, { content: "no namespace" });
    expect(a.status).toBe(201);
    expect(a.body.namespace).toBe("agent:research/run:1");
    expect(none.body.namespace).toBeNull();

    const proof = await callAt<ProofBundle>(h.t.app, `/memories/${a.body.id}/proof`, {
      headers: user.headers,
    });
    expect(proof.body.leafData).toMatchObject({
      v: 2,
      namespace: "agent:research/run:1",
      writtenBy: { kind: "session" },
      supersedes: null,
    });

    const list = (query: string) =>
      callAt<Page>(h.t.app, `/memories?${query}`, { headers: user.headers });
    expect((await list("namespace=agent:writer")).body.items.map((m) => m.id)).toEqual([c.body.id]);
    expect((await list("namespacePrefix=agent:research/")).body.items.map((m) => m.id)).toEqual([
      b.body.id,
      a.body.id,
    ]);
    // `_` and `%` are literal in a prefix, not LIKE wildcards.
    expect((await list("namespacePrefix=agent_research")).body.items).toEqual([]);
    const found = await h.search(user.headers, { namespacePrefix: "agent:research/" });
    expect(found.body.items.map((m) => m.id)).toEqual([b.body.id, a.body.id]);
    const exact = await h.search(user.headers, { query: "run", namespace: "agent:research/run:2" });
    expect(exact.body.items.map((m) => m.id)).toEqual([b.body.id]);
  });

  it("refuses a malformed namespace with 400 naming it", async () => {
    const user = await newUser(h.t.app);
    for (const namespace of ["", "has space", "x".repeat(129), "émoji"]) {
      const res = await h.write(user.headers, { content: "x", namespace });
      expect(res.status, namespace).toBe(400);
      expect(JSON.stringify(res.body.error.details)).toContain("namespace");
    }
  });
});

describe("scoped, expiring, confined API keys", () => {
  it("shows scopes, expiry and namespace on POST and GET /keys; all four scopes by default", async () => {
    const user = await newUser(h.t.app);
    const expiresAt = new Date(h.t.clock.now().getTime() + 3_600_000).toISOString();
    const created = await callAt<Record<string, unknown>>(h.t.app, "/keys", {
      headers: user.headers,
      body: { label: "reader", scopes: ["memories:read"], expiresAt, namespace: "agent:a/" },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      scopes: ["memories:read"],
      expiresAt,
      namespace: "agent:a/",
    });
    await h.createKey(user, {});
    const listed = await callAt<{ items: Record<string, unknown>[] }>(h.t.app, "/keys", {
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
      { label: "x", expiresAt: new Date(h.t.clock.now().getTime() - 1000).toISOString() },
      { label: "x", expiresAt: "tomorrow" },
      { label: "x", namespace: "bad namespace" },
    ]) {
      const res = await callAt<ErrorBody>(h.t.app, "/keys", { headers: user.headers, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.code).toBe("invalid_request");
    }
  });

  it("answers 401 once a key has expired", async () => {
    const user = await newUser(h.t.app);
    const key = await h.createKey(user, {
      expiresAt: new Date(h.t.clock.now().getTime() + 60_000).toISOString(),
    });
    expect((await callAt(h.t.app, "/memories", { headers: key.headers })).status).toBe(200);
    h.t.clock.advance(60_000);
    const expired = await callAt<ErrorBody>(h.t.app, "/memories", { headers: key.headers });
    expect(expired.status).toBe(401);
    expect(expired.body.error.code).toBe("unauthorized");
  });

  it("enforces the scope of every route: 403 insufficient_scope without it, served with it", async () => {
    const user = await newUser(h.t.app);
    const seed = await h.write(user.headers, { content: "scoped seed" });
    const grant = await callAt<{ id: string }>(h.t.app, "/agent-cases", {
      headers: user.headers,
      body: { operation: { type: "search", query: "seed" } },
    });
    const id = seed.body.id;
    // `also`: the scopes the route needs besides `scope` (a grant's delegated operation, §8.1).
    const routes: [scope: string, method: string, path: string, body?: unknown, also?: string[]][] =
      [
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
        [
          "grants:write",
          "POST",
          "/agent-cases",
          { operation: { type: "search", query: "x" } },
          ["memories:read"],
        ],
        ["grants:write", "DELETE", `/agent-cases/${grant.body.id}`],
        ["grants:write", "GET", `/agent-cases/${grant.body.id}/audit`],
      ];
    const all = ["memories:read", "memories:write", "memories:delete", "grants:write"];
    for (const [scope, method, path, body, also = []] of routes) {
      const without = await h.createKey(user, { scopes: all.filter((s) => s !== scope) });
      const refused = await callAt<ErrorBody>(h.t.app, `${path}`, {
        method,
        headers: without.headers,
        ...(body === undefined ? {} : { body }),
      });
      expect(refused.status, `${method} ${path} without ${scope}`).toBe(403);
      expect(refused.body.error.code).toBe("insufficient_scope");
      const only = await h.createKey(user, { scopes: [scope, ...also] });
      const served = await callAt(h.t.app, `${path}`, {
        method,
        headers: only.headers,
        ...(body === undefined ? {} : { body }),
      });
      expect(served.status, `${method} ${path} with ${scope}`).not.toBe(403);
      expect(served.status, `${method} ${path} with ${scope}`).toBeLessThan(500);
    }
    // Key management stays with the wallet session, whatever the scopes.
    const full = await h.createKey(user, {});
    const keys = await callAt<ErrorBody>(h.t.app, "/keys", { headers: full.headers });
    expect(keys.body.error.code).toBe("session_required");
  });

  it("commits writtenBy: the API key id in the leaf, so which agent wrote a memory is provable", async () => {
    const user = await newUser(h.t.app);
    const key = await h.createKey(user, {});
    const byKey = await h.write(key.headers, { content: "written by an agent" });
    const bySession = await h.write(user.headers, { content: "written by the wallet" });
    expect(byKey.body.writtenBy).toEqual({ kind: "api_key", keyId: key.id });
    expect(bySession.body.writtenBy).toEqual({ kind: "session" });
    await h.anchorAll(user, 2, 0);
    const proof = await callAt<ProofBundle>(h.t.app, `/memories/${byKey.body.id}/proof`, {
      headers: user.headers,
    });
    expect(proof.body.leafData).toMatchObject({ writtenBy: { kind: "api_key", keyId: key.id } });
    const audit = await verifyBundle(proof.body, {
      rpcUrl: h.chainUrl,
      content: "written by an agent",
    });
    expect(audit).toMatchObject({ verified: true, contentChecked: true });
    // Another writer claimed in the bundle no longer matches the committed leaf.
    const forged = {
      ...proof.body,
      leafData: { ...proof.body.leafData, writtenBy: { kind: "session" } },
    };
    expect((await verifyBundle(forged, { rpcUrl: h.chainUrl })).reason).toBe("leaf_mismatch");
  });

  it("confines two agents of one wallet to their own namespaces: they cannot see, prove, share, update or delete outside", async () => {
    const user = await newUser(h.t.app);
    const agentA = await h.createKey(user, { namespace: "agent:a/" });
    const agentB = await h.createKey(user, { namespace: "agent:b/" });
    const a1 = await h.write(agentA.headers, { content: "a's secret plan" });
    const a2 = await h.write(agentA.headers, {
      content: "a's second plan",
      namespace: "agent:a/run:2",
    });
    const b1 = await h.write(agentB.headers, { content: "b's secret plan" });
    const open = await h.write(user.headers, { content: "the wallet's own plan" });
    expect(a1.body.namespace).toBe("agent:a/");
    expect(a2.body.namespace).toBe("agent:a/run:2");
    expect(b1.body.namespace).toBe("agent:b/");

    const outside = await h.write(agentA.headers, { content: "x", namespace: "agent:b/sneaky" });
    expect(outside.status).toBe(403);
    expect(outside.body.error.code).toBe("forbidden");
    expect(outside.body.error.details).toEqual([
      { path: ["namespace"], message: '"agent:b/sneaky" is outside the key\'s namespace' },
    ]);
    const batch = await callAt<ErrorBody>(h.t.app, "/memories/batch", {
      headers: agentA.headers,
      body: { items: [{ content: "ok" }, { content: "x", namespace: "agent:c" }] },
    });
    expect(batch.status).toBe(403);
    expect((batch.body.error.details as { path: unknown[] }[])[0]?.path).toEqual([
      "items",
      1,
      "namespace",
    ]);

    const listA = await callAt<Page>(h.t.app, "/memories", { headers: agentA.headers });
    expect(listA.body.items.map((m) => m.id)).toEqual([a2.body.id, a1.body.id]);
    const searchA = await h.search(agentA.headers, { query: "plan" });
    expect(searchA.body.items.map((m) => m.id)).toEqual([a2.body.id, a1.body.id]);
    const relevantA = await h.search(agentA.headers, { query: "secret plan", rank: "relevance" });
    expect(relevantA.body.items.map((m) => m.id).sort()).toEqual([a1.body.id, a2.body.id].sort());
    const wallet = await h.search(user.headers, { query: "plan" });
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
        const res = await callAt<ErrorBody>(h.t.app, `${path}`, {
          method,
          headers: agentA.headers,
          ...(body === undefined ? {} : { body }),
        });
        expect(res.status, `${method} ${path}`).toBe(404);
      }
    }
    expect(
      (await callAt(h.t.app, `/memories/${b1.body.id}`, { headers: agentB.headers })).status,
    ).toBe(200);

    // A search grant made by agent A reaches only agent A's namespace.
    const shared = await callAt<{ id: string; token: string; operation: Record<string, unknown> }>(
      h.t.app,
      "/agent-cases",
      { headers: agentA.headers, body: { operation: { type: "search", query: "plan" } } },
    );
    expect(shared.status).toBe(201);
    expect(shared.body.operation).toMatchObject({ namespacePrefix: "agent:a/" });
    const used = await callAt<{ memories: Memory[] }>(h.t.app, `/agent-cases/${shared.body.token}`);
    expect(used.body.memories.map((m) => m.id).sort()).toEqual([a1.body.id, a2.body.id].sort());
    const walletGrant = await callAt<{ id: string }>(h.t.app, "/agent-cases", {
      headers: user.headers,
      body: { operation: { type: "search", query: "plan" } },
    });
    const grantsA = await callAt<{ items: { id: string }[] }>(h.t.app, "/agent-cases", {
      headers: agentA.headers,
    });
    expect(grantsA.body.items.map((g) => g.id)).toEqual([shared.body.id]);
    const revokeOther = await callAt(h.t.app, `/agent-cases/${walletGrant.body.id}`, {
      method: "DELETE",
      headers: agentA.headers,
    });
    expect(revokeOther.status).toBe(404);
    const grantsB = await callAt<{ items: unknown[] }>(h.t.app, "/agent-cases", {
      headers: agentB.headers,
    });
    expect(grantsB.body.items).toEqual([]);
  });
});
