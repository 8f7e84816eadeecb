/**
 * `POST /auth/verify` (docs/protocol.md §1, §2): the five ordered checks, then a session JWT.
 * @module
 */
import { createRoute, z } from "@hono/zod-openapi";
import { issueSessionToken, verifySignIn } from "@verifiable-memory/auth";
import {
  errorResponse,
  limitPerClientIp,
  NoQuerySchema,
  rateLimitedResponse,
} from "@verifiable-memory/http-kit";
import type { App, AppDeps, AppEnv } from "../../context.js";

export const SessionResponseSchema = z
  .object({
    token: z.string(),
    tokenType: z.literal("Bearer"),
    expiresAt: z.string(),
    userId: z.string(),
    publicKey: z.string(),
  })
  .openapi("Session");
export type AuthVerifyResponse = z.infer<typeof SessionResponseSchema>;

const route = createRoute({
  method: "post",
  path: "/auth/verify",
  operationId: "verifySignIn",
  security: [],
  middleware: [limitPerClientIp<AppEnv>()] as const,
  tags: ["sign-in"],
  summary: "Verify a signed challenge and get a session token (HS256 JWT, 1 hour)",
  request: {
    query: NoQuerySchema,
    body: {
      required: true,
      content: {
        "application/json": {
          schema: z.strictObject({
            publicKey: z.string().max(1024),
            message: z.string().min(1).max(4096),
            signature: z
              .string()
              .min(1)
              .max(128)
              .regex(/^[1-9A-HJ-NP-Za-km-z]+$/, "must be base58"),
          }),
        },
      },
    },
  },
  responses: {
    200: {
      description: "Signed in",
      content: { "application/json": { schema: SessionResponseSchema } },
    },
    400: errorResponse("invalid_request, invalid_public_key or malformed_message"),
    401: errorResponse("nonce_not_found, challenge_expired, message_mismatch or invalid_signature"),
    429: rateLimitedResponse("rate_limited: too many requests from this client IP"),
  },
});

/** Registers `POST /auth/verify`. */
export function registerPostAuthVerify(app: App, deps: AppDeps): void {
  app.openapi(route, async (c) => {
    const body = c.req.valid("json");
    const verified = await verifySignIn({
      db: deps.db,
      clock: deps.clock,
      masterKey: deps.config.masterKeys.current.key,
      ...body,
    });
    const session = await issueSessionToken({
      secret: deps.config.jwtSecret,
      clock: deps.clock,
      userId: verified.userId,
      publicKey: verified.publicKey,
    });
    return c.json(
      {
        token: session.token,
        tokenType: "Bearer" as const,
        expiresAt: session.expiresAt,
        userId: verified.userId,
        publicKey: verified.publicKey,
      },
      200,
    );
  });
}
