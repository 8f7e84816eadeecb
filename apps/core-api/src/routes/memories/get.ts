/**
 * `GET /memories/:id` (CONTRACT §4): one of the caller's memories; another user's is 404.
 * @module
 */
import { createRoute } from "@hono/zod-openapi";
import type { App, AppDeps, Services } from "../../context.js";
import { requireAuth } from "../../middleware/bearer.js";
import { bearerSecurity, errorResponse, IdParamSchema } from "../../schemas.js";
import { MemorySchema } from "./_schema.js";

/** Registers `GET /memories/:id`. */
export function registerGetMemory(app: App, deps: AppDeps, services: Services): void {
  const route = createRoute({
    method: "get",
    path: "/memories/{id}",
    tags: ["memories"],
    summary: "Read one memory",
    security: bearerSecurity,
    middleware: [requireAuth(deps)] as const,
    request: { params: IdParamSchema },
    responses: {
      200: { description: "The memory", content: { "application/json": { schema: MemorySchema } } },
      401: errorResponse("unauthorized"),
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
