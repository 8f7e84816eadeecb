/**
 * `POST /staking/stake` (docs/protocol.md §11): an unsigned stake transaction for the wallet to sign.
 * @module
 */
import { createRoute, z } from "@hono/zod-openapi";
import { errorResponse, NoQuerySchema } from "@verifiable-memory/http-kit";
import type { App, AppDeps, Services } from "../../context.js";
import { requireAuth } from "../../middleware/bearer.js";
import { bearerSecurity } from "../../schemas.js";
import { chainErrorResponses, TransactionBase64 } from "./_schema.js";

const U64_MAX = (1n << 64n) - 1n;

const StakeBodySchema = z.strictObject({
  amountLamports: z
    .string()
    .regex(/^[1-9][0-9]{0,19}$/, "must be a positive decimal integer string")
    .refine((v) => !/^[0-9]+$/.test(v) || BigInt(v) <= U64_MAX, "must be at most 2^64-1")
    .openapi({ example: "1000000000" }),
});

const PreparedStakeSchema = z
  .object({
    transaction: TransactionBase64,
    vault: z.string(),
    maturesAt: z.string().openapi({ description: "chain clock now + the lock period" }),
  })
  .openapi("PreparedStake");

/** Registers `POST /staking/stake`. */
export function registerPostStake(app: App, deps: AppDeps, services: Services): void {
  const route = createRoute({
    method: "post",
    path: "/staking/stake",
    operationId: "prepareStake",
    tags: ["staking"],
    summary: "Build an unsigned stake transaction (fee payer: the wallet)",
    security: bearerSecurity,
    middleware: [requireAuth(deps)] as const,
    request: {
      query: NoQuerySchema,
      body: {
        required: true,
        content: { "application/json": { schema: StakeBodySchema } },
      },
    },
    responses: {
      200: {
        description: "The transaction to sign, then POST to /staking/submit",
        content: { "application/json": { schema: PreparedStakeSchema } },
      },
      400: errorResponse("invalid_request"),
      409: errorResponse("too_many_lots or insufficient_funds"),
      ...chainErrorResponses,
    },
  });
  app.openapi(route, async (c) => {
    const { amountLamports } = c.req.valid("json");
    return c.json(await services.staking.prepareStake(c.var.auth, BigInt(amountLamports)), 200);
  });
}
