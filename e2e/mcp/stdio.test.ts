/**
 * The stdio MCP server as an MCP client runs it: `node packages/mcp/bin/svc-mcp.js` spawned by the
 * MCP SDK's own `StdioClientTransport`, configured by the environment, against core-api started in
 * process on real PostgreSQL (apps/core-api/test/helpers.ts) with an API key minted through the
 * API; the local chain (litesvm with the commitment program) and the anchor service's own sweep
 * anchor, so `verify` checks against the chain from the server's process.
 */
import { spawn, spawnSync } from "node:child_process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { getDefaultEnvironment } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { Keypair } from "@solana/web3.js";
import { LOCAL_PROGRAM_ID } from "@verifiable-memory/commitment-program";
import { StdioConfigError, stdioOptionsFromEnv } from "@verifiable-memory/mcp";
import {
  McpClients,
  MEMORY_TOOL_NAMES,
  mintApiKey,
  newUser,
  postJson,
  type Recalled,
  type TestUser,
  type ToolError,
  tool,
} from "@verifiable-memory/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Chain, type CoreApp, startChain, startCoreApi } from "../_apps.js";

const BIN = fileURLToPath(new URL("../../packages/mcp/bin/svc-mcp.js", import.meta.url));

let t: CoreApp;
let chain: Chain;
let authority: Keypair;
const mcp = new McpClients();

beforeAll(async () => {
  chain = await startChain();
  authority = chain.authority;
  t = await startCoreApi({ env: { CHAIN_RPC_URL: chain.url, SIWS_CHAIN_ID: "localnet" } });
});
afterAll(async () => {
  await mcp.closeAll();
  await t?.close();
  await chain?.close();
});

/** Anchors every user with pending leaves, as the anchor service's worker does each sweep. */
async function anchorNow(): Promise<void> {
  await chain.anchorNow(t.db);
}

/** Spawns `svc-mcp` with `env` (on top of the SDK's safe default environment) and connects. */
function spawnServer(env: Record<string, string>): Promise<Client> {
  return mcp.overStdio(BIN, env, "svc-mcp-test");
}

