/**
 * `GET /memories/:id/history` (docs/protocol.md §4.7 "Updates and history"): every live version of
 * a memory, oldest first, each with its proof bundle, so the chain of updates verifies leaf by
 * leaf.
 * @module
 */
import { createRoute } from "@hono/zod-openapi";
import {
  errorResponse,
  NoQuerySchema,
  rateLimitedResponse,
  unauthorizedResponse,
} from "@verifiable-memory/http-kit";
import { MemoryHistorySchema } from "@verifiable-memory/memory";
import type { App, AppDeps, Services } from "../../context.js";
import { requireAuth, requireScopes } from "../../middleware/bearer.js";
import { bearerSecurity, IdParamSchema } from "../../schemas.js";

/** Registers `GET /memories/:id/history`. */
export function registerGetMemoryHistory(app: App, deps: AppDeps, services: Services): void {
  const route = createRoute({
    method: "get",
    path: "/memories/{id}/history",
    operationId: "getMemoryHistory",
    tags: ["memories"],
    summary: "Every version of a memory, oldest first, each with its proof",
    security: bearerSecurity,
    middleware: [requireAuth(deps), requireScopes("memories:read")] as const,
    request: { query: NoQuerySchema, params: IdParamSchema },
    responses: {
      200: {
        description: "The versions (deleted ones left out), oldest first",
        content: { "application/json": { schema: MemoryHistorySchema } },
      },
      401: unauthorizedResponse(),
      403: errorResponse("insufficient_scope"),
      404: errorResponse("not_found"),
      429: rateLimitedResponse("rate_limited: too many requests with this credential"),
    },
  });
  app.openapi(route, async (c) => {
    const auth = c.var.auth;
    const dataKey = services.dataKeys.of(auth);
    const versions = await services.memories.history(auth, c.req.valid("param").id);
    const items = await services.proofs.memoriesWithProofs(auth, dataKey, versions);
    return c.json({ items }, 200);
  });
}
