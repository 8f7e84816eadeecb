/**
 * `GET /memories/:id/verify` (CONTRACT §5; spec's convenience verify): the server reads the
 * commitment account from the chain and checks the memory's proof against it.
 * @module
 */
import { createRoute, z } from "@hono/zod-openapi";
import type { App, AppDeps, Services } from "../../context.js";
import { requireAuth } from "../../middleware/bearer.js";
import { bearerSecurity, errorResponse, IdParamSchema } from "../../schemas.js";

const VerifySchema = z
  .object({
    verified: z.boolean(),
    reason: z.enum(["not_anchored", "root_mismatch", "proof_invalid"]).nullable(),
    checkedAgainst: z
      .object({
        cluster: z.string(),
        programId: z.string(),
        account: z.string(),
        memoryCount: z.number().int(),
        nonce: z.number().int(),
        rootHash: z.string(),
      })
      .nullable(),
  })
  .openapi("VerifyResult");

/** Registers `GET /memories/:id/verify`. */
export function registerVerifyMemory(app: App, deps: AppDeps, services: Services): void {
  const route = createRoute({
    method: "get",
    path: "/memories/{id}/verify",
    tags: ["proofs"],
    summary: "Check the memory's proof against the commitment account read from the chain",
    security: bearerSecurity,
    middleware: [requireAuth(deps)] as const,
    request: { params: IdParamSchema },
    responses: {
      200: {
        description: "The outcome",
        content: { "application/json": { schema: VerifySchema } },
      },
      401: errorResponse("unauthorized"),
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
