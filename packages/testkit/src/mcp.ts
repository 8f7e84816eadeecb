/**
 * MCP test support (the tests over stdio and over core-api's `POST /mcp`): the MCP SDK's Client
 * connected over Streamable HTTP or stdio and closed together, calling a tool and reading its one
 * JSON text content, the nine tool names and the answer bodies the tests read.
 * @module
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import {
  getDefaultEnvironment,
  StdioClientTransport,
} from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { expect } from "vitest";

/**
 * Calls tool `name` with `args`; expects exactly one text content and parses it as JSON.
 * @returns `{ isError, body }`.
 */
export async function tool<T = Record<string, unknown>>(
  client: Client,
  name: string,
  args: Record<string, unknown>,
): Promise<{ isError: boolean; body: T }> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  expect(result.content).toHaveLength(1);
  const [content] = result.content;
  expect(content?.type).toBe("text");
  return {
    isError: result.isError === true,
    body: JSON.parse((content as { text: string }).text) as T,
  };
}

/** The nine memory tools every MCP server of the service lists, sorted (docs/protocol.md §4.9 "MCP"). */
export const MEMORY_TOOL_NAMES: readonly string[] = [
  "forget",
  "get",
  "history",
  "list",
  "prove",
  "recall",
  "remember",
  "update",
  "verify",
];

/** The body of a `recall`, `list` or `history` answer (the fields these tests read). */
export interface Recalled {
  count: number;
  items: { id: string; content: string; namespace: string | null; anchored: boolean }[];
}

/** The body of a tool's error answer (docs/protocol.md §1.3 "The error shape"). */
export interface ToolError {
  error: { code: string; message: string; details?: unknown };
}

/**
 * The MCP SDK clients a test file opens, each connected on return, closed together by
 * {@link McpClients.closeAll} (the file's afterAll).
 */
export class McpClients {
  readonly #open: Client[] = [];

  /**
   * A client `name` connected over Streamable HTTP to `${baseUrl}/mcp` with `Authorization:
   * Bearer <bearer>` (docs/protocol.md §4.9 "MCP").
   */
  async overHttp(baseUrl: string, bearer: string, name: string): Promise<Client> {
    return this.#connect(
      name,
      new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${bearer}` } },
      }),
    );
  }

  /**
   * A client `name` of the stdio server `node <bin>`, spawned by the SDK's StdioClientTransport
   * with `env` on top of the SDK's safe default environment; its stderr goes to the test's.
   */
  async overStdio(bin: string, env: Record<string, string>, name: string): Promise<Client> {
    return this.#connect(
      name,
      new StdioClientTransport({
        command: process.execPath,
        args: [bin],
        env: { ...getDefaultEnvironment(), ...env },
        stderr: "inherit",
      }),
    );
  }

  /** Closes every client opened so far. */
  async closeAll(): Promise<void> {
    await Promise.all(this.#open.splice(0).map((client) => client.close()));
  }

  async #connect(name: string, transport: Transport): Promise<Client> {
    const client = new Client({ name, version: "1.0.0" });
    await client.connect(transport);
    this.#open.push(client);
    return client;
  }
}
