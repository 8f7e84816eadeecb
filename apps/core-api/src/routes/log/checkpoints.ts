/**
 * `GET /log/checkpoints` (docs/protocol.md §6.4): the caller's anchored checkpoints, newest
 * (largest tree size) first, cursor-paginated: what a dashboard draws the log's growth and
 * anchoring from.
 * @module
 */

import { createRoute, z } from "@hono/zod-openapi";
import {
  errorResponse,
  rateLimitedResponse,
  unauthorizedResponse,
} from "@verifiable-memory/http-kit";
import { CursorSchema, queryInteger } from "@verifiable-memory/memory-schemas";
import type { App, AppDeps, Services } from "../../context.js";
import { openRequestCursor, sealPageCursor } from "../../cursors.js";
import { requireAuth, requireScopes } from "../../middleware/bearer.js";
import { bearerSecurity } from "../../schemas.js";

const CheckpointSchema = z
  .object({
    treeSize: z.number().int().openapi({ description: "the tree size committed" }),
    rootHash: z.string().openapi({ description: "the root at that size, lowercase hex" }),
    nonce: z.number().int().openapi({ description: "the commitment account's nonce after it" }),
    signature: z.string().openapi({ description: "the commit transaction's signature, base58" }),
    slot: z
      .number()
      .int()
      .nullable()
      .openapi({ description: "the slot it landed in (null: not recorded)" }),
    anchoredAt: z.string().openapi({ description: "when it was seen confirmed" }),
  })
  .openapi("AnchoredCheckpoint");

const CheckpointPageSchema = z
  .object({ items: z.array(CheckpointSchema), nextCursor: z.string().nullable() })
  .openapi("AnchoredCheckpointPage");

/** Registers `GET /log/checkpoints`. */
export function registerGetLogCheckpoints(app: App, deps: AppDeps, services: Services): void {
  const route = createRoute({
    method: "get",
    path: "/log/checkpoints",
    operationId: "listLogCheckpoints",
    tags: ["proofs"],
    summary: "The caller's anchored checkpoints, newest first",
    security: bearerSecurity,
    middleware: [requireAuth(deps), requireScopes("memories:read")] as const,
    request: {
      query: z.strictObject({
        limit: queryInteger(1, 200).default(50),
        cursor: CursorSchema.optional(),
      }),
    },
    responses: {
      200: {
        description: "A page of anchored checkpoints",
        content: { "application/json": { schema: CheckpointPageSchema } },
      },
      400: errorResponse("invalid_request"),
      401: unauthorizedResponse(),
      403: errorResponse("insufficient_scope"),
      429: rateLimitedResponse("rate_limited: too many requests with this credential"),
    },
  });
  app.openapi(route, async (c) => {
    const { limit, cursor } = c.req.valid("query");
    const page = await services.overview.checkpoints(c.var.auth, {
      limit,
      cursor: openRequestCursor(deps.config, cursor),
    });
    return c.json(sealPageCursor(deps.config, page), 200);
  });
}
