/**
 * `POST /memories` on the extension API (docs/protocol.md §9): ingest, the same body, validation and
 * encrypted append to the caller's Merkle log as core-api's `POST /memories`.
 * @module
 */
import { createRoute } from "@hono/zod-openapi";
import { errorResponse, NoQuerySchema, rateLimitedResponse } from "@verifiable-memory/http-kit";
import { CreatedMemorySchema, CreateMemoryBodySchema } from "@verifiable-memory/memory";
import type { App, AppDeps, Services } from "../../context.js";
import { requireExtensionToken } from "../../middleware/token.js";
import { bearerSecurity } from "../../schemas.js";

/** Registers `POST /memories`. */
export function registerPostMemories(app: App, deps: AppDeps, services: Services): void {
  const route = createRoute({
    method: "post",
    path: "/memories",
    operationId: "createMemory",
    tags: ["memories"],
    summary: "Remember: store a memory (encrypted at rest, appended to the wallet's Merkle log)",
    security: bearerSecurity,
    middleware: [requireExtensionToken(deps)] as const,
    request: {
      query: NoQuerySchema,
      body: { required: true, content: { "application/json": { schema: CreateMemoryBodySchema } } },
    },
    responses: {
      201: {
        description: "The stored memory's leaf",
        content: { "application/json": { schema: CreatedMemorySchema } },
      },
      400: errorResponse("invalid_request"),
      401: errorResponse("unauthorized"),
      429: rateLimitedResponse("rate_limited: too many requests with this credential"),
      413: errorResponse("payload_too_large"),
      415: errorResponse("unsupported_media_type"),
    },
  });
  app.openapi(route, async (c) => {
    const { content, metadata, namespace } = c.req.valid("json");
    const auth = c.var.auth;
    const created = await services.memories.create(auth, services.dataKeys.of(auth), {
      content,
      metadata: metadata ?? {},
      namespace,
    });
    return c.json(created, 201);
  });
}
