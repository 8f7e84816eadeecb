/**
 * `createMemoryMcpServer`: the MCP server of the verifiable memory service (docs/protocol.md §4.9
 * "MCP"), with the tools of {@link MEMORY_TOOLS} over a
 * {@link MemoryBackend}. Every result is one JSON text content; refusals are `isError` results
 * carrying the service's error `{ error: { code, message, details? } }`, so the model can act on
 * them.
 * @module
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
} from "@modelcontextprotocol/sdk/types.js";
import { NAMESPACE_PATTERN } from "@verifiable-memory/memory-schemas";
import { z } from "zod";
import { BackendError, type MemoryBackend } from "./backend.js";
import { MEMORY_TOOLS, type MemoryTool } from "./tools.js";

/** The server's name in the MCP handshake. */
export const SERVER_NAME = "svc-memory";
/** The server's version in the MCP handshake. */
export const SERVER_VERSION = "0.1.0";

/** Options of {@link createMemoryMcpServer}. */
export interface MemoryMcpServerOptions {
  /**
   * Confines the server to one namespace (a prefix, like an API key's confinement): `remember`
   * writes into it (or under it), `recall` only sees memories under it, and `forget`, `prove`,
   * `verify` treat memories outside it as not found. For a server started for one agent, e.g.
   * `agent:research`. Default: none (the credential's own confinement still applies).
   */
  readonly namespace?: string | undefined;
  /**
   * Called with any error a backend throws that is not a {@link BackendError} (the tool answers
   * `internal` without its message): log it here.
   */
  readonly onError?: ((error: unknown, tool: string) => void) | undefined;
  /** The server's name in the handshake; default {@link SERVER_NAME}. */
  readonly name?: string | undefined;
  /** The server's version in the handshake; default {@link SERVER_VERSION}. */
  readonly version?: string | undefined;
}

/** The server's instructions: what it is and how to use its tools, for the model. */
export const SERVER_INSTRUCTIONS = [
  "Long-term, verifiable memory for this user. Memories are encrypted at rest and appended to the",
  "user's tamper-evident Merkle log (RFC 9162), whose root is periodically anchored on Solana, so",
  "any memory can later be proven to have existed unmodified.",
  "Use `recall` (or `list` to browse) before answering anything that may depend on earlier",
  "conversations (preferences, facts about the user or project, past decisions); use `remember`",
  "to keep new durable facts, one self-contained fact per memory; `update` a memory that is wrong",
  "or outdated (its history is kept); `forget` what the user asks to forget; `prove` and `verify`",
  "when the user wants evidence that a memory is authentic and untampered.",
].join(" ");

/** A tool's JSON result. */
function jsonResult(value: unknown): CallToolResult {
  return { content: [{ type: "text", text: JSON.stringify(value, null, 2) }] };
}

/** A tool's refusal: the service's error shape, flagged `isError`. */
function errorResult(code: string, message: string, details?: unknown): CallToolResult {
  return {
    isError: true,
    content: [
      {
        type: "text",
        text: JSON.stringify(
          { error: { code, message, ...(details === undefined ? {} : { details }) } },
          null,
          2,
        ),
      },
    ],
  };
}

/**
 * The JSON Schema a tool lists: its zod schema's input form, each parameter described.
 * @throws Error when a parameter lacks a description or one names no parameter (a programming
 *   error, caught by the tests).
 */
export function toolInputSchema(tool: MemoryTool): Record<string, unknown> {
  const { $schema: _, ...schema } = z.toJSONSchema(tool.schema, {
    io: "input",
    unrepresentable: "any",
  }) as { $schema?: string; properties?: Record<string, Record<string, unknown>> };
  const properties = schema.properties ?? {};
  const named = Object.keys(properties);
  const described = Object.keys(tool.parameters);
  if (named.length !== described.length || !named.every((key) => described.includes(key))) {
    throw new Error(
      `tool ${tool.name}: parameters ${named.join(", ")} but descriptions of ${described.join(", ")}`,
    );
  }
  return {
    ...schema,
    properties: Object.fromEntries(
      named.map((key) => [key, { ...properties[key], description: tool.parameters[key] }]),
    ),
  };
}

/** The `invalid_request` refusal of arguments a tool's schema refused, as the REST routes answer it. */
function invalidArguments(issues: readonly z.core.$ZodIssue[]): CallToolResult {
  return errorResult(
    "invalid_request",
    "the request is not valid",
    issues.map((issue) => ({ path: issue.path, message: issue.message })),
  );
}

/**
 * Builds an MCP server whose tools ({@link MEMORY_TOOLS}: `remember`, `recall`, `list`, `get`,
 * `update`, `history`, `forget`, `prove`, `verify`) act on `backend`. Arguments are validated by the
 * REST routes' schemas before any call: a refusal is an `isError` result
 * `{ error: { code: "invalid_request", message, details: [{ path, message }] } }`, exactly the
 * route's 400 body; an unknown tool is a JSON-RPC error. Connect it to a transport
 * (`server.connect(transport)`): stdio (`runStdioServer`) or Streamable HTTP (core-api's `POST /mcp`).
 * @param backend the caller's memory operations ({@link clientBackend}, or core-api's in-process one).
 * @param options `namespace` confines the server to one namespace prefix; `onError` sees
 *   unexpected errors.
 * @throws TypeError when `options.namespace` is not a valid namespace.
 */
export function createMemoryMcpServer(
  backend: MemoryBackend,
  options: MemoryMcpServerOptions = {},
): Server {
  const confinedTo = options.namespace;
  if (confinedTo !== undefined && !NAMESPACE_PATTERN.test(confinedTo)) {
    throw new TypeError(
      `namespace must be 1–128 characters of A–Z a–z 0–9 . _ : / -, got ${JSON.stringify(confinedTo)}`,
    );
  }
  const server = new Server(
    { name: options.name ?? SERVER_NAME, version: options.version ?? SERVER_VERSION },
    { capabilities: { tools: {} }, instructions: SERVER_INSTRUCTIONS },
  );
  const confinement =
    confinedTo === undefined ? "" : ` This server is confined to namespace \`${confinedTo}\`.`;
  const listed = MEMORY_TOOLS.map((tool) => ({
    name: tool.name,
    title: tool.title,
    description: tool.description + confinement,
    inputSchema: toolInputSchema(tool) as { type: "object" },
    annotations: { title: tool.title, ...tool.annotations },
  }));
  const context = { backend, confinedTo };

  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: listed }));
  server.setRequestHandler(CallToolRequestSchema, async (request): Promise<CallToolResult> => {
    const tool = MEMORY_TOOLS.find((candidate) => candidate.name === request.params.name);
    if (tool === undefined) {
      throw new McpError(ErrorCode.InvalidParams, `unknown tool ${request.params.name}`);
    }
    const args = tool.schema.safeParse(request.params.arguments ?? {});
    if (!args.success) {
      return invalidArguments(args.error.issues);
    }
    try {
      return jsonResult(await tool.run(args.data, context));
    } catch (error) {
      if (error instanceof BackendError) {
        return errorResult(error.code, error.message, error.details);
      }
      options.onError?.(error, tool.name);
      return errorResult("internal", "internal error: the operation failed; try again later");
    }
  });
  return server;
}
