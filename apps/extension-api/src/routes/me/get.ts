/**
 * `GET /me` (docs/protocol.md §9): who the extension token belongs to.
 * @module
 */
import { createRoute, z } from "@hono/zod-openapi";
import {
  NoQuerySchema,
  rateLimitedResponse,
  unauthorizedResponse,
} from "@verifiable-memory/http-kit";
import type { App, AppDeps } from "../../context.js";
import { requireExtensionToken } from "../../middleware/token.js";
import { bearerSecurity } from "../../schemas.js";

const MeSchema = z
  .object({
    userId: z.string(),
    publicKey: z.string().openapi({ description: "The wallet public key, base58" }),
    tokenExpiresAt: z.string(),
  })
  .openapi("Me");

/** Registers `GET /me`. */
export function registerGetMe(app: App, deps: AppDeps): void {
  const route = createRoute({
    method: "get",
    path: "/me",
    operationId: "getMe",
    tags: ["session"],
    summary: "The signed-in wallet of this extension token",
    security: bearerSecurity,
    middleware: [requireExtensionToken(deps)] as const,
    request: { query: NoQuerySchema },
    responses: {
      200: { description: "The caller", content: { "application/json": { schema: MeSchema } } },
      401: unauthorizedResponse(),
      429: rateLimitedResponse("rate_limited: too many requests with this credential"),
    },
  });
  app.openapi(route, (c) => {
    const auth = c.var.auth;
    return c.json(
      {
        userId: auth.userId,
        publicKey: auth.ownerPubkey,
        tokenExpiresAt: auth.tokenExpiresAt.toISOString(),
      },
      200,
    );
  });
}
