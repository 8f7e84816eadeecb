/**
 * `POST /memories` (docs/protocol.md §4.1 "The memory record"): encrypts and appends a memory to
 * the caller's Merkle log.
 * @module
 */
import { registerCreateMemoryRoute } from "@verifiable-memory/http-kit";
import { CreatedMemorySchema, CreateMemoryBodySchema } from "@verifiable-memory/memory";
import type { App, AppDeps, Services } from "../../context.js";
import { requireAuth, requireScopes } from "../../middleware/bearer.js";
import { expectAppend } from "../../middleware/expect-append.js";
import { bearerSecurity } from "../../schemas.js";

/** Registers `POST /memories`. */
export function registerPostMemories(app: App, deps: AppDeps, services: Services): void {
  registerCreateMemoryRoute(app, {
    summary: "Store a memory (encrypted at rest, appended to the caller's Merkle log)",
    security: bearerSecurity,
    middleware: [
      expectAppend(services.appendQueue),
      requireAuth(deps),
      requireScopes("memories:write"),
    ],
    body: CreateMemoryBodySchema,
    answer: CreatedMemorySchema,
    forbidden: "insufficient_scope, or forbidden: a namespace outside the API key's confinement",
    handle: (c, { content, metadata, namespace }) => {
      const auth = c.var.auth;
      return services.memories.create(
        auth,
        services.dataKeys.of(auth),
        { content, metadata: metadata ?? {}, namespace },
        c.var.expectedAppend,
      );
    },
  });
}
