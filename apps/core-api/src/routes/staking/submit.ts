/**
 * `POST /staking/submit` (docs/protocol.md §11): relays a wallet-signed stake or unstake transaction of
 * the caller's own vault; anything else is 400.
 * @module
 */
import { createRoute, z } from "@hono/zod-openapi";
import { errorResponse, NoQuerySchema } from "@verifiable-memory/http-kit";
import type { App, AppDeps, Services } from "../../context.js";
import { requireAuth } from "../../middleware/bearer.js";
import { bearerSecurity } from "../../schemas.js";
import { chainErrorResponses, TransactionBase64 } from "./_schema.js";

const SubmittedSchema = z
  .object({
    signature: z.string().openapi({ description: "transaction signature, base58" }),
    slot: z.number().int(),
  })
  .openapi("SubmittedTransaction");

/** Registers `POST /staking/submit`. */
export function registerPostStakingSubmit(app: App, deps: AppDeps, services: Services): void {
  const route = createRoute({
    method: "post",
    path: "/staking/submit",
    operationId: "submitStakingTransaction",
    tags: ["staking"],
    summary: "Relay a signed stake or unstake transaction and wait for its confirmation",
    security: bearerSecurity,
    middleware: [requireAuth(deps)] as const,
    request: {
      query: NoQuerySchema,
      body: {
        required: true,
        content: {
          "application/json": {
            schema: z.strictObject({ transaction: TransactionBase64.min(1).max(2048) }),
          },
        },
      },
    },
    responses: {
      200: {
        description: "Confirmed on chain",
        content: { "application/json": { schema: SubmittedSchema } },
      },
      400: errorResponse("invalid_request or invalid_transaction"),
      409: errorResponse(
        "nothing_matured, too_many_lots, insufficient_funds, blockhash_expired or transaction_failed",
      ),
      ...chainErrorResponses,
    },
  });
  app.openapi(route, async (c) => {
    const { transaction } = c.req.valid("json");
    return c.json(await services.staking.submit(c.var.auth, transaction), 200);
  });
}
