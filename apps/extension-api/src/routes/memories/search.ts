/**
 * `POST /memories/search` on the extension API (docs/protocol.md §4, §9): recall over the caller's
 * memories, the same query and answer as core-api's.
 * @module
 */
import { createRoute } from "@hono/zod-openapi";
import { errorResponse, NoQuerySchema, rateLimitedResponse } from "@verifiable-memory/http-kit";
import { SearchBodySchema, SearchResultSchema, searchInputOf } from "@verifiable-memory/memory";
import type { App, AppDeps, Services } from "../../context.js";
import { requireExtensionToken } from "../../middleware/token.js";
import { bearerSecurity } from "../../schemas.js";

/** Registers `POST /memories/search`. */
export function registerSearchMemories(app: App, deps: AppDeps, services: Services): void {
  const route = createRoute({
    method: "post",
    path: "/memories/search",
    operationId: "searchMemories",
    tags: ["memories"],
    summary: "Recall memories by substring (not semantic), newest first",
    security: bearerSecurity,
    middleware: [requireExtensionToken(deps)] as const,
    request: {
      query: NoQuerySchema,
      body: { required: true, content: { "application/json": { schema: SearchBodySchema } } },
    },
    responses: {
      200: {
        description: "Matching memories",
        content: { "application/json": { schema: SearchResultSchema } },
      },
      400: errorResponse("invalid_request"),
      401: errorResponse("unauthorized"),
      429: rateLimitedResponse("rate_limited: too many requests with this credential"),
    },
  });
  app.openapi(route, async (c) => {
    const auth = c.var.auth;
    const result = await services.memories.search(
      auth,
      services.dataKeys.of(auth),
      searchInputOf(c.req.valid("json")),
    );
    return c.json(result, 200);
  });
}
