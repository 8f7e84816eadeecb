/**
 * `GET /keys` (docs/protocol.md §1, §3): the caller's keys, newest first, revoked ones included,
 * cursor-paginated. Never the raw key or its hash.
 * @module
 */

import { createRoute, z } from "@hono/zod-openapi";
import { InvalidCursorError, listApiKeys } from "@verifiable-memory/db-schema";
import {
  errorResponse,
  rateLimitedResponse,
  unauthorizedResponse,
} from "@verifiable-memory/http-kit";
import { CursorSchema, queryInteger } from "@verifiable-memory/memory-schemas";
import type { App, AppDeps } from "../../context.js";
import { openRequestCursor, sealPageCursor } from "../../cursors.js";
import { ApiError } from "../../errors.js";
import { requireAuth, requireSession } from "../../middleware/bearer.js";
import { bearerSecurity } from "../../schemas.js";
import { ApiKeySchema, keyGrantView } from "./_schema.js";

const ListSchema = z.object({ items: z.array(ApiKeySchema), nextCursor: z.string().nullable() });
export type KeysGetResponse = z.infer<typeof ListSchema>;

/** Registers `GET /keys`. */
export function registerGetKeys(app: App, deps: AppDeps): void {
  const route = createRoute({
    method: "get",
    path: "/keys",
    operationId: "listApiKeys",
    tags: ["api keys"],
    summary: "List the caller's API keys",
    security: bearerSecurity,
    middleware: [requireAuth(deps), requireSession()] as const,
    request: {
      query: z.strictObject({
        limit: queryInteger(1, 200).default(50),
        cursor: CursorSchema.optional(),
      }),
    },
    responses: {
      200: {
        description: "A page of keys",
        content: { "application/json": { schema: ListSchema } },
      },
      400: errorResponse("invalid_request"),
      401: unauthorizedResponse(),
      429: rateLimitedResponse("rate_limited: too many requests with this credential"),
      403: errorResponse("session_required"),
    },
  });
  app.openapi(route, async (c) => {
    const { limit, cursor } = c.req.valid("query");
    let page: Awaited<ReturnType<typeof listApiKeys>>;
    try {
      page = await listApiKeys(deps.db, c.var.auth.userId, {
        limit,
        ...(cursor ? { cursor: openRequestCursor(deps.config, cursor) } : {}),
      });
    } catch (error) {
      if (error instanceof InvalidCursorError) {
        throw new ApiError("invalid_request", "invalid cursor", [
          { path: ["cursor"], message: "invalid cursor" },
        ]);
      }
      throw error;
    }
    return c.json(
      {
        items: page.items.map((k) => ({
          id: k.id,
          prefix: k.prefix,
          label: k.label,
          createdAt: k.createdAt.toISOString(),
          lastUsedAt: k.lastUsedAt?.toISOString() ?? null,
          revokedAt: k.revokedAt?.toISOString() ?? null,
          ...keyGrantView(k),
        })),
        nextCursor: sealPageCursor(deps.config, page).nextCursor,
      },
      200,
    );
  });
}
