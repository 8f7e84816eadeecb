/**
 * `GET /memories/:id/verify` (docs/protocol.md §6; spec's convenience verify): the server reads the
 * commitment account from the chain and checks the memory's proof against it.
 * @module
 */
import { createRoute } from "@hono/zod-openapi";
import {
  errorResponse,
  NoQuerySchema,
  rateLimitedResponse,
  unauthorizedResponse,
} from "@verifiable-memory/http-kit";
import { VerifyResultSchema } from "@verifiable-memory/memory";
import type { App, AppDeps, Services } from "../../context.js";
import { requireAuth, requireScopes } from "../../middleware/bearer.js";
import { bearerSecurity, IdParamSchema } from "../../schemas.js";

/** Registers `GET /memories/:id/verify`. */
export function registerVerifyMemory(app: App, deps: AppDeps, services: Services): void {
  const route = createRoute({
    method: "get",
    path: "/memories/{id}/verify",
    operationId: "verifyMemory",
    tags: ["proofs"],
    summary: "Check the memory's proof against the commitment account read from the chain",
    security: bearerSecurity,
    middleware: [requireAuth(deps), requireScopes("memories:read")] as const,
    request: {
      query: NoQuerySchema,
      params: IdParamSchema,
    },
    responses: {
      200: {
        description: "The outcome",
        content: { "application/json": { schema: VerifyResultSchema } },
      },
      401: unauthorizedResponse(),
      403: errorResponse("insufficient_scope"),
      429: rateLimitedResponse("rate_limited: too many requests with this credential"),
      404: errorResponse("not_found"),
      503: errorResponse("chain_unavailable"),
    },
  });
  app.openapi(route, async (c) => {
    const auth = c.var.auth;
    const row = await services.memories.load(auth, c.req.valid("param").id);
    const result = await services.proofs.verify(auth, services.dataKeys.of(auth), row);
    return c.json(result, 200);
  });
}
