/**
 * `DELETE /agent-cases/:id` (CONTRACT §7): revokes one of the caller's grants, effective on the
 * very next use; idempotent (204 again); another user's or an unknown id is 404.
 * @module
 */
import { createRoute } from "@hono/zod-openapi";
import type { App, AppDeps, Services } from "../../context.js";
import { requireAuth } from "../../middleware/bearer.js";
import { bearerSecurity, errorResponse, IdParamSchema } from "../../schemas.js";

/** Registers `DELETE /agent-cases/:id`. */
export function registerDeleteAgentCase(app: App, deps: AppDeps, services: Services): void {
  const route = createRoute({
    method: "delete",
    path: "/agent-cases/{id}",
    tags: ["capability grants"],
    summary: "Revoke a grant",
    security: bearerSecurity,
    middleware: [requireAuth(deps)] as const,
    request: { params: IdParamSchema },
    responses: {
      204: { description: "Revoked" },
      401: errorResponse("unauthorized"),
      404: errorResponse("not_found"),
    },
  });
  app.openapi(route, async (c) => {
    await services.grants.revoke(c.var.auth, c.req.valid("param").id);
    return c.body(null, 204);
  });
}