describe("svc-mcp over stdio", () => {
  let user: TestUser;
  let client: Client;
  let id: string;
  let apiKey: string;

  beforeAll(async () => {
    user = await newUser(t.url);
    apiKey = await mintApiKey(t.url, user.token, "stdio");
    client = await spawnServer({
      SVC_URL: t.url,
      SVC_API_KEY: apiKey,
      SVC_RPC_URL: chain.url,
      SVC_PROGRAM_ID: LOCAL_PROGRAM_ID,
      SVC_AUTHORITY: authority.publicKey.toBase58(),
    });
  });

  it("lists the nine tools", async () => {
    expect(client.getServerVersion()?.name).toBe("svc-memory");
    const { tools } = await client.listTools();
    expect(tools.map((entry) => entry.name).sort()).toEqual(MEMORY_TOOL_NAMES);
    for (const entry of tools) {
      expect(entry.description, entry.name).toMatch(/memor/i);
      expect(entry.inputSchema.type).toBe("object");
    }
  });

  it("remembers, then recalls", async () => {
    const stored = await tool<{ id: string; anchored: boolean }>(client, "remember", {
      content: "The deploy window is Tuesday 14:00 UTC.",
      metadata: { topic: "ops" },
    });
    expect(stored.isError).toBe(false);
    expect(stored.body.anchored).toBe(false);
    id = stored.body.id;
    const recalled = await tool<Recalled>(client, "recall", { query: "deploy window" });
    expect(recalled.body.items).toEqual([
      expect.objectContaining({
        id,
        content: "The deploy window is Tuesday 14:00 UTC.",
        anchored: false,
      }),
    ]);
    const ranked = await tool<Recalled & { items: { score: number }[] }>(client, "recall", {
      query: "tuesday deploy",
      rank: "relevance",
      metadata: { topic: { $in: ["ops", "dev"] } },
    });
    expect(ranked.body.items[0]).toMatchObject({ id, score: expect.any(Number) });
  });

  it("gets, updates with history kept, and lists", async () => {
    const first = await tool<{ id: string }>(client, "remember", { content: "Standup at 9." });
    const second = await tool<{ id: string; supersedes: string }>(client, "update", {
      id: first.body.id,
      content: "Standup at 9:30.",
    });
    expect(second.body.supersedes).toBe(first.body.id);
    const got = await tool<{ content: string; supersededBy: string }>(client, "get", {
      id: first.body.id,
    });
    expect(got.body).toMatchObject({ content: "Standup at 9.", supersededBy: second.body.id });
    const history = await tool<Recalled>(client, "history", { id: first.body.id });
    expect(history.body.items.map((item) => item.content)).toEqual([
      "Standup at 9.",
      "Standup at 9:30.",
    ]);
    const listed = await tool<Recalled>(client, "list", { limit: 1 });
    expect(listed.body.items.map((item) => item.id)).toEqual([second.body.id]);
    const conflict = await tool<ToolError>(client, "update", {
      id: first.body.id,
      content: "Standup at 10.",
    });
    expect(conflict.body.error.code).toBe("conflict");
    // Forget the corrected fact's versions so the following cases see the deploy memory alone.
    await tool(client, "forget", { id: second.body.id });
    await tool(client, "forget", { id: first.body.id });
  });

  it("refuses what the REST routes refuse, before calling the API", async () => {
    const proto = JSON.parse('{"__proto__": {"polluted": true}}') as Record<string, unknown>;
    const rest = await postJson(
      `${t.url}/memories`,
      { content: "x", metadata: proto },
      {
        authorization: `Bearer ${apiKey}`,
      },
    );
    expect(rest.status).toBe(400);
    const { code, message, details } = ((await rest.json()) as ToolError).error;
    const refused = await tool<ToolError>(client, "remember", { content: "x", metadata: proto });
    expect(refused).toEqual({ isError: true, body: { error: { code, message, details } } });
    const unknown = await tool<ToolError>(client, "recall", { query: "x", extra: 1 });
    expect(unknown.body.error).toMatchObject({
      code: "invalid_request",
      details: [expect.objectContaining({ message: expect.stringMatching(/extra/) })],
    });
  });

  it("refuses an over-precise metadata number sent by the SDK client, naming the path", async () => {
    // The client writes this double as 1.2345678901234568e+29: an integer past 2^53 − 1.
    const big = Number("123456789012345678901234567890");
    const failed = await client
      .callTool({ name: "remember", arguments: { content: "x", metadata: { n: big } } })
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    expect(failed).toBeInstanceOf(McpError);
    expect(failed).toMatchObject({
      code: ErrorCode.InvalidParams,
      data: {
        code: "invalid_request",
        details: [{ path: ["params", "arguments", "metadata", "n"] }],
      },
    });
    expect((failed as McpError).message).toMatch(/params\.arguments\.metadata\.n: number is not/);
    // The server goes on answering on the same connection.
    expect((await tool<Recalled>(client, "recall", { query: "deploy" })).body.count).toBe(1);
  });

  it("refuses raw lines with a duplicate key or a 30-digit metadata integer as POST /mcp does", async () => {
    const child = spawn(process.execPath, [BIN], {
      env: { ...getDefaultEnvironment(), SVC_URL: t.url, SVC_API_KEY: apiKey },
      stdio: ["pipe", "pipe", "inherit"],
    });
    const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
    /** Writes `line` to the server and reads its answer. */
    const exchange = async (line: string) => {
      child.stdin.write(`${line}\n`);
      const answer = await lines.next();
      return JSON.parse(String(answer.value)) as {
        id?: number;
        result?: unknown;
        error?: { code: number; message: string; data: unknown };
      };
    };
    const remember = (id: number, args: string) =>
      `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"remember","arguments":${args}}}`;
    try {
      for (const [id, args, path] of [
        [1, '{"content":"a","content":"b"}', ["params", "arguments", "content"]],
        [
          2,
          '{"content":"a","metadata":{"n":123456789012345678901234567890}}',
          ["params", "arguments", "metadata", "n"],
        ],
      ] as const) {
        const answer = await exchange(remember(id, args));
        const http = await fetch(`${t.url}/mcp`, {
          method: "POST",
          headers: {
            authorization: `Bearer ${apiKey}`,
            "content-type": "application/json",
            accept: "application/json, text/event-stream",
          },
          body: remember(id, args),
        });
        expect(http.status).toBe(400);
        const { error } = (await http.json()) as ToolError;
        expect(answer).toEqual({
          jsonrpc: "2.0",
          id,
          error: { code: ErrorCode.InvalidParams, message: error.message, data: error },
        });
        expect(error.details).toEqual([{ path, message: expect.any(String) }]);
      }
      const envelope = await exchange('{"jsonrpc":"2.0","jsonrpc":"2.0","id":3,"method":"ping"}');
      expect(envelope.error).toMatchObject({
        code: ErrorCode.ParseError,
        message: "jsonrpc: duplicate key",
      });
      // A refused line leaves the server running: the next line is answered.
      const pong = await exchange('{"jsonrpc":"2.0","id":4,"method":"ping"}');
      expect(pong).toEqual({ jsonrpc: "2.0", id: 4, result: {} });
    } finally {
      child.stdin.end();
      lines.return?.();
    }
  });

  it("proves and verifies against the chain from the server's own process", async () => {
    const early = await tool<{ anchored: boolean }>(client, "prove", { id });
    expect(early.body.anchored).toBe(false);
    const notYet = await tool(client, "verify", { id });
    expect(notYet.body).toMatchObject({
      verified: false,
      anchored: false,
      reason: "not_anchored",
      checkedBy: "client",
    });

    await anchorNow();
    const proved = await tool<{ anchored: boolean; bundle: { inclusionProof: string[] } }>(
      client,
      "prove",
      { id },
    );
    expect(proved.body.anchored).toBe(true);
    expect(Array.isArray(proved.body.bundle.inclusionProof)).toBe(true);
    const verified = await tool<{ onChain: { authority: string } }>(client, "verify", { id });
    expect(verified.body).toMatchObject({
      id,
      verified: true,
      anchored: true,
      reason: null,
      checkedBy: "client",
    });
    expect(verified.body.onChain.authority).toBe(authority.publicKey.toBase58());
  });

  it("reports why not when a pin does not match the chain", async () => {
    const pinnedWrong = await spawnServer({
      SVC_URL: t.url,
      SVC_API_KEY: await mintApiKey(t.url, user.token, "wrong-pin"),
      SVC_RPC_URL: chain.url,
      SVC_AUTHORITY: Keypair.generate().publicKey.toBase58(),
    });
    const result = await tool(pinnedWrong, "verify", { id });
    expect(result.isError).toBe(false);
    expect(result.body).toMatchObject({
      verified: false,
      anchored: true,
      reason: "authority_mismatch",
    });
  });

  it("forgets", async () => {
    const forgotten = await tool(client, "forget", { id });
    expect(forgotten.body).toMatchObject({ id, forgotten: true });
    const again = await tool<ToolError>(client, "forget", { id });
    expect(again.isError).toBe(true);
    expect(again.body.error.code).toBe("not_found");
    expect((await tool<Recalled>(client, "recall", { query: "deploy" })).body.count).toBe(0);
  });
});

