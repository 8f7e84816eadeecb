/**
 * `POST /mcp` (docs/protocol.md §4.9 "MCP") with the MCP SDK's own client over Streamable HTTP,
 * against the real app on real PostgreSQL and the commitment program on the local chain: the tool
 * list, remember then recall, forget, prove and verify before and after anchoring, scopes and
 * namespace confinement of API keys, 401 without a bearer, 405 for GET/DELETE, the rate limit, and
 * the OpenAPI document.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { Keypair } from "@solana/web3.js";
import { ChainClient } from "@verifiable-memory/chain-commit";
import { LOCAL_PROGRAM_ID } from "@verifiable-memory/commitment-program";
import { rootAtSize } from "@verifiable-memory/db-schema";
import { requestAirdrop, startLocalChain } from "@verifiable-memory/litesvm-rpc";
import {
  McpClients,
  MEMORY_TOOL_NAMES,
  type Recalled,
  type ToolError,
  tool,
} from "@verifiable-memory/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  call,
  newUser,
  postJson,
  recordCheckpoint,
  startTestApp,
  type TestApp,
  type TestUser,
} from "./helpers.js";

let t: TestApp;
let chain: Awaited<ReturnType<typeof startLocalChain>>;
let chainDir: string;
let anchorer: ChainClient;
const mcp = new McpClients();

beforeAll(async () => {
  chainDir = await mkdtemp(join(tmpdir(), "core-api-mcp-"));
  chain = await startLocalChain({ port: 0, dataDir: chainDir, programId: LOCAL_PROGRAM_ID });
  const authority = Keypair.generate();
  await requestAirdrop(chain.url, authority.publicKey.toBase58(), 10e9);
  anchorer = new ChainClient({
    rpcUrl: chain.url,
    programId: LOCAL_PROGRAM_ID,
    authority,
    confirmTimeoutMs: 20_000,
  });
  t = await startTestApp({ env: { CHAIN_RPC_URL: chain.url, SIWS_CHAIN_ID: "localnet" } });
});
afterAll(async () => {
  await mcp.closeAll();
  await t?.close();
  await chain?.close();
  await rm(chainDir, { recursive: true, force: true });
});

/** An MCP client connected to `${url}/mcp` with `bearer`. */
function connect(bearer: string, url = t.url): Promise<Client> {
  return mcp.overHttp(url, bearer, "core-api-test");
}

/** Mints an API key for `user` with `body`'s scopes / namespace. */
async function createKey(user: TestUser, body: Record<string, unknown> = {}): Promise<string> {
  const res = await postJson(`${t.url}/keys`, { label: "mcp", ...body }, user.headers);
  expect(res.status).toBe(201);
  return ((await res.json()) as { key: string }).key;
}

/** Anchors the user's log at `size` on the local chain and records the checkpoint. */
async function anchorAll(user: TestUser, size: number, nonce: number): Promise<void> {
  const root = await rootAtSize(t.db, user.userId, size);
  const committed = await anchorer.commit(user.wallet.publicKey, root, size, nonce);
  await recordCheckpoint(t, user, size, committed.nonce, committed.signature);
}

