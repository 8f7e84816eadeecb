/**
 * `GET /owners/{owner}/checkpoint` (public; docs/protocol.md §13.3 "User checkpoints"): the
 * owner's latest ANCHORED checkpoint as a C2SP signed note (tlog-checkpoint) signed with the log
 * key, origin `<LOG_ORIGIN>/users/<owner>`. The note is signed on request: Ed25519 is
 * deterministic, so the same checkpoint always gives the same bytes, and only (size, root) pairs
 * confirmed on chain are ever signed. Limited per client IP like the other unauthenticated routes.
 * @module
 */
import { createRoute, z } from "@hono/zod-openapi";
import { errorResponse, limitPerClientIp, rateLimitedResponse } from "@verifiable-memory/http-kit";
import { MemoryDomainError } from "@verifiable-memory/memory";
import { formatCheckpoint, signNote, userLogOrigin } from "@verifiable-memory/signed-note";
import type { App, AppDeps, AppEnv, Services } from "../../context.js";
import { OwnerParamSchema } from "./consistency.js";

const NOTE_TYPE = "text/plain; charset=utf-8";

/** Registers `GET /owners/{owner}/checkpoint`. */
export function registerGetOwnerCheckpoint(app: App, deps: AppDeps, services: Services): void {
  const route = createRoute({
    method: "get",
    path: "/owners/{owner}/checkpoint",
    operationId: "getOwnerCheckpoint",
    tags: ["proofs"],
    summary: "The owner's latest anchored checkpoint, a signed note (C2SP tlog-checkpoint)",
    description:
      "No credential. The note text is `<LOG_ORIGIN>/users/<owner>`, the anchored tree size and the base64 root, each line ending in a newline; one signature line by the log key (key name LOG_ORIGIN, its verifier key in `GET /info` logKey). Verify it with that key, then compare size and root with the owner's commitment account on chain. Counted against the client IP's limit of unauthenticated routes.",
    security: [],
    middleware: [limitPerClientIp<AppEnv>()] as const,
    request: { params: OwnerParamSchema, query: z.strictObject({}) },
    responses: {
      200: {
        description: "The signed checkpoint",
        content: { "text/plain": { schema: z.string() } },
      },
      400: errorResponse("invalid_request: a malformed owner, or a query parameter"),
      404: errorResponse(
        "not_found: no user with this key, a log never anchored, or no log key configured",
      ),
      429: rateLimitedResponse("rate_limited: too many requests from this client IP"),
    },
  });
  const { logKey } = deps.config;
  app.openapi(route, async (c) => {
    const { owner } = c.req.valid("param");
    if (!logKey) {
      throw new MemoryDomainError("not_found", "this deployment has no log key");
    }
    const checkpoint = await services.proofs.ownerLatestCheckpoint(owner);
    const text = formatCheckpoint({
      origin: userLogOrigin(logKey.origin, owner),
      size: checkpoint.treeSize,
      rootHash: checkpoint.root,
      extensions: [],
    });
    return c.text(signNote(text, [logKey.signer]), 200, {
      "content-type": NOTE_TYPE,
      "cache-control": "no-cache",
    });
  });
}
