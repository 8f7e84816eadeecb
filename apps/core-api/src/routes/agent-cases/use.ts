/**
 * `GET /agent-cases/:token` (spec §4; CONTRACT §7, §11): uses a capability grant with no other
 * credential. Every attempt, whatever its outcome, is counted and audited (client IP from the
 * socket, user agent from the request). The answer is marked `cache-control: no-store`.
 * @module
 */

import { getConnInfo } from "@hono/node-server/conninfo";
import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { App, AppDeps, Services } from "../../context.js";
import { errorResponse } from "../../schemas.js";
import { GrantUseSchema } from "./_schema.js";

/** Registers `GET /agent-cases/:token`. */
export function registerUseAgentCase(app: App, _deps: AppDeps, services: Services): void {
  const route = createRoute({
    method: "get",
    path: "/agent-cases/{token}",
    tags: ["capability grants"],
    summary: "Use a capability grant (the token is the credential)",
    request: {
      params: z.object({
        token: z.string().openapi({ param: { name: "token", in: "path" } }),
      }),
    },
    responses: {
      200: {
        description: "The granted memories, each with its proof bundle",
        content: { "application/json": { schema: GrantUseSchema } },
      },
      404: errorResponse("not_found: unknown token"),
      410: errorResponse("grant_revoked, grant_expired or grant_exhausted"),
    },
  });
  app.openapi(route, async (c) => {
    const answer = await services.grants.use(c.req.valid("param").token, {
      ip: clientIp(c),
      userAgent: c.req.header("user-agent") ?? null,
    });
    // The answer holds plaintext reached by a bearer URL: no cache may keep it, no link leaks it.
    c.header("cache-control", "no-store");
    c.header("referrer-policy", "no-referrer");
    return c.json(answer, 200);
  });
}

/** The peer address of the request's socket, or null when there is none (in-process requests). */
function clientIp(c: Context): string | null {
  try {
    return getConnInfo(c).remote.address ?? null;
  } catch {
    return null;
  }
}
