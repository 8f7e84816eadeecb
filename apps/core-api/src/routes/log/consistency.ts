/**
 * `GET /log/consistency?from=M&to=N` (docs/protocol.md §6, §1; RFC 9162 §2.1.4): proof that the log of
 * size N extends the log of size M, so an auditor holding an old root can check the log only grew.
 * @module
 */

import { createRoute, z } from "@hono/zod-openapi";
import {
  errorResponse,
  rateLimitedResponse,
  unauthorizedResponse,
} from "@verifiable-memory/http-kit";
import { queryInteger } from "@verifiable-memory/memory-schemas";
import type { App, AppDeps, Services } from "../../context.js";
import { requireAuth, requireScopes } from "../../middleware/bearer.js";
import { bearerSecurity } from "../../schemas.js";

const ConsistencySchema = z
  .object({
    from: z.number().int(),
    to: z.number().int(),
    fromRoot: z.string(),
    toRoot: z.string(),
    proof: z.array(z.string()),
  })
  .openapi("ConsistencyProof");

const size = queryInteger(1, Number.MAX_SAFE_INTEGER);

/** Registers `GET /log/consistency`. */
export function registerGetLogConsistency(app: App, deps: AppDeps, services: Services): void {
  const route = createRoute({
    method: "get",
    path: "/log/consistency",
    operationId: "getLogConsistency",
    tags: ["proofs"],
    summary: "RFC 9162 consistency proof between two tree sizes (1 ≤ from ≤ to ≤ treeSize)",
    security: bearerSecurity,
    middleware: [requireAuth(deps), requireScopes("memories:read")] as const,
    request: { query: z.strictObject({ from: size, to: size }) },
    responses: {
      200: {
        description: "The proof and both roots",
        content: { "application/json": { schema: ConsistencySchema } },
      },
      400: errorResponse("invalid_request"),
      401: unauthorizedResponse(),
      403: errorResponse("insufficient_scope"),
      429: rateLimitedResponse("rate_limited: too many requests with this credential"),
    },
  });
  app.openapi(route, async (c) => {
    const { from, to } = c.req.valid("query");
    return c.json(await services.proofs.consistency(c.var.auth, from, to), 200);
  });
}
