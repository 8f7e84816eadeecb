/**
 * `DELETE /memories/:id` (docs/protocol.md §4.4 "Deletion"): the body
 * and salt are destroyed, the leaf stays in the tree.
 * @module
 */
import { createRoute } from "@hono/zod-openapi";
import {
  errorResponse,
  NoQuerySchema,
  rateLimitedResponse,
  unauthorizedResponse,
} from "@verifiable-memory/http-kit";
import type { App, AppDeps, Services } from "../../context.js";
import { requireAuth, requireScopes } from "../../middleware/bearer.js";
import { bearerSecurity, IdParamSchema } from "../../schemas.js";

/** Registers `DELETE /memories/:id`. */
export function registerDeleteMemory(app: App, deps: AppDeps, services: Services): void {
  const route = createRoute({
    method: "delete",
    path: "/memories/{id}",
    operationId: "deleteMemory",
    tags: ["memories"],
    summary: "Delete a memory's body (its leaf stays, so roots and other proofs stay valid)",
    security: bearerSecurity,
    middleware: [requireAuth(deps), requireScopes("memories:delete")] as const,
    request: {
      query: NoQuerySchema,
      params: IdParamSchema,
    },
    responses: {
      204: { description: "Deleted" },
      401: unauthorizedResponse(),
      403: errorResponse("insufficient_scope"),
      429: rateLimitedResponse("rate_limited: too many requests with this credential"),
      404: errorResponse("not_found"),
    },
  });
  app.openapi(route, async (c) => {
    const auth = c.var.auth;
    await services.memories.delete(auth, services.dataKeys.of(auth), c.req.valid("param").id);
    return c.body(null, 204);
  });
}
