/**
 * `GET /agent-cases/:token` (docs/protocol.md §1, §8): uses a capability grant with no other
 * credential, limited per client IP (docs/protocol.md §12). Every attempt, whatever its outcome, is
 * counted and audited (the client IP as the rate limit sees it: the socket's address, or
 * `X-Forwarded-For` with TRUST_PROXY; the user agent from the request). The answer is marked
 * `cache-control: no-store`. HEAD is 405 and spends nothing.
 * @module
 */

import { createRoute } from "@hono/zod-openapi";
import {
  clientIp,
  errorResponse,
  limitPerClientIp,
  NoQuerySchema,
  rateLimitedResponse,
} from "@verifiable-memory/http-kit";
import type { App, AppDeps, AppEnv, Services } from "../../context.js";
import { ApiError } from "../../errors.js";
import { GrantParamSchema, GrantUseSchema } from "./_schema.js";

/** Registers `GET /agent-cases/:token`. */
export function registerUseAgentCase(app: App, deps: AppDeps, services: Services): void {
  const route = createRoute({
    method: "get",
    path: "/agent-cases/{grant}",
    operationId: "useGrant",
    security: [],
    middleware: [limitPerClientIp<AppEnv>()] as const,
    tags: ["capability grants"],
    summary: "Use a capability grant (the token is the credential)",
    request: {
      query: NoQuerySchema,
      params: GrantParamSchema,
    },
    responses: {
      200: {
        description: "The granted memories, each with its proof bundle",
        content: { "application/json": { schema: GrantUseSchema } },
      },
      404: errorResponse("not_found: unknown token"),
      405: errorResponse("method_not_allowed: HEAD (a use has a side effect)"),
      410: errorResponse("grant_revoked, grant_expired or grant_exhausted"),
      429: rateLimitedResponse("rate_limited: too many requests from this client IP"),
    },
  });
  app.openapi(route, async (c) => {
    if (c.req.method === "HEAD") {
      // hono answers HEAD with the GET route; a use has a side effect (it spends one of the
      // grant's uses), so a HEAD, which must have none, is refused instead.
      c.header("allow", "GET");
      throw new ApiError("method_not_allowed", "use GET: a use spends one of the grant's uses");
    }
    const answer = await services.grants.use(c.req.valid("param").grant, {
      ip: clientIp(c, deps.config.trustProxy),
      userAgent: c.req.header("user-agent") ?? null,
    });
    // The answer holds plaintext reached by a bearer URL: no cache may keep it, no link leaks it.
    c.header("cache-control", "no-store");
    c.header("referrer-policy", "no-referrer");
    return c.json(answer, 200);
  });
}
