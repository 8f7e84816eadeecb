/**
 * `POST /staking/unstake` (docs/protocol.md §11): reads the chain, then an unsigned unstake transaction
 * paying every matured lot. A failed chain read is 503, never an answer from the cache.
 * @module
 */
import { createRoute, z } from "@hono/zod-openapi";
import { errorResponse, NoQuerySchema } from "@verifiable-memory/http-kit";
import type { App, AppDeps, Services } from "../../context.js";
import { requireAuth } from "../../middleware/bearer.js";
import { bearerSecurity } from "../../schemas.js";
import { chainErrorResponses, Lamports, LotSchema, TransactionBase64 } from "./_schema.js";

const PreparedUnstakeSchema = z
  .object({
    transaction: TransactionBase64,
    amountLamports: Lamports,
    lots: z.array(LotSchema),
  })
  .openapi("PreparedUnstake");

/** Registers `POST /staking/unstake`. */
export function registerPostUnstake(app: App, deps: AppDeps, services: Services): void {
  const route = createRoute({
    method: "post",
    path: "/staking/unstake",
    operationId: "prepareUnstake",
    tags: ["staking"],
    summary: "Build an unsigned unstake transaction paying every matured lot",
    security: bearerSecurity,
    middleware: [requireAuth(deps)] as const,
    request: {
      query: NoQuerySchema,
      body: {
        required: true,
        content: { "application/json": { schema: z.strictObject({}) } },
      },
    },
    responses: {
      200: {
        description: "The transaction to sign, then POST to /staking/submit",
        content: { "application/json": { schema: PreparedUnstakeSchema } },
      },
      400: errorResponse("invalid_request"),
      409: errorResponse("nothing_matured"),
      ...chainErrorResponses,
    },
  });
  app.openapi(route, async (c) => c.json(await services.staking.prepareUnstake(c.var.auth), 200));
}