describe("svc-mcp confined to a namespace (SVC_NAMESPACE)", () => {
  it("writes into the namespace, recalls only from it, and hides other memories", async () => {
    const user = await newUser(t.url);
    const other = await postJson(
      `${t.url}/memories`,
      { content: "a writer note", namespace: "agent:writer" },
      user.headers,
    );
    const otherId = ((await other.json()) as { id: string }).id;
    // A full-access session token, confined by the server itself; no RPC URL: verify asks the API.
    const client = await spawnServer({
      SVC_URL: t.url,
      SVC_TOKEN: user.token,
      SVC_NAMESPACE: "agent:research",
    });
    const stored = await tool<{ id: string; namespace: string }>(client, "remember", {
      content: "a research note",
    });
    expect(stored.body.namespace).toBe("agent:research");
    const sub = await tool<{ namespace: string }>(client, "remember", {
      content: "a research run note",
      namespace: "agent:research/run:7",
    });
    expect(sub.body.namespace).toBe("agent:research/run:7");
    const refused = await tool<ToolError>(client, "remember", {
      content: "escape",
      namespace: "agent:writer",
    });
    expect(refused.body.error.code).toBe("forbidden");

    const recalled = await tool<Recalled>(client, "recall", { query: "note" });
    expect(recalled.body.items.map((item) => item.namespace).sort()).toEqual([
      "agent:research",
      "agent:research/run:7",
    ]);
    const latest = await tool<Recalled>(client, "list", {});
    expect(latest.body.count).toBe(2);
    const outside = await tool<ToolError>(client, "recall", { namespace: "agent:writer" });
    expect(outside.body.error.code).toBe("forbidden");
    for (const name of ["prove", "verify", "forget"]) {
      const hidden = await tool<ToolError>(client, name, { id: otherId });
      expect(hidden.body.error.code, name).toBe("not_found");
    }
    const checked = await tool(client, "verify", { id: stored.body.id });
    expect(checked.body).toMatchObject({
      verified: false,
      reason: "not_anchored",
      checkedBy: "server",
    });
    // The other memory is untouched.
    const still = await fetch(`${t.url}/memories/${otherId}`, { headers: user.headers });
    expect(still.status).toBe(200);
  });
});

describe("configuration", () => {
  it("reads the environment, and refuses a missing URL or credential", () => {
    expect(
      stdioOptionsFromEnv({
        SVC_URL: "http://localhost:8787",
        SVC_API_KEY: "svc_x",
        SVC_NAMESPACE: "agent:a",
        SVC_RPC_URL: "",
        SVC_LOG_KEYS: " example.com/log+0a1b2c3d+AQ== ,other.example/log+00000001+AQ==,",
      }),
    ).toMatchObject({
      url: "http://localhost:8787",
      apiKey: "svc_x",
      namespace: "agent:a",
      rpcUrl: undefined,
      logKeys: ["example.com/log+0a1b2c3d+AQ==", "other.example/log+00000001+AQ=="],
    });
    expect(stdioOptionsFromEnv({ SVC_URL: "http://x", SVC_API_KEY: "k" }).logKeys).toBeUndefined();
    expect(() => stdioOptionsFromEnv({ SVC_API_KEY: "svc_x" })).toThrow(StdioConfigError);
    expect(() => stdioOptionsFromEnv({ SVC_URL: "http://localhost:8787" })).toThrow(/SVC_API_KEY/);
    expect(() =>
      stdioOptionsFromEnv({ SVC_URL: "http://x", SVC_API_KEY: "k", SVC_NAMESPACE: "bad space" }),
    ).toThrow(/SVC_NAMESPACE/);
  });

  it("exits 2 with a message on stderr when misconfigured", () => {
    const result = spawnSync(process.execPath, [BIN], {
      env: { ...getDefaultEnvironment(), SVC_URL: "" },
      encoding: "utf8",
      input: "",
      timeout: 30_000,
    });
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(/svc-mcp: SVC_URL/);
    expect(result.stdout).toBe("");
  });
});
