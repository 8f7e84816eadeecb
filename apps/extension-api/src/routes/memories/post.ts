/**
 * `POST /memories` on the extension API (docs/protocol.md §9.4 "Routes with the token"): content
 * and metadata, encrypted and appended to the caller's Merkle log as core-api's `POST /memories`
 * does (no namespace).
 * @module
 */
import { registerCreateMemoryRoute } from "@verifiable-memory/http-kit";
import { CreatedMemorySchema, ExtensionCreateMemoryBodySchema } from "@verifiable-memory/memory";
import type { App, AppDeps, Services } from "../../context.js";
import { requireExtensionToken } from "../../middleware/token.js";
import { bearerSecurity } from "../../schemas.js";

/** Registers `POST /memories`. */
export function registerPostMemories(app: App, deps: AppDeps, services: Services): void {
  registerCreateMemoryRoute(app, {
    summary: "Remember: store a memory (encrypted at rest, appended to the wallet's Merkle log)",
    security: bearerSecurity,
    middleware: [requireExtensionToken(deps)],
    body: ExtensionCreateMemoryBodySchema,
    answer: CreatedMemorySchema,
    handle: (c, { content, metadata }) => {
      const auth = c.var.auth;
      return services.memories.create(auth, services.dataKeys.of(auth), {
        content,
        metadata: metadata ?? {},
      });
    },
  });
}
