/**
 * `POST /mcp` (docs/protocol.md §4.9 "MCP"): the Model Context Protocol over Streamable HTTP, so an
 * agent framework can use the memory tools of `@verifiable-memory/mcp` (`remember`, `recall`,
 * `list`, `get`, `update`, `history`, `forget`, `prove`, `verify`) with nothing but the URL and its bearer. Stateless: each request gets a
 * new MCP server and transport (the SDK's web-standard Streamable HTTP transport, answering JSON),
 * whose tools act as the request's caller — its scopes and namespace confinement apply, through the
 * in-process services. Authentication, the rate limit, body limits and JSON-only bodies are the
 * app's, as on every route. GET and DELETE (a standalone event stream, ending a session) are 405:
 * there are no sessions.
 * @module
 */
import { createRoute, z } from "@hono/zod-openapi";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import {
  errorResponse,
  loggableError,
  NoQuerySchema,
  rateLimitedResponse,
  unauthorizedResponse,
} from "@verifiable-memory/http-kit";
import { createMemoryMcpServer } from "@verifiable-memory/mcp/server";
import type { ContentfulStatusCode, StatusCode } from "hono/utils/http-status";
import type { App, AppDeps, Services } from "../../context.js";
import { ApiError } from "../../errors.js";
import { requireAuth } from "../../middleware/bearer.js";
import { bearerSecurity } from "../../schemas.js";
import { servicesBackend } from "./backend.js";

/** One JSON-RPC 2.0 message (request, notification or response); the MCP SDK checks the rest. */
const JsonRpcMessageSchema = z
  .looseObject({
    jsonrpc: z.literal("2.0"),
    id: z.union([z.string(), z.number()]).optional(),
    method: z.string().optional(),
    params: z.record(z.string(), z.unknown()).optional(),
  })
  .openapi("JsonRpcMessage", {
    description:
      "A JSON-RPC 2.0 message of the Model Context Protocol, e.g. " +
      '`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"recall","arguments":{"query":"french"}}}`',
  });

/** The body of `POST /mcp`: one message or a batch. */
const McpRequestSchema = z
  .union([JsonRpcMessageSchema, z.array(JsonRpcMessageSchema).min(1)])
  .openapi({
    example: { jsonrpc: "2.0", id: 1, method: "tools/list" },
  });

const DESCRIPTION = [
  "The Model Context Protocol (Streamable HTTP transport, stateless, JSON answers) with the memory",
  "tools `remember` (the `POST /memories` body), `recall` (the `POST /memories/search` body),",
  "`list` (the search body without `query`, `rank` or `caseSensitive`: newest first), `get`,",
  "`history`, `forget`, `prove` and `verify` `{ id }`, and `update` `{ id, content, metadata?,",
  "namespace? }` (`PUT /memories/:id`). Arguments are validated by the same schemas as those",
  "routes: a refusal is a tool error result carrying the route's 400 body. Point an MCP",
  "client at this URL with the `Authorization: Bearer` header; send `Accept: application/json,",
  "text/event-stream`. The tools act as the caller: an API key needs `memories:write` to",
  "remember and update, `memories:read` to recall, list, get, history, prove and verify,",
  "`memories:delete` to forget (a tool",
  "without its scope answers an error result `insufficient_scope`), and a namespace-confined key",
  "sees and writes only its namespace. Tool results are JSON text carrying memory ids and the",
  "`anchored` state. No sessions: `GET /mcp` and `DELETE /mcp` answer 405 `method_not_allowed`.",
].join(" ");

/** Registers `POST /mcp`, and the 405 of its other methods. */
export function registerMcp(app: App, deps: AppDeps, services: Services): void {
  const route = createRoute({
    method: "post",
    path: "/mcp",
    operationId: "mcp",
    tags: ["agents"],
    summary: "Model Context Protocol endpoint: the memory tools for AI agents",
    description: DESCRIPTION,
    security: bearerSecurity,
    // requireAuth's 401 carries `WWW-Authenticate: Bearer` (RFC 6750 §3), which MCP clients read
    // to learn that a bearer is wanted. No `resource_metadata` (RFC 9728): the bearer is an API key
    // or a session token from this service, not an OAuth access token.
    middleware: [requireAuth(deps)] as const,
    request: {
      query: NoQuerySchema,
      body: { required: true, content: { "application/json": { schema: McpRequestSchema } } },
    },
    responses: {
      200: {
        description:
          "The JSON-RPC response(s): the `initialize` result, the tool list, a tool's result " +
          "(`content` of one JSON text; `isError` for a refusal such as `not_found`)",
        content: { "application/json": { schema: McpRequestSchema } },
      },
      202: { description: "Accepted: the body held only notifications or responses" },
      400: errorResponse(
        "invalid_request: not JSON-RPC 2.0 (or, from the MCP transport, a JSON-RPC error: an invalid message or protocol version)",
      ),
      401: unauthorizedResponse(),
      406: {
        description:
          "Not Acceptable (a JSON-RPC error): the Accept header must list application/json and text/event-stream",
        content: { "application/json": { schema: JsonRpcMessageSchema } },
      },
      429: rateLimitedResponse("rate_limited: too many requests with this credential"),
    },
  });
  app.openapi(route, async (c) => {
    const auth = c.var.auth;
    const server = createMemoryMcpServer(servicesBackend(services, deps.config, auth), {
      onError: (error, tool) =>
        deps.logger.error(
          { err: loggableError(error), tool, requestId: c.var.requestId, userId: auth.userId },
          "mcp tool failed",
        ),
    });
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    try {
      await server.connect(transport);
      const answer = await transport.handleRequest(c.req.raw, {
        parsedBody: c.req.valid("json"),
      });
      // JSON mode: the answer is complete here. Re-issued through the context, which keeps the
      // headers set before the route (request id, Vary).
      const type = answer.headers.get("content-type");
      const headers: Record<string, string> = type === null ? {} : { "content-type": type };
      return answer.body === null
        ? c.body(null, answer.status as StatusCode, headers)
        : c.body(await answer.text(), answer.status as ContentfulStatusCode, headers);
    } finally {
      await server.close();
    }
  });
  // Stateless: no standalone event stream (GET) and no session to end (DELETE).
  app.all("/mcp", requireAuth(deps), (c) => {
    c.header("allow", "POST");
    throw new ApiError(
      "method_not_allowed",
      "this MCP endpoint is stateless: use POST (no event stream, no sessions)",
    );
  });
}
