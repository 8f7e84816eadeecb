/**
 * `PUT /memories/:id` (docs/protocol.md §4.7 "Updates and history"): a new version of a memory,
 * appended to the caller's log with `supersedes: id` committed in its leaf; the old version stays
 * readable and provable.
 * @module
 */
import { createRoute } from "@hono/zod-openapi";
import {
  errorResponse,
  NoQuerySchema,
  rateLimitedResponse,
  unauthorizedResponse,
} from "@verifiable-memory/http-kit";
import { CreatedMemorySchema, CreateMemoryBodySchema } from "@verifiable-memory/memory";
import type { App, AppDeps, Services } from "../../context.js";
import { requireAuth, requireScopes } from "../../middleware/bearer.js";
import { bearerSecurity, IdParamSchema } from "../../schemas.js";

/** Registers `PUT /memories/:id`. */
export function registerPutMemory(app: App, deps: AppDeps, services: Services): void {
  const route = createRoute({
    method: "put",
    path: "/memories/{id}",
    operationId: "updateMemory",
    tags: ["memories"],
    summary: "Update a memory: append a new version that supersedes it (both stay provable)",
    security: bearerSecurity,
    middleware: [requireAuth(deps), requireScopes("memories:write")] as const,
    request: {
      query: NoQuerySchema,
      params: IdParamSchema,
      body: {
        required: true,
        content: { "application/json": { schema: CreateMemoryBodySchema } },
      },
    },
    responses: {
      201: {
        description: "The new version's leaf (`supersedes` is the updated memory's id)",
        content: { "application/json": { schema: CreatedMemorySchema } },
      },
      400: errorResponse("invalid_request"),
      401: unauthorizedResponse(),
      403: errorResponse(
        "insufficient_scope, or forbidden: a namespace outside the API key's confinement",
      ),
      404: errorResponse("not_found"),
      409: errorResponse("conflict: the memory is deleted or already superseded"),
      413: errorResponse("payload_too_large"),
      415: errorResponse("unsupported_media_type"),
      429: rateLimitedResponse("rate_limited: too many requests with this credential"),
    },
  });
  app.openapi(route, async (c) => {
    const { content, metadata, namespace } = c.req.valid("json");
    const auth = c.var.auth;
    const created = await services.memories.update(
      auth,
      services.dataKeys.of(auth),
      c.req.valid("param").id,
      { content, metadata: metadata ?? {}, namespace },
    );
    return c.json(created, 201);
  });
}
