/**
 * `GET /agent-cases` (docs/protocol.md §8): the caller's grants with their uses left, newest first,
 * cursor-paginated. Tokens are never shown again.
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
import { bearerSecurity } from "../../schemas.js";
import { GrantSchema, PageQuerySchema } from "./_schema.js";

const GrantPageSchema = z
  .object({ items: z.array(GrantSchema), nextCursor: z.string().nullable() })
  .openapi("GrantPage");

/** Registers `GET /agent-cases`. */
export function registerListAgentCases(app: App, deps: AppDeps, services: Services): void {
  const route = createRoute({
    method: "get",
    path: "/agent-cases",
    operationId: "listGrants",
    tags: ["capability grants"],
    summary: "List the caller's grants, newest first",
    security: bearerSecurity,
    middleware: [requireAuth(deps), requireScopes("grants:write")] as const,
    request: { query: PageQuerySchema },
    responses: {
      200: {
        description: "A page of grants",
        content: { "application/json": { schema: GrantPageSchema } },
      },
      400: errorResponse("invalid_request"),
      401: unauthorizedResponse(),
      403: errorResponse("insufficient_scope"),
      429: rateLimitedResponse("rate_limited: too many requests with this credential"),
    },
  });
  app.openapi(route, async (c) => {
    const { limit, cursor } = c.req.valid("query");
    const page = await services.grants.list(c.var.auth, {
      limit,
      cursor: openRequestCursor(deps.config, cursor),
    });
    return c.json(sealPageCursor(deps.config, page), 200);
  });
}
