/**
 * `POST /connect/challenge` (docs/protocol.md §9, §2): a sign-in challenge for the connect flow,
 * answered like core's `POST /auth/challenge`.
 * @module
 */
import { createRoute, z } from "@hono/zod-openapi";
import {
  errorResponse,
  limitPerClientIp,
  NoQuerySchema,
  rateLimitedResponse,
} from "@verifiable-memory/http-kit";
import type { App, AppEnv, Services } from "../../context.js";
import { PublicKeySchema, RedirectUriSchema } from "./_schema.js";

const ChallengeSchema = z
  .object({
    message: z.string().openapi({ description: "The exact Sign-In-With-Solana text to sign" }),
    nonce: z.string(),
    expiresAt: z.string(),
  })
  .openapi("Challenge");

const route = createRoute({
  method: "post",
  path: "/connect/challenge",
  operationId: "createConnectChallenge",
  security: [],
  middleware: [limitPerClientIp<AppEnv>()] as const,
  tags: ["connect"],
  summary: "Issue a sign-in challenge bound to the extension page that will receive the token",
  request: {
    query: NoQuerySchema,
    body: {
      required: true,
      content: {
        "application/json": {
          schema: z.strictObject({ publicKey: PublicKeySchema, redirectUri: RedirectUriSchema }),
        },
      },
    },
  },
  responses: {
    200: {
      description: "The challenge",
      content: { "application/json": { schema: ChallengeSchema } },
    },
    400: errorResponse("invalid_request, invalid_public_key or invalid_redirect_uri"),
    429: rateLimitedResponse("rate_limited: too many requests from this client IP"),
    503: errorResponse(
      "challenges_exhausted: AUTH_CHALLENGE_MAX_OUTSTANDING unexpired challenges are stored; retry later",
    ),
  },
});

/** Registers `POST /connect/challenge`. */
export function registerPostConnectChallenge(app: App, services: Services): void {
  app.openapi(route, async (c) => {
    const { publicKey, redirectUri } = c.req.valid("json");
    return c.json(await services.connect.challenge(publicKey, redirectUri), 200);
  });
}
