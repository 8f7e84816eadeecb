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
  type MemoryBackend,
  type MemoryMcpServerOptions,
  type RecallInput,
  type RememberInput,
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
      return { items: [{ ...memory, content: "hello" }], more: false };
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
  it("passes the tools' arguments to the backend", async () => {
    const { backend, calls } = scripted();
    const client = await connect(backend);
    await tool(client, "remember", { content: "hi", metadata: { a: 1 } });
    await tool(client, "recall", { query: "hi", limit: 5, rank: "relevance" });
    await tool(client, "recall", {});
    await tool(client, "forget", { id: "m1" });
    await tool(client, "prove", { id: "m1" });
    await tool(client, "verify", { id: "m1" });
    expect(calls).toEqual([
      { op: "remember", input: { content: "hi", metadata: { a: 1 }, namespace: undefined } },
      {
        op: "recall",
        input: {
          query: "hi",
          limit: 5,
          metadata: undefined,
          namespace: undefined,
          namespacePrefix: undefined,
          rank: "relevance",
        },
      },
      {
        op: "recall",
        input: expect.objectContaining({ createdAfter: "1970-01-01T00:00:00.000Z" }),
      },
      { op: "forget", input: "m1", options: { confinedTo: undefined } },
      { op: "prove", input: "m1", options: { confinedTo: undefined } },
      { op: "verify", input: "m1", options: { confinedTo: undefined } },
    ]);
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
    expect((await tool(client, "recall", { namespace: "agent:ab" })).isError).toBe(false);
    expect((await tool(client, "recall", { namespace: "other" })).isError).toBe(true);
    await tool(client, "prove", { id: "m1" });
    expect(calls.map((call) => [call.op, call.input, call.options])).toEqual([
      ["remember", { content: "hi", metadata: undefined, namespace: "agent:a" }, undefined],
      ["remember", { content: "hi", metadata: undefined, namespace: "agent:a/run:1" }, undefined],
      ["recall", expect.objectContaining({ query: "hi", namespacePrefix: "agent:a" }), undefined],
      [
        "recall",
        expect.objectContaining({ namespace: "agent:a/x", namespacePrefix: undefined }),
        undefined,
      ],
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
      ["recall", { limit: 500 }],
      ["recall", { rank: "alphabetical" }],
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
