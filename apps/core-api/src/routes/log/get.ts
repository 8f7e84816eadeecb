/**
 * `GET /log` (docs/protocol.md §6): the caller's tree head and latest anchored checkpoint.
 * @module
 */
import { createRoute, z } from "@hono/zod-openapi";
import {
  errorResponse,
  NoQuerySchema,
  rateLimitedResponse,
  unauthorizedResponse,
} from "@verifiable-memory/http-kit";
import type { App, AppDeps, Services } from "../../context.js";
import { requireAuth, requireScopes } from "../../middleware/bearer.js";
import { bearerSecurity } from "../../schemas.js";

const LogSchema = z
  .object({
    treeSize: z.number().int(),
    rootHash: z.string(),
    anchored: z
      .object({
        treeSize: z.number().int(),
        rootHash: z.string(),
        nonce: z.number().int(),
        signature: z.string(),
      })
      .nullable(),
  })
  .openapi("Log");

/** Registers `GET /log`. */
export function registerGetLog(app: App, deps: AppDeps, services: Services): void {
  const route = createRoute({
    method: "get",
    path: "/log",
    operationId: "getLog",
    tags: ["proofs"],
    summary: "The caller's Merkle log head and its latest anchored checkpoint",
    security: bearerSecurity,
    middleware: [requireAuth(deps), requireScopes("memories:read")] as const,
    request: { query: NoQuerySchema },
    responses: {
      200: { description: "The log head", content: { "application/json": { schema: LogSchema } } },
      401: unauthorizedResponse(),
      403: errorResponse("insufficient_scope"),
      429: rateLimitedResponse("rate_limited: too many requests with this credential"),
    },
  });
  app.openapi(route, async (c) => c.json(await services.proofs.log(c.var.auth), 200));
}
