/**
 * `POST /memories/search` (docs/protocol.md §4.5 "Recall"): recall over the caller's memories,
 * substring or filter (newest first), BM25 relevance, semantic or hybrid ranking (embeddings),
 * with metadata operators, namespaces and a cursor.
 * @module
 */
import { registerSearchMemoriesRoute } from "@verifiable-memory/http-kit";
import { SearchBodySchema, SearchResultSchema, searchInputOf } from "@verifiable-memory/memory";
import type { App, AppDeps, Services } from "../../context.js";
import { openRequestCursor, sealPageCursor } from "../../cursors.js";
import { requireAuth, requireScopes } from "../../middleware/bearer.js";
import { bearerSecurity } from "../../schemas.js";

/** Registers `POST /memories/search`. */
export function registerSearchMemories(app: App, deps: AppDeps, services: Services): void {
  registerSearchMemoriesRoute(app, {
    summary:
      "Recall memories: substring or filter (newest first), BM25 relevance, semantic (embeddings) or hybrid ranking, with metadata operators, namespaces and a cursor",
    security: bearerSecurity,
    middleware: [requireAuth(deps), requireScopes("memories:read")],
    body: SearchBodySchema,
    answer: SearchResultSchema,
    forbidden: "insufficient_scope",
    handle: async (c, body) => {
      const auth = c.var.auth;
      const input = { ...searchInputOf(body), cursor: openRequestCursor(deps.config, body.cursor) };
      const page = await services.memories.search(auth, services.dataKeys.of(auth), input);
      return sealPageCursor(deps.config, page);
    },
  });
}
