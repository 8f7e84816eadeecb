/**
 * `POST /memories` (docs/protocol.md §4 "Writing a memory"; docs/protocol.md §4): encrypts and appends a memory to
 * the caller's Merkle log.
 * @module
 */
import { createRoute } from "@hono/zod-openapi";
import { errorResponse, NoQuerySchema, rateLimitedResponse } from "@verifiable-memory/http-kit";
import { CreatedMemorySchema, CreateMemoryBodySchema } from "@verifiable-memory/memory";
import type { App, AppDeps, Services } from "../../context.js";
import { requireAuth, requireScopes } from "../../middleware/bearer.js";
import { expectAppend } from "../../middleware/expect-append.js";
import { bearerSecurity } from "../../schemas.js";

/** Registers `POST /memories`. */
export function registerPostMemories(app: App, deps: AppDeps, services: Services): void {
  const route = createRoute({
    method: "post",
    path: "/memories",
    operationId: "createMemory",
    tags: ["memories"],
    summary: "Store a memory (encrypted at rest, appended to the caller's Merkle log)",
    security: bearerSecurity,
    middleware: [
      expectAppend(services.appendQueue),
      requireAuth(deps),
      requireScopes("memories:write"),
    ] as const,
    request: {
      query: NoQuerySchema,
      body: {
        required: true,
        content: { "application/json": { schema: CreateMemoryBodySchema } },
      },
    },
    responses: {
      201: {
        description: "The stored memory's leaf",
        content: { "application/json": { schema: CreatedMemorySchema } },
      },
      400: errorResponse("invalid_request"),
      401: errorResponse("unauthorized"),
      403: errorResponse(
        "insufficient_scope, or forbidden: a namespace outside the API key's confinement",
      ),
      429: rateLimitedResponse("rate_limited: too many requests with this credential"),
      413: errorResponse("payload_too_large"),
      415: errorResponse("unsupported_media_type"),
    },
  });
  app.openapi(route, async (c) => {
    const { content, metadata, namespace } = c.req.valid("json");
    const auth = c.var.auth;
    const created = await services.memories.create(
      auth,
      services.dataKeys.of(auth),
      { content, metadata: metadata ?? {}, namespace },
      c.var.expectedAppend,
    );
    return c.json(created, 201);
  });
}
