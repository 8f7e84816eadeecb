/**
 * `GET /agent-cases/:id/audit` (docs/protocol.md §8): every attempt to use one of the caller's grants,
 * failed or not, newest first, cursor-paginated.
 * @module
 */
import { createRoute, z } from "@hono/zod-openapi";
import {
  errorResponse,
  rateLimitedResponse,
  unauthorizedResponse,
} from "@verifiable-memory/http-kit";
import type { App, AppDeps, Services } from "../../context.js";
import { openRequestCursor, sealPageCursor } from "../../cursors.js";
import { requireAuth, requireScopes } from "../../middleware/bearer.js";
import { bearerSecurity, IdParamSchema } from "../../schemas.js";
import { GrantAuditSchema, PageQuerySchema } from "./_schema.js";

const GrantAuditPageSchema = z
  .object({ items: z.array(GrantAuditSchema), nextCursor: z.string().nullable() })
  .openapi("GrantAttemptPage");

/** Registers `GET /agent-cases/:id/audit`. */
export function registerGetAgentCaseAudit(app: App, deps: AppDeps, services: Services): void {
  const route = createRoute({
    method: "get",
    path: "/agent-cases/{id}/audit",
    operationId: "listGrantAudit",
    tags: ["capability grants"],
    summary: "The attempts to use a grant, newest first",
    security: bearerSecurity,
    middleware: [requireAuth(deps), requireScopes("grants:write")] as const,
    request: { params: IdParamSchema, query: PageQuerySchema },
    responses: {
      200: {
        description: "A page of attempts",
        content: { "application/json": { schema: GrantAuditPageSchema } },
      },
      400: errorResponse("invalid_request"),
      401: unauthorizedResponse(),
      403: errorResponse("insufficient_scope"),
      429: rateLimitedResponse("rate_limited: too many requests with this credential"),
      404: errorResponse("not_found"),
    },
  });
  app.openapi(route, async (c) => {
    const { limit, cursor } = c.req.valid("query");
    const page = await services.grants.audit(c.var.auth, c.req.valid("param").id, {
      limit,
      cursor: openRequestCursor(deps.config, cursor),
    });
    return c.json(sealPageCursor(deps.config, page), 200);
  });
}
