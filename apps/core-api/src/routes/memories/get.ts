/**
 * `GET /memories/:id` (docs/protocol.md §4): one of the caller's memories; another user's is 404.
 * @module
 */
import { createRoute } from "@hono/zod-openapi";
import {
  errorResponse,
  NoQuerySchema,
  rateLimitedResponse,
  unauthorizedResponse,
} from "@verifiable-memory/http-kit";
import { MemorySchema } from "@verifiable-memory/memory";
import type { App, AppDeps, Services } from "../../context.js";
import { requireAuth, requireScopes } from "../../middleware/bearer.js";
import { bearerSecurity, IdParamSchema } from "../../schemas.js";

/** Registers `GET /memories/:id`. */
export function registerGetMemory(app: App, deps: AppDeps, services: Services): void {
  const route = createRoute({
    method: "get",
    path: "/memories/{id}",
    operationId: "getMemory",
    tags: ["memories"],
    summary: "Read one memory",
    security: bearerSecurity,
    middleware: [requireAuth(deps), requireScopes("memories:read")] as const,
    request: {
      query: NoQuerySchema,
      params: IdParamSchema,
    },
    responses: {
      200: { description: "The memory", content: { "application/json": { schema: MemorySchema } } },
      401: unauthorizedResponse(),
      403: errorResponse("insufficient_scope"),
      429: rateLimitedResponse("rate_limited: too many requests with this credential"),
      404: errorResponse("not_found"),
    },
  });
  app.openapi(route, async (c) => {
    const auth = c.var.auth;
    const memory = await services.memories.get(
      auth,
      services.dataKeys.of(auth),
      c.req.valid("param").id,
    );
    return c.json(memory, 200);
  });
}
