/**
 * `POST /memories/batch` (docs/protocol.md §4.1 "The memory record"): encrypts 1–256 memories and
 * appends them to the caller's Merkle log at once, all or nothing, at contiguous leaf indices.
 * @module
 */
import { createRoute } from "@hono/zod-openapi";
import {
  errorResponse,
  NoQuerySchema,
  rateLimitedResponse,
  unauthorizedResponse,
} from "@verifiable-memory/http-kit";
import { CreatedMemoriesSchema, CreateMemoriesBodySchema } from "@verifiable-memory/memory";
import type { App, AppDeps, Services } from "../../context.js";
import { requireAuth, requireScopes } from "../../middleware/bearer.js";
import { expectAppend } from "../../middleware/expect-append.js";
import { bearerSecurity } from "../../schemas.js";

/** Registers `POST /memories/batch` (its 1 MiB body limit is set in createApp). */
export function registerPostMemoriesBatch(app: App, deps: AppDeps, services: Services): void {
  const route = createRoute({
    method: "post",
    path: "/memories/batch",
    operationId: "createMemories",
    tags: ["memories"],
    summary: "Store 1–256 memories at once (all or nothing, contiguous leaves, request order)",
    description:
      "Each item is a `POST /memories` body; the body may be up to 1 MiB. An invalid item " +
      'fails the whole request (400, `details[].path` such as `["items", 3, "content"]`) and ' +
      "nothing is stored.",
    security: bearerSecurity,
    middleware: [
      expectAppend(services.appendQueue),
      requireAuth(deps),
      requireScopes("memories:write"),
    ] as const,
    request: {
      query: NoQuerySchema,
      body: {
        required: true,
        content: { "application/json": { schema: CreateMemoriesBodySchema } },
      },
    },
    responses: {
      201: {
        description: "The stored memories' leaves, in request order",
        content: { "application/json": { schema: CreatedMemoriesSchema } },
      },
      400: errorResponse("invalid_request"),
      401: unauthorizedResponse(),
      403: errorResponse(
        "insufficient_scope, or forbidden: a namespace outside the API key's confinement",
      ),
      413: errorResponse("payload_too_large"),
      415: errorResponse("unsupported_media_type"),
      429: rateLimitedResponse("rate_limited: too many requests with this credential"),
    },
  });
  app.openapi(route, async (c) => {
    const { items } = c.req.valid("json");
    const auth = c.var.auth;
    const created = await services.memories.createAll(
      auth,
      services.dataKeys.of(auth),
      items.map(({ content, metadata, namespace }) => ({
        content,
        metadata: metadata ?? {},
        namespace,
      })),
      c.var.expectedAppend,
    );
    return c.json({ items: created }, 201);
  });
}
