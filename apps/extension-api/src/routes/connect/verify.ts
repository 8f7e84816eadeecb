/**
 * `POST /connect/verify` (docs/protocol.md §9): the five sign-in checks of docs/protocol.md §2, then an extension
 * token and the redirect that delivers it in a fragment.
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
import { PublicKeySchema, RedirectUriSchema, StateSchema } from "./_schema.js";

const ConnectedSchema = z
  .object({
    token: z.string().openapi({ description: "Opaque extension token (base58, 32 random bytes)" }),
    expiresAt: z.string(),
    redirectTo: z.string().openapi({ description: "redirectUri#token=…&state=…" }),
  })
  .openapi("Connected");

const route = createRoute({
  method: "post",
  path: "/connect/verify",
  operationId: "verifyConnect",
  security: [],
  middleware: [limitPerClientIp<AppEnv>()] as const,
  tags: ["connect"],
  summary: "Verify the signed challenge and get an extension token",
  request: {
    query: NoQuerySchema,
    body: {
      required: true,
      content: {
        "application/json": {
          schema: z.strictObject({
            publicKey: PublicKeySchema,
            message: z.string().min(1).max(4096),
            signature: z
              .string()
              .min(1)
              .max(128)
              .regex(/^[1-9A-HJ-NP-Za-km-z]+$/, "must be base58"),
            redirectUri: RedirectUriSchema,
            state: StateSchema.optional(),
          }),
        },
      },
    },
  },
  responses: {
    200: {
      description: "Connected",
      content: { "application/json": { schema: ConnectedSchema } },
    },
    400: errorResponse(
      "invalid_request, invalid_public_key, malformed_message or invalid_redirect_uri",
    ),
    401: errorResponse("nonce_not_found, challenge_expired, message_mismatch or invalid_signature"),
    429: rateLimitedResponse("rate_limited: too many requests from this client IP"),
  },
});

/** Registers `POST /connect/verify`. */
export function registerPostConnectVerify(app: App, services: Services): void {
  app.openapi(route, async (c) => {
    const connected = await services.connect.verify(c.req.valid("json"));
    c.header("cache-control", "no-store");
    return c.json(
      { token: connected.token, expiresAt: connected.expiresAt, redirectTo: connected.redirectTo },
      200,
    );
  });
}
