/**
 * MCP test support (the tests over stdio and over core-api's `POST /mcp`): calling a tool with
 * the MCP SDK's Client and reading its one JSON text content.
 * @module
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
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
