/**
 * `DELETE /keys/:id` (spec §4, CONTRACT §3): revokes one of the caller's keys, effective on the
 * next request; idempotent (204 again); another user's or an unknown id is 404.
 * @module
 */
import { createRoute } from "@hono/zod-openapi";
import { revokeApiKey } from "@svc/db-schema";
import type { App, AppDeps } from "../../context.js";
import { ApiError } from "../../errors.js";
import { requireAuth, requireSession } from "../../middleware/bearer.js";
import { bearerSecurity, errorResponse, IdParamSchema } from "../../schemas.js";

/** Registers `DELETE /keys/:id`. */
export function registerDeleteKeys(app: App, deps: AppDeps): void {
  const route = createRoute({
    method: "delete",
    path: "/keys/{id}",
    tags: ["api keys"],
    summary: "Revoke an API key",
    security: bearerSecurity,
    middleware: [requireAuth(deps), requireSession()] as const,
    request: { params: IdParamSchema },
    responses: {
      204: { description: "Revoked" },
      401: errorResponse("unauthorized"),
      403: errorResponse("session_required"),
      404: errorResponse("not_found"),
    },
  });
  app.openapi(route, async (c) => {
    const { id } = c.req.valid("param");
    const found = await revokeApiKey(deps.db, c.var.auth.userId, id, deps.clock.now()).catch(
      (error: { code?: string }) => {
        if (error.code === "22P02") {
          return false;
        }
        throw error;
      },
    );
    if (!found) {
      throw new ApiError("not_found", "no such key");
    }
    return c.body(null, 204);
  });
}
