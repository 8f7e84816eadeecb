/**
 * `POST /auth/challenge` (spec §4, CONTRACT §2): issues the canonical sign-in message.
 * @module
 */
import { createRoute, z } from "@hono/zod-openapi";
import { issueChallenge } from "@svc/auth";
import type { App, AppDeps } from "../../context.js";
import { errorResponse } from "../../schemas.js";

export const ChallengeResponseSchema = z
  .object({
    message: z.string().openapi({ description: "The exact text to sign (SIWS, spec §5)" }),
    nonce: z.string(),
    expiresAt: z.string(),
  })
  .openapi("Challenge");
export type AuthChallengeResponse = z.infer<typeof ChallengeResponseSchema>;

const route = createRoute({
  method: "post",
  path: "/auth/challenge",
  tags: ["sign-in"],
  summary: "Issue a sign-in challenge for a wallet public key",
  request: {
    body: {
      required: true,
      content: {
        "application/json": {
          schema: z.object({
            publicKey: z.string().min(1).max(64).openapi({ description: "base58" }),
          }),
        },
      },
    },
  },
  responses: {
    200: {
      description: "The challenge",
      content: { "application/json": { schema: ChallengeResponseSchema } },
    },
    400: errorResponse("invalid_request or invalid_public_key"),
  },
});

/** Registers `POST /auth/challenge`. */
export function registerPostAuthChallenge(app: App, deps: AppDeps): void {
  app.openapi(route, async (c) => {
    const { publicKey } = c.req.valid("json");
    const challenge = await issueChallenge({
      db: deps.db,
      clock: deps.clock,
      config: deps.config.siws,
      publicKey,
    });
    return c.json(challenge, 200);
  });
}
