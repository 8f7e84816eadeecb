/**
 * `GET /memories` (docs/protocol.md §1, §4): the caller's live memories, newest first, cursor-paginated.
 * @module
 */

import { createRoute, z } from "@hono/zod-openapi";
import {
  errorResponse,
  rateLimitedResponse,
  unauthorizedResponse,
} from "@verifiable-memory/http-kit";
import { MemorySchema, NamespaceSchema } from "@verifiable-memory/memory";
import { CursorSchema, queryInteger } from "@verifiable-memory/memory-schemas";
import type { App, AppDeps, Services } from "../../context.js";
import { openRequestCursor, sealPageCursor } from "../../cursors.js";
import { requireAuth, requireScopes } from "../../middleware/bearer.js";
import { bearerSecurity } from "../../schemas.js";

const MemoryPageSchema = z
  .object({ items: z.array(MemorySchema), nextCursor: z.string().nullable() })
  .openapi("MemoryPage");

/** Registers `GET /memories`. */
export function registerListMemories(app: App, deps: AppDeps, services: Services): void {
  const route = createRoute({
    method: "get",
    path: "/memories",
    operationId: "listMemories",
    tags: ["memories"],
    summary: "List the caller's memories, newest first",
    security: bearerSecurity,
    middleware: [requireAuth(deps), requireScopes("memories:read")] as const,
    request: {
      query: z.strictObject({
        limit: queryInteger(1, 200).default(50),
        cursor: CursorSchema.optional(),
        namespace: NamespaceSchema.optional(),
        namespacePrefix: NamespaceSchema.optional(),
        includeSuperseded: z
          .enum(["true", "false"])
          .default("false")
          .openapi({ description: "also list superseded versions (default: current only)" }),
      }),
    },
    responses: {
      200: {
        description: "A page of memories",
        content: { "application/json": { schema: MemoryPageSchema } },
      },
      400: errorResponse("invalid_request"),
      401: unauthorizedResponse(),
      403: errorResponse("insufficient_scope"),
      429: rateLimitedResponse("rate_limited: too many requests with this credential"),
    },
  });
  app.openapi(route, async (c) => {
    const { limit, cursor, namespace, namespacePrefix, includeSuperseded } = c.req.valid("query");
    const auth = c.var.auth;
    const page = await services.memories.list(auth, services.dataKeys.of(auth), {
      limit,
      cursor: openRequestCursor(deps.config, cursor),
      namespace,
      namespacePrefix,
      includeSuperseded: includeSuperseded === "true",
    });
    return c.json(sealPageCursor(deps.config, page), 200);
  });
}
