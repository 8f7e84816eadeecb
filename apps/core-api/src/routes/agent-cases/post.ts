/**
 * `POST /agent-cases` (docs/protocol.md §8): creates a capability grant over the caller's memories (JWT or
 * API key). The token and URL are in this answer only.
 * @module
 */
import { createRoute } from "@hono/zod-openapi";
import {
  errorResponse,
  NoQuerySchema,
  rateLimitedResponse,
  unauthorizedResponse,
} from "@verifiable-memory/http-kit";
import type { App, AppDeps, Services } from "../../context.js";
import { requireAuth, requireScopes } from "../../middleware/bearer.js";
import { bearerSecurity } from "../../schemas.js";
import { CreatedGrantSchema, CreateGrantBodySchema } from "./_schema.js";

/** Registers `POST /agent-cases`. */
export function registerPostAgentCases(app: App, deps: AppDeps, services: Services): void {
  const route = createRoute({
    method: "post",
    path: "/agent-cases",
    operationId: "createGrant",
    tags: ["capability grants"],
    summary: "Share one operation through a capability URL",
    description:
      "Needs grants:write and the scopes of the delegated operation (memories:read for read_memories and search). A grant created by an API key is revoked with that key, and from its expiry on.",
    security: bearerSecurity,
    middleware: [requireAuth(deps), requireScopes("grants:write")] as const,
    request: {
      query: NoQuerySchema,
      body: { required: true, content: { "application/json": { schema: CreateGrantBodySchema } } },
    },
    responses: {
      201: {
        description: "The grant, with its token and URL (shown once)",
        content: { "application/json": { schema: CreatedGrantSchema } },
      },
      400: errorResponse("invalid_request"),
      401: unauthorizedResponse(),
      403: errorResponse(
        "insufficient_scope: the credential lacks grants:write or a scope of the operation it delegates (memories:read)",
      ),
      429: rateLimitedResponse("rate_limited: too many requests with this credential"),
      404: errorResponse("not_found: a named memory is not the caller's live memory"),
    },
  });
  app.openapi(route, async (c) => {
    const created = await services.grants.create(c.var.auth, c.req.valid("json"));
    return c.json(created, 201);
  });
}
