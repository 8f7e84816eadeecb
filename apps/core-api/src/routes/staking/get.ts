/**
 * `GET /staking` (docs/protocol.md §11): the caller's stake vault, read from the chain.
 * @module
 */
import { createRoute, z } from "@hono/zod-openapi";
import { NoQuerySchema } from "@verifiable-memory/http-kit";
import type { App, AppDeps, Services } from "../../context.js";
import { requireAuth } from "../../middleware/bearer.js";
import { bearerSecurity } from "../../schemas.js";
import { chainErrorResponses, Lamports, LotSchema } from "./_schema.js";

const PositionSchema = z
  .object({
    vault: z.string().openapi({ description: 'the wallet\'s vault PDA ["vault", owner]' }),
    balanceLamports: Lamports,
    withdrawableLamports: Lamports,
    lockPeriodSeconds: z.number().int(),
    chainTime: z.string().openapi({ description: "the chain's clock at the read" }),
    lots: z.array(LotSchema),
  })
  .openapi("StakingPosition");

/** Registers `GET /staking`. */
export function registerGetStaking(app: App, deps: AppDeps, services: Services): void {
  const route = createRoute({
    method: "get",
    path: "/staking",
    operationId: "getStaking",
    tags: ["staking"],
    summary: "The caller's stake vault and lots, read from the chain",
    security: bearerSecurity,
    middleware: [requireAuth(deps)] as const,
    request: { query: NoQuerySchema },
    responses: {
      200: {
        description: "Balances from the chain",
        content: { "application/json": { schema: PositionSchema } },
      },
      ...chainErrorResponses,
    },
  });
  app.openapi(route, async (c) => c.json(await services.staking.position(c.var.auth), 200));
}
