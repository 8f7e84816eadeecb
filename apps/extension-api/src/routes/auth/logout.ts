/**
 * `POST /auth/logout` (docs/protocol.md §1, §9): revokes the extension token server-side; the next
 * request with it is 401.
 * @module
 */
import { createRoute } from "@hono/zod-openapi";
import { revokeExtensionToken } from "@verifiable-memory/auth";
import {
  NoQuerySchema,
  rateLimitedResponse,
  unauthorizedResponse,
} from "@verifiable-memory/http-kit";
import type { App, AppDeps } from "../../context.js";
import { requireExtensionToken } from "../../middleware/token.js";
import { bearerSecurity } from "../../schemas.js";

/** Registers `POST /auth/logout`. */
export function registerPostLogout(app: App, deps: AppDeps): void {
  const route = createRoute({
    method: "post",
    path: "/auth/logout",
    operationId: "logout",
    tags: ["session"],
    summary: "Revoke this extension token",
    security: bearerSecurity,
    middleware: [requireExtensionToken(deps)] as const,
    request: { query: NoQuerySchema },
    responses: {
      204: { description: "Revoked" },
      401: unauthorizedResponse(),
      429: rateLimitedResponse("rate_limited: too many requests with this credential"),
    },
  });
  app.openapi(route, async (c) => {
    await revokeExtensionToken({ db: deps.db, clock: deps.clock }, c.var.auth);
    return c.body(null, 204);
  });
}
