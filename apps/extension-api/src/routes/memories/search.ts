/**
 * `POST /memories/search` on the extension API (docs/protocol.md §9.4 "Routes with the token"):
 * substring recall over the caller's memories, newest first, with a metadata filter; one page
 * (no namespace, time filter, rank or cursor).
 * @module
 */
import { registerSearchMemoriesRoute } from "@verifiable-memory/http-kit";
import { ExtensionSearchBodySchema, ExtensionSearchResultSchema } from "@verifiable-memory/memory";
import type { App, AppDeps, Services } from "../../context.js";
import { requireExtensionToken } from "../../middleware/token.js";
import { bearerSecurity } from "../../schemas.js";

/** Registers `POST /memories/search`. */
export function registerSearchMemories(app: App, deps: AppDeps, services: Services): void {
  registerSearchMemoriesRoute(app, {
    summary: "Recall memories by substring (not semantic), newest first",
    security: bearerSecurity,
    middleware: [requireExtensionToken(deps)],
    body: ExtensionSearchBodySchema,
    answer: ExtensionSearchResultSchema,
    handle: async (c, body) => {
      const auth = c.var.auth;
      const { items, scanned } = await services.memories.search(auth, services.dataKeys.of(auth), {
        ...body,
        rank: "recency",
      });
      return { items, scanned };
    },
  });
}
