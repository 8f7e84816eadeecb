/**
 * `createMemoryMcpServer` over a scripted backend, with the MCP SDK's client on an in-memory
 * transport: what each tool passes to the backend (the server's namespace confinement included),
 * refusals as error results, and unexpected errors hidden from the model but reported.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import {
  BackendError,
  createMemoryMcpServer,
  MEMORY_TOOLS,
  type MemoryBackend,
  type MemoryMcpServerOptions,
  type MemoryTool,
  type RecallInput,
  type RememberInput,
  toolInputSchema,
} from "../src/index.js";

/** A backend that records its calls and answers canned results (or throws `fail`). */
function scripted(fail?: unknown) {
  const calls: { op: string; input: unknown; options?: unknown }[] = [];
  const memory = {
    id: "m1",
    leafIndex: 0,
    leafHash: "ab".repeat(32),
    metadata: {},
    namespace: null,
    createdAt: "2026-11-22T10:00:00.000Z",
    anchored: false,
    supersedes: null,
    supersededBy: null,
  };
  const step = (op: string, input: unknown, options?: unknown) => {
    calls.push({ op, input, ...(options === undefined ? {} : { options }) });
    if (fail !== undefined) {
      throw fail;
    }
  };
  const backend: MemoryBackend = {
    async remember(input: RememberInput) {
      step("remember", input);
      return { ...memory, namespace: input.namespace ?? null };
    },
    async recall(input: RecallInput) {
      step("recall", input);
      return { items: [{ ...memory, content: "hello" }], nextCursor: null };
    },
    async get(id, options) {
      step("get", id, options);
      return { ...memory, id, content: "hello" };
    },
    async update(id, input, options) {
      step("update", { id, ...input }, options);
      return { ...memory, id: "m2", supersedes: id, namespace: input.namespace ?? null };
    },
    async history(id, options) {
      step("history", id, options);
      return [{ ...memory, id, content: "hello" }];
    },
    async forget(id, options) {
      step("forget", id, options);
    },
    async prove(id, options) {
      step("prove", id, options);
      return { memoryId: id, anchored: false };
    },
    async verify(id, options) {
      step("verify", id, options);
      return {
        verified: false,
        anchored: false,
        reason: "not_anchored",
        message: "not yet",
        checkedBy: "server",
      };
    },
  };
  return { backend, calls };
}

async function connect(backend: MemoryBackend, options?: MemoryMcpServerOptions) {
  const server = createMemoryMcpServer(backend, options);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: "test", version: "1.0.0" });
  await client.connect(clientSide);
  return client;
}

async function tool(client: Client, name: string, args: Record<string, unknown>) {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  const [content] = result.content;
  return {
    isError: result.isError === true,
    body: JSON.parse((content as { text: string }).text) as Record<string, unknown>,
  };
}

