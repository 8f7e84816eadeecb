/**
 * `POST /keys` (docs/protocol.md §1, §3): mints an API key; the raw key is returned only here.
 * @module
 */
import { createRoute, z } from "@hono/zod-openapi";
import { createApiKey } from "@verifiable-memory/auth";
import {
  errorResponse,
  NoQuerySchema,
  rateLimitedResponse,
  unauthorizedResponse,
} from "@verifiable-memory/http-kit";
import type { App, AppDeps } from "../../context.js";
import { ApiError } from "../../errors.js";
import { requireAuth, requireSession } from "../../middleware/bearer.js";
import { bearerSecurity } from "../../schemas.js";
import { CreateKeyBodySchema, keyGrantFields, keyGrantView } from "./_schema.js";

export const CreatedKeySchema = z
  .object({
    id: z.string(),
    key: z.string(),
    prefix: z.string(),
    label: z.string(),
    createdAt: z.string(),
    ...keyGrantFields,
  })
  .openapi("CreatedApiKey");
export type KeysPostResponse = z.infer<typeof CreatedKeySchema>;

/** Registers `POST /keys`. */
export function registerPostKeys(app: App, deps: AppDeps): void {
  const route = createRoute({
    method: "post",
    path: "/keys",
    operationId: "createApiKey",
    tags: ["api keys"],
    summary: "Mint an API key (needs a wallet session)",
    security: bearerSecurity,
    middleware: [requireAuth(deps), requireSession()] as const,
    request: {
      query: NoQuerySchema,
      body: {
        required: true,
        content: {
          "application/json": {
            schema: CreateKeyBodySchema,
          },
        },
      },
    },
    responses: {
      201: {
        description: "The new key (shown once)",
        content: { "application/json": { schema: CreatedKeySchema } },
      },
      400: errorResponse("invalid_request"),
      401: unauthorizedResponse(),
      429: rateLimitedResponse("rate_limited: too many requests with this credential"),
      403: errorResponse("session_required"),
    },
  });
  app.openapi(route, async (c) => {
    const { label, scopes, expiresAt, namespace } = c.req.valid("json");
    const expires = expiresAt === undefined ? null : new Date(expiresAt);
    if (expires !== null && expires.getTime() <= deps.clock.now().getTime()) {
      throw new ApiError("invalid_request", "expiresAt must be in the future", [
        { path: ["expiresAt"], message: "must be in the future" },
      ]);
    }
    const created = await createApiKey(deps.db, c.var.auth.userId, {
      label,
      scopes,
      expiresAt: expires,
      namespace,
    });
    return c.json(
      {
        id: created.id,
        key: created.key,
        prefix: created.prefix,
        label: created.label,
        createdAt: created.createdAt.toISOString(),
        ...keyGrantView(created),
      },
      201,
    );
  });
}
