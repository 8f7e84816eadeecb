/**
 * `POST /memories/search` (spec §3 "Recall"; CONTRACT §4): substring recall over the caller's
 * memories, case-insensitive by default, newest first, with an exact-match metadata filter.
 * @module
 */
import { createRoute, z } from "@hono/zod-openapi";
import type { App, AppDeps, Services } from "../../context.js";
import { requireAuth } from "../../middleware/bearer.js";
import { bearerSecurity, errorResponse } from "../../schemas.js";
import { MemorySchema, SearchBodySchema } from "./_schema.js";

const SearchResultSchema = z
  .object({
    items: z.array(MemorySchema),
    scanned: z.number().int().openapi({ description: "live memories examined" }),
  })
  .openapi("SearchResult");

/** Registers `POST /memories/search`. */
export function registerSearchMemories(app: App, deps: AppDeps, services: Services): void {
  const route = createRoute({
    method: "post",
    path: "/memories/search",
    tags: ["memories"],
    summary: "Recall memories by substring (not semantic), newest first",
    security: bearerSecurity,
    middleware: [requireAuth(deps)] as const,
    request: {
      body: { required: true, content: { "application/json": { schema: SearchBodySchema } } },
    },
    responses: {
      200: {
        description: "Matching memories",
        content: { "application/json": { schema: SearchResultSchema } },
      },
      400: errorResponse("invalid_request"),
      401: errorResponse("unauthorized"),
    },
  });
  app.openapi(route, async (c) => {
    const auth = c.var.auth;
    const result = await services.memories.search(
      auth,
      services.dataKeys.of(auth),
      c.req.valid("json"),
    );
    return c.json(result, 200);
  });
}