describe("createMemoryMcpServer", () => {
  it("passes the tools' validated arguments (with the routes' defaults) to the backend", async () => {
    const { backend, calls } = scripted();
    const client = await connect(backend);
    await tool(client, "remember", { content: "hi", metadata: { a: 1 } });
    await tool(client, "recall", { query: "hi", limit: 5, rank: "relevance" });
    await tool(client, "list", {});
    await tool(client, "list", { namespace: "ns", cursor: "c1" });
    await tool(client, "get", { id: "m1" });
    await tool(client, "update", { id: "m1", content: "better" });
    await tool(client, "history", { id: "m1" });
    await tool(client, "forget", { id: "m1" });
    await tool(client, "prove", { id: "m1" });
    await tool(client, "verify", { id: "m1" });
    const none = { confinedTo: undefined };
    const defaults = { caseSensitive: false, includeSuperseded: false, limit: 20 };
    expect(calls).toEqual([
      { op: "remember", input: { content: "hi", metadata: { a: 1 }, namespace: undefined } },
      {
        op: "recall",
        input: { ...defaults, query: "hi", limit: 5, rank: "relevance" },
      },
      {
        op: "recall",
        input: { ...defaults, rank: "recency", createdAfter: "1970-01-01T00:00:00.000Z" },
      },
      { op: "recall", input: { ...defaults, rank: "recency", namespace: "ns", cursor: "c1" } },
      { op: "get", input: "m1", options: none },
      { op: "update", input: { id: "m1", content: "better" }, options: none },
      { op: "history", input: "m1", options: none },
      { op: "forget", input: "m1", options: none },
      { op: "prove", input: "m1", options: none },
      { op: "verify", input: "m1", options: none },
    ]);
  });

  it("documents every parameter of every tool, and refuses unknown arguments", async () => {
    const { backend, calls } = scripted();
    const client = await connect(backend);
    const { tools } = await client.listTools();
    expect(tools).toHaveLength(MEMORY_TOOLS.length);
    for (const entry of tools) {
      expect(entry.inputSchema.additionalProperties, entry.name).toBe(false);
      const properties = Object.entries(entry.inputSchema.properties ?? {});
      expect(properties.length, entry.name).toBeGreaterThan(0);
      for (const [name, property] of properties) {
        expect((property as { description?: string }).description, `${entry.name}.${name}`).toMatch(
          /\w{3}/,
        );
      }
      const refused = await tool(client, entry.name, { id: "m1", content: "x", surplus: 1 });
      expect(refused, entry.name).toMatchObject({
        isError: true,
        body: { error: { code: "invalid_request" } },
      });
    }
    expect(calls).toEqual([]);
    // A description for a parameter the schema does not have is a programming error.
    const [remember] = MEMORY_TOOLS;
    expect(() =>
      toolInputSchema({
        ...(remember as MemoryTool),
        parameters: { ...remember?.parameters, ghost: "?" },
      }),
    ).toThrow(/ghost/);
  });

  it("tells the model to update, not to forget and re-remember, to correct a fact", async () => {
    const client = await connect(scripted().backend);
    const { tools } = await client.listTools();
    const text = [client.getInstructions(), ...tools.map((entry) => entry.description)].join(" ");
    expect(text).not.toMatch(/remember the corrected|forget the old/i);
    const byName = Object.fromEntries(tools.map((entry) => [entry.name, entry.description]));
    expect(byName.forget).toMatch(/use update/);
    expect(byName.remember).toMatch(/use update/);
  });

  it("confines writes, recall and id lookups to options.namespace", async () => {
    const { backend, calls } = scripted();
    const client = await connect(backend, { namespace: "agent:a" });
    const written = await tool(client, "remember", { content: "hi" });
    expect(written.body.namespace).toBe("agent:a");
    await tool(client, "remember", { content: "hi", namespace: "agent:a/run:1" });
    const refused = await tool(client, "remember", { content: "hi", namespace: "agent:b" });
    expect(refused).toMatchObject({ isError: true, body: { error: { code: "forbidden" } } });
    await tool(client, "recall", { query: "hi" });
    await tool(client, "recall", { namespace: "agent:a/x" });
    await tool(client, "list", { namespacePrefix: "agent" });
    expect((await tool(client, "recall", { namespace: "agent:ab" })).isError).toBe(false);
    expect((await tool(client, "recall", { namespace: "other" })).isError).toBe(true);
    await tool(client, "prove", { id: "m1" });
    expect(calls.map((call) => [call.op, call.input, call.options])).toEqual([
      ["remember", { content: "hi", metadata: undefined, namespace: "agent:a" }, undefined],
      ["remember", { content: "hi", metadata: undefined, namespace: "agent:a/run:1" }, undefined],
      ["recall", expect.objectContaining({ query: "hi", namespacePrefix: "agent:a" }), undefined],
      [
        "recall",
        {
          caseSensitive: false,
          includeSuperseded: false,
          limit: 20,
          rank: "recency",
          namespace: "agent:a/x",
        },
        undefined,
      ],
      ["recall", expect.objectContaining({ namespacePrefix: "agent:a" }), undefined],
      ["recall", expect.objectContaining({ namespace: "agent:ab" }), undefined],
      ["prove", "m1", { confinedTo: "agent:a" }],
    ]);
    const { tools } = await client.listTools();
    expect(tools.every((entry) => entry.description?.includes("`agent:a`"))).toBe(true);
  });

  it("answers refusals with the service's error shape", async () => {
    const { backend } = scripted(
      new BackendError("not_found", "memory not found", [{ path: ["id"], message: "?" }]),
    );
    const client = await connect(backend);
    expect(await tool(client, "prove", { id: "m1" })).toEqual({
      isError: true,
      body: {
        error: {
          code: "not_found",
          message: "memory not found",
          details: [{ path: ["id"], message: "?" }],
        },
      },
    });
  });

  it("hides unexpected errors from the model and reports them to onError", async () => {
    const seen: [unknown, string][] = [];
    const { backend } = scripted(new Error("connection string postgres://secret"));
    const client = await connect(backend, { onError: (error, name) => seen.push([error, name]) });
    const result = await tool(client, "recall", { query: "x" });
    expect(result.isError).toBe(true);
    expect(result.body).toMatchObject({ error: { code: "internal" } });
    expect(JSON.stringify(result.body)).not.toContain("secret");
    expect(seen).toHaveLength(1);
    expect(seen[0]?.[1]).toBe("recall");
  });

  it("validates the input against each tool's schema", async () => {
    const { backend, calls } = scripted();
    const client = await connect(backend);
    for (const [name, args] of [
      ["remember", {}],
      ["remember", { content: "" }],
      ["recall", { limit: 500, query: "x" }],
      ["recall", { rank: "alphabetical", query: "x" }],
      ["recall", {}],
      ["list", { query: "x" }],
      ["update", { id: "m1" }],
      ["forget", {}],
      ["prove", { id: "x".repeat(129) }],
      ["remember", { content: "hi", namespace: "has space" }],
    ] as const) {
      const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
      expect(result.isError, `${name} ${JSON.stringify(args)}`).toBe(true);
    }
    expect(calls).toEqual([]);
  });

  it("refuses a malformed confinement namespace", () => {
    expect(() => createMemoryMcpServer(scripted().backend, { namespace: "no spaces" })).toThrow(
      TypeError,
    );
  });
});
