/**
 * `POST /auth/challenge` (docs/protocol.md §1, §2): issues the canonical sign-in message.
 * @module
 */
import { createRoute, z } from "@hono/zod-openapi";
import { issueChallenge } from "@verifiable-memory/auth";
import {
  errorResponse,
  limitPerClientIp,
  NoQuerySchema,
  rateLimitedResponse,
} from "@verifiable-memory/http-kit";
import type { App, AppDeps, AppEnv } from "../../context.js";

export const ChallengeResponseSchema = z
  .object({
    message: z
      .string()
      .openapi({ description: "The exact text to sign (SIWS, docs/protocol.md §2)" }),
    nonce: z.string(),
    expiresAt: z.string(),
  })
  .openapi("Challenge");
export type AuthChallengeResponse = z.infer<typeof ChallengeResponseSchema>;

const route = createRoute({
  method: "post",
  path: "/auth/challenge",
  operationId: "createSignInChallenge",
  security: [],
  middleware: [limitPerClientIp<AppEnv>()] as const,
  tags: ["sign-in"],
  summary: "Issue a sign-in challenge for a wallet public key",
  request: {
    query: NoQuerySchema,
    body: {
      required: true,
      content: {
        "application/json": {
          schema: z.strictObject({
            publicKey: z.string().max(1024).openapi({ description: "base58, 32 bytes" }),
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
    429: rateLimitedResponse("rate_limited: too many requests from this client IP"),
    503: errorResponse(
      "challenges_exhausted: AUTH_CHALLENGE_MAX_OUTSTANDING unexpired challenges are stored; retry later",
    ),
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
      maxOutstanding: deps.config.authChallengeMaxOutstanding,
    });
    return c.json(challenge, 200);
  });
}
