/**
 * `DELETE /agent-cases/:id` (docs/protocol.md §8): revokes one of the caller's grants, effective on the
 * very next use; idempotent (204 again); another user's or an unknown id is 404.
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
import { bearerSecurity } from "../../schemas.js";
import { GrantParamSchema } from "./_schema.js";

/** Registers `DELETE /agent-cases/:id`. */
export function registerDeleteAgentCase(app: App, deps: AppDeps, services: Services): void {
  const route = createRoute({
    method: "delete",
    path: "/agent-cases/{grant}",
    operationId: "revokeGrant",
    tags: ["capability grants"],
    summary: "Revoke a grant",
    security: bearerSecurity,
    middleware: [requireAuth(deps), requireScopes("grants:write")] as const,
    request: {
      query: NoQuerySchema,
      params: GrantParamSchema,
    },
    responses: {
      204: { description: "Revoked" },
      401: unauthorizedResponse(),
      403: errorResponse("insufficient_scope"),
      429: rateLimitedResponse("rate_limited: too many requests with this credential"),
      404: errorResponse("not_found"),
    },
  });
  app.openapi(route, async (c) => {
    await services.grants.revoke(c.var.auth, c.req.valid("param").grant);
    return c.body(null, 204);
  });
}