describe("POST /mcp", () => {
  it("lists the nine memory tools, each with a description and an input schema", async () => {
    const user = await newUser(t.url);
    const client = await connect(await createKey(user));
    expect(client.getServerVersion()?.name).toBe("svc-memory");
    expect(client.getInstructions()).toMatch(/encrypted/);
    const { tools } = await client.listTools();
    expect(tools.map((entry) => entry.name).sort()).toEqual(MEMORY_TOOL_NAMES);
    const byName = Object.fromEntries(tools.map((entry) => [entry.name, entry]));
    for (const entry of tools) {
      expect(entry.description?.length, entry.name).toBeGreaterThan(100);
      expect(entry.inputSchema.type).toBe("object");
    }
    expect(byName.remember?.description).toMatch(/encrypted/);
    expect(byName.remember?.inputSchema.required).toEqual(["content"]);
    expect(Object.keys(byName.remember?.inputSchema.properties ?? {}).sort()).toEqual([
      "content",
      "metadata",
      "namespace",
    ]);
    expect(Object.keys(byName.recall?.inputSchema.properties ?? {}).sort()).toEqual([
      "caseSensitive",
      "createdAfter",
      "createdBefore",
      "cursor",
      "includeSuperseded",
      "limit",
      "metadata",
      "namespace",
      "namespacePrefix",
      "query",
      "rank",
    ]);
    for (const entry of tools) {
      expect(entry.inputSchema.additionalProperties, entry.name).toBe(false);
      for (const [name, property] of Object.entries(entry.inputSchema.properties ?? {})) {
        expect((property as { description?: string }).description, `${entry.name}.${name}`).toMatch(
          /\w{3}/,
        );
      }
      expect(entry.description, entry.name).not.toMatch(/remember the corrected|re-?remember/i);
    }
    expect(byName.update?.inputSchema.required).toEqual(["id", "content"]);
    for (const name of ["forget", "prove", "verify", "get", "history"]) {
      expect(byName[name]?.inputSchema.required, name).toEqual(["id"]);
    }
    expect(byName.forget?.annotations?.destructiveHint).toBe(true);
    expect(byName.recall?.annotations?.readOnlyHint).toBe(true);
  });

  it("remembers, then recalls the memory as the caller (an API key)", async () => {
    const user = await newUser(t.url);
    const client = await connect(await createKey(user));
    const stored = await tool<{ id: string; anchored: boolean; namespace: string | null }>(
      client,
      "remember",
      { content: "The user prefers French for replies.", metadata: { topic: "preferences" } },
    );
    expect(stored.isError).toBe(false);
    expect(stored.body).toMatchObject({ anchored: false, namespace: null });
    expect(stored.body.id).toMatch(/^[0-9a-f-]{36}$/);

    const recalled = await tool<Recalled>(client, "recall", { query: "french" });
    expect(recalled.isError).toBe(false);
    expect(recalled.body.count).toBe(1);
    expect(recalled.body.items[0]).toMatchObject({
      id: stored.body.id,
      content: "The user prefers French for replies.",
      anchored: false,
    });
    const filtered = await tool<Recalled>(client, "recall", {
      metadata: { topic: "preferences" },
    });
    expect(filtered.body.items.map((item) => item.id)).toEqual([stored.body.id]);
    const latest = await tool<Recalled>(client, "list", {});
    expect(latest.body.items.map((item) => item.id)).toEqual([stored.body.id]);
    const none = await tool<Recalled>(client, "recall", { query: "german" });
    expect(none.body).toMatchObject({ count: 0, items: [] });

    // The same memory through the REST API: written by the key, in the wallet's log.
    const memory = await call<{ content: string; writtenBy: { kind: string } }>(
      `${t.url}/memories/${stored.body.id}`,
      { headers: user.headers },
    );
    expect(memory.body).toMatchObject({
      content: "The user prefers French for replies.",
      writtenBy: { kind: "api_key" },
    });
  });

  it("proves and verifies before and after anchoring, and forgets", async () => {
    const user = await newUser(t.url);
    const client = await connect(user.token);
    const stored = await tool<{ id: string }>(client, "remember", { content: "Anchor me." });
    const { id } = stored.body;

    const early = await tool<{ id: string; anchored: boolean; bundle: { memoryId: string } }>(
      client,
      "prove",
      { id },
    );
    expect(early.body).toMatchObject({ id, anchored: false, bundle: { memoryId: id } });
    const notYet = await tool(client, "verify", { id });
    expect(notYet.isError).toBe(false);
    expect(notYet.body).toMatchObject({
      id,
      verified: false,
      anchored: false,
      reason: "not_anchored",
      checkedBy: "server",
    });

    await anchorAll(user, 1, 0);
    const proved = await tool<{
      anchored: boolean;
      bundle: { anchored: boolean; inclusionProof: string[]; anchor: { signature: string } };
    }>(client, "prove", { id });
    expect(proved.body.anchored).toBe(true);
    expect(proved.body.bundle.anchor.signature).toEqual(expect.any(String));
    const verified = await tool(client, "verify", { id });
    expect(verified.body).toMatchObject({ id, verified: true, anchored: true, reason: null });
    const recalled = await tool<Recalled>(client, "recall", { query: "anchor" });
    expect(recalled.body.items[0]).toMatchObject({ id, anchored: true });

    const forgotten = await tool(client, "forget", { id });
    expect(forgotten).toEqual({
      isError: false,
      body: expect.objectContaining({ id, forgotten: true }),
    });
    const again = await tool<ToolError>(client, "forget", { id });
    expect(again.isError).toBe(true);
    expect(again.body.error.code).toBe("not_found");
    const gone = await tool<ToolError>(client, "prove", { id });
    expect(gone.body.error.code).toBe("not_found");
    expect((await tool<Recalled>(client, "recall", { query: "anchor" })).body.count).toBe(0);
  });

  it("confines a namespace-confined key's tools to its namespace", async () => {
    const user = await newUser(t.url);
    const inside = await postJson(
      `${t.url}/memories`,
      { content: "research note", namespace: "agent:research/run:1" },
      user.headers,
    );
    const outside = await postJson(
      `${t.url}/memories`,
      { content: "writer note", namespace: "agent:writer" },
      user.headers,
    );
    const outsideId = ((await outside.json()) as { id: string }).id;
    const insideId = ((await inside.json()) as { id: string }).id;
    const client = await connect(await createKey(user, { namespace: "agent:research" }));

    const all = await tool<Recalled>(client, "recall", { query: "note" });
    expect(all.body.items.map((item) => item.id)).toEqual([insideId]);
    const latest = await tool<Recalled>(client, "list", {});
    expect(latest.body.items.map((item) => item.id)).toEqual([insideId]);
    const elsewhere = await tool<Recalled>(client, "recall", { namespace: "agent:writer" });
    expect(elsewhere.body.count).toBe(0);

    const written = await tool<{ id: string; namespace: string }>(client, "remember", {
      content: "new research note",
    });
    expect(written.body.namespace).toBe("agent:research");
    const refused = await tool<ToolError>(client, "remember", {
      content: "escape",
      namespace: "agent:writer",
    });
    expect(refused.isError).toBe(true);
    expect(refused.body.error.code).toBe("forbidden");

    for (const name of ["prove", "verify", "forget"]) {
      const hidden = await tool<ToolError>(client, name, { id: outsideId });
      expect(hidden.body.error.code, name).toBe("not_found");
    }
    // The wallet still sees both.
    const owner = await connect(user.token);
    expect((await tool<Recalled>(owner, "recall", { query: "note" })).body.count).toBe(3);
  });

  it("applies the key's scopes to each tool", async () => {
    const user = await newUser(t.url);
    const readOnly = await connect(await createKey(user, { scopes: ["memories:read"] }));
    const refused = await tool<ToolError>(readOnly, "remember", { content: "nope" });
    expect(refused.isError).toBe(true);
    expect(refused.body.error.code).toBe("insufficient_scope");
    expect((await tool(readOnly, "recall", { query: "x" })).isError).toBe(false);
    const forget = await tool<ToolError>(readOnly, "forget", { id: "nope" });
    expect(forget.body.error.code).toBe("insufficient_scope");
  });

  it("reports invalid input as a tool error, not a server failure", async () => {
    const user = await newUser(t.url);
    const client = await connect(user.token);
    const big = await tool<ToolError>(client, "remember", { content: "x".repeat(40_000) });
    expect(big.isError).toBe(true);
    expect(big.body.error.code).toBe("invalid_request");
    const relevance = await tool<ToolError>(client, "recall", { rank: "relevance" });
    expect(relevance.body.error.code).toBe("invalid_request");
    const schema = (await client.callTool({
      name: "recall",
      arguments: { limit: 0 },
    })) as CallToolResult;
    expect(schema.isError).toBe(true);
  });

  it("answers 401 in the API's error shape without a bearer", async () => {
    const res = await postJson(
      `${t.url}/mcp`,
      { jsonrpc: "2.0", id: 1, method: "tools/list" },
      { accept: "application/json, text/event-stream" },
    );
    expect(res.status).toBe(401);
    // RFC 6750 §3; no OAuth protected-resource metadata (RFC 9728): the bearer is an API key or
    // a session token, never an OAuth access token.
    expect(res.headers.get("www-authenticate")).toMatch(/^Bearer\b/);
    expect(res.headers.get("www-authenticate")).not.toMatch(/resource_metadata/);
    expect(((await res.json()) as ToolError).error.code).toBe("unauthorized");
    const forged = await postJson(
      `${t.url}/mcp`,
      { jsonrpc: "2.0", id: 1, method: "tools/list" },
      { accept: "application/json, text/event-stream", authorization: "Bearer svc_forged" },
    );
    expect(forged.status).toBe(401);
    expect(forged.headers.get("www-authenticate")).toMatch(/^Bearer\b/);
    const wellKnown = await fetch(`${t.url}/.well-known/oauth-protected-resource`);
    expect(wellKnown.status).toBe(404);

    const client = new Client({ name: "anonymous", version: "1.0.0" });
    await expect(
      client.connect(new StreamableHTTPClientTransport(new URL(`${t.url}/mcp`))),
    ).rejects.toThrow(/401|unauthorized/i);
  });

  it("answers GET and DELETE with 405, and keeps the request id on answers", async () => {
    const user = await newUser(t.url);
    for (const method of ["GET", "DELETE"]) {
      const res = await fetch(`${t.url}/mcp`, { method, headers: user.headers });
      expect(res.status, method).toBe(405);
      expect(res.headers.get("allow")).toBe("POST");
      expect(((await res.json()) as ToolError).error.code).toBe("method_not_allowed");
    }
    const res = await postJson(
      `${t.url}/mcp`,
      {
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: {
          protocolVersion: "2025-06-18",
          capabilities: {},
          clientInfo: { name: "raw", version: "1" },
        },
      },
      { ...user.headers, accept: "application/json, text/event-stream", "x-request-id": "mcp-1" },
    );
    expect(res.status).toBe(200);
    expect(res.headers.get("x-request-id")).toBe("mcp-1");
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    const body = (await res.json()) as { result: { serverInfo: { name: string } } };
    expect(body.result.serverInfo.name).toBe("svc-memory");
    expect(res.headers.get("mcp-session-id")).toBeNull();
  });

  it("refuses a body that is not JSON-RPC with 400 invalid_request", async () => {
    const user = await newUser(t.url);
    const res = await postJson(`${t.url}/mcp`, { hello: "world" }, user.headers);
    expect(res.status).toBe(400);
    expect(((await res.json()) as ToolError).error.code).toBe("invalid_request");
  });

  it("is rate-limited per credential like every authenticated route", async () => {
    const limited = await startTestApp({
      shareDatabaseOf: t,
      env: { RATE_LIMIT_AUTHENTICATED_PER_MINUTE: "2" },
    });
    try {
      const user = await newUser(limited.url);
      const list = () =>
        postJson(
          `${limited.url}/mcp`,
          { jsonrpc: "2.0", id: 1, method: "tools/list" },
          { ...user.headers, accept: "application/json, text/event-stream" },
        );
      expect((await list()).status).toBe(200);
      expect((await list()).status).toBe(200);
      const third = await list();
      expect(third.status).toBe(429);
      expect(((await third.json()) as ToolError).error.code).toBe("rate_limited");
    } finally {
      await limited.close();
    }
  });

  it("is documented in the OpenAPI document as operation `mcp`", async () => {
    const doc = (await (await fetch(`${t.url}/openapi.json`)).json()) as {
      paths: Record<string, Record<string, { operationId?: string; security?: unknown[] }>>;
    };
    expect(doc.paths["/mcp"]?.post?.operationId).toBe("mcp");
    expect(doc.paths["/mcp"]?.post?.security).toEqual([{ bearer: [] }]);
  });
});
