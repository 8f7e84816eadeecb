/**
 * `POST /keys` (docs/protocol.md §1, §3): mints an API key; the raw key is returned only here.
 * @module
 */
import { createRoute, z } from "@hono/zod-openapi";
import { createApiKey } from "@svc/auth";
import { errorResponse, NoQuerySchema, rateLimitedResponse, withoutNul } from "@svc/http-kit";
import type { App, AppDeps } from "../../context.js";
import { requireAuth, requireSession } from "../../middleware/bearer.js";
import { bearerSecurity } from "../../schemas.js";

export const CreatedKeySchema = z
  .object({
    id: z.string(),
    key: z.string(),
    prefix: z.string(),
    label: z.string(),
    createdAt: z.string(),
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
            schema: z.strictObject({ label: withoutNul(z.string().min(1).max(100)) }),
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
      401: errorResponse("unauthorized"),
      429: rateLimitedResponse("rate_limited: too many requests with this credential"),
      403: errorResponse("session_required"),
    },
  });
  app.openapi(route, async (c) => {
    const { label } = c.req.valid("json");
    const created = await createApiKey(deps.db, c.var.auth.userId, label);
    return c.json({ ...created, createdAt: created.createdAt.toISOString() }, 201);
  });
}
