/**
 * `GET /namespaces` (docs/protocol.md §4.6): the namespaces of the caller's live, current
 * memories with their counts, within the caller's confinement, sorted by name, cursor-paginated.
 * @module
 */

import { createRoute, z } from "@hono/zod-openapi";
import {
  errorResponse,
  rateLimitedResponse,
  unauthorizedResponse,
} from "@verifiable-memory/http-kit";
import { NamespaceSchema } from "@verifiable-memory/memory";
import { CursorSchema, queryInteger } from "@verifiable-memory/memory-schemas";
import type { App, AppDeps, Services } from "../../context.js";
import { openRequestCursor, sealPageCursor } from "../../cursors.js";
import { requireAuth, requireScopes } from "../../middleware/bearer.js";
import { bearerSecurity } from "../../schemas.js";

const NamespaceCountSchema = z
  .object({
    namespace: z
      .string()
      .nullable()
      .openapi({ description: "the namespace; null for the memories written without one" }),
    count: z.number().int().openapi({ description: "live, current memories in it" }),
    lastWrittenAt: z.string().openapi({ description: "creation time of the newest of them" }),
  })
  .openapi("NamespaceCount");

const NamespacePageSchema = z
  .object({ items: z.array(NamespaceCountSchema), nextCursor: z.string().nullable() })
  .openapi("NamespacePage");

/** Registers `GET /namespaces`. */
export function registerGetNamespaces(app: App, deps: AppDeps, services: Services): void {
  const route = createRoute({
    method: "get",
    path: "/namespaces",
    operationId: "listNamespaces",
    tags: ["memories"],
    summary: "The caller's namespaces with their memory counts",
    security: bearerSecurity,
    middleware: [requireAuth(deps), requireScopes("memories:read")] as const,
    request: {
      query: z.strictObject({
        limit: queryInteger(1, 200).default(50),
        cursor: CursorSchema.optional(),
        prefix: NamespaceSchema.optional().openapi({
          description: "only namespaces starting with this (leaves out the null namespace)",
        }),
      }),
    },
    responses: {
      200: {
        description: "A page of namespaces, sorted by name (null first)",
        content: { "application/json": { schema: NamespacePageSchema } },
      },
      400: errorResponse("invalid_request"),
      401: unauthorizedResponse(),
      403: errorResponse("insufficient_scope"),
      429: rateLimitedResponse("rate_limited: too many requests with this credential"),
    },
  });
  app.openapi(route, async (c) => {
    const { limit, cursor, prefix } = c.req.valid("query");
    const page = await services.overview.namespaces(c.var.auth, {
      limit,
      cursor: openRequestCursor(deps.config, cursor),
      prefix,
    });
    return c.json(sealPageCursor(deps.config, page), 200);
  });
}
