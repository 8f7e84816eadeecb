/**
 * `GET /memories/:id/proof` (docs/protocol.md §6.1 "The proof bundle"): the proof bundle, cut at
 * the latest anchored checkpoint, with its path through the checkpoint log (`checkpointLog`),
 * that a third party checks offline against the chain (ProofService.proofOf).
 * @module
 */
import { createRoute } from "@hono/zod-openapi";
import {
  errorResponse,
  NoQuerySchema,
  rateLimitedResponse,
  unauthorizedResponse,
} from "@verifiable-memory/http-kit";
import { ProofBundleSchema } from "@verifiable-memory/memory";
import type { App, AppDeps, Services } from "../../context.js";
import { requireAuth, requireScopes } from "../../middleware/bearer.js";
import { bearerSecurity, IdParamSchema } from "../../schemas.js";

/** Registers `GET /memories/:id/proof`. */
export function registerGetMemoryProof(app: App, deps: AppDeps, services: Services): void {
  const route = createRoute({
    method: "get",
    path: "/memories/{id}/proof",
    operationId: "getMemoryProof",
    tags: ["proofs"],
    summary: "The memory's inclusion proof at the latest anchored checkpoint",
    security: bearerSecurity,
    middleware: [requireAuth(deps), requireScopes("memories:read")] as const,
    request: {
      query: NoQuerySchema,
      params: IdParamSchema,
    },
    responses: {
      200: {
        description:
          "The proof bundle (checkpoint, inclusionProof and anchor are null until the owner's account covers the memory; checkpointLog is null until an anchored checkpoint-log head does)",
        content: { "application/json": { schema: ProofBundleSchema } },
      },
      401: unauthorizedResponse(),
      403: errorResponse("insufficient_scope"),
      429: rateLimitedResponse("rate_limited: too many requests with this credential"),
      404: errorResponse("not_found"),
    },
  });
  app.openapi(route, async (c) => {
    const auth = c.var.auth;
    const bundle = await services.proofs.proofOf(
      auth,
      services.dataKeys.of(auth),
      c.req.valid("param").id,
    );
    return c.json(bundle, 200);
  });
}
