/**
 * `DELETE /keys/:id` (docs/protocol.md §1, §3): revokes one of the caller's keys, effective on the
 * next request, with every grant the key created (docs/protocol.md §8 "Capability grants") in the
 * same transaction; idempotent (204 again); another user's or an unknown id is 404.
 * @module
 */
import { createRoute } from "@hono/zod-openapi";
import { revokeApiKey, revokeGrantsOfKey } from "@verifiable-memory/db-schema";
import {
  errorResponse,
  NoQuerySchema,
  rateLimitedResponse,
  unauthorizedResponse,
} from "@verifiable-memory/http-kit";
import type { App, AppDeps } from "../../context.js";
import { ApiError } from "../../errors.js";
import { requireAuth, requireSession } from "../../middleware/bearer.js";
import { bearerSecurity, IdParamSchema } from "../../schemas.js";

/** Registers `DELETE /keys/:id`. */
export function registerDeleteKeys(app: App, deps: AppDeps): void {
  const route = createRoute({
    method: "delete",
    path: "/keys/{id}",
    operationId: "revokeApiKey",
    tags: ["api keys"],
    summary: "Revoke an API key",
    security: bearerSecurity,
    middleware: [requireAuth(deps), requireSession()] as const,
    request: {
      query: NoQuerySchema,
      params: IdParamSchema,
    },
    responses: {
      204: { description: "Revoked" },
      401: unauthorizedResponse(),
      429: rateLimitedResponse("rate_limited: too many requests with this credential"),
      403: errorResponse("session_required"),
      404: errorResponse("not_found"),
    },
  });
  app.openapi(route, async (c) => {
    const { id } = c.req.valid("param");
    const { userId } = c.var.auth;
    const now = deps.clock.now();
    const found = await deps.db
      .transaction(async (tx) => {
        const revoked = await revokeApiKey(tx, userId, id, now);
        if (revoked) {
          await revokeGrantsOfKey(tx, userId, id, now);
        }
        return revoked;
      })
      .catch((error: { code?: string }) => {
        if (error.code === "22P02") {
          return false;
        }
        throw error;
      });
    if (!found) {
      throw new ApiError("not_found", "no such key");
    }
    return c.body(null, 204);
  });
}
