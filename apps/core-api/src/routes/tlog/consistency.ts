/**
 * `GET /tlog/consistency?from=M&to=N` (public; docs/protocol.md §13.5 "The checkpoint log"; RFC
 * 9162 §2.1.4): the consistency proof between two signed sizes of the checkpoint log, hashes only,
 * in the JSON shape of `GET /owners/{owner}/consistency` without `owner`. A verifier holding a
 * proof bundle whose `checkpointLog` was cut at an older anchored head bridges it to the checkpoint
 * log account on chain now; it checks the proof against roots it trusts, never `fromRoot`/`toRoot`.
 * Counted against the per-IP limit of the `/tlog/` routes.
 * @module
 */
import { createRoute, z } from "@hono/zod-openapi";
import { errorResponse, type RateLimits, rateLimitedResponse } from "@verifiable-memory/http-kit";
import { checkpointLogConsistency } from "@verifiable-memory/memory";
import { queryInteger } from "@verifiable-memory/memory-schemas";
import type { MiddlewareHandler } from "hono";
import type { App, AppDeps, AppEnv } from "../../context.js";

const hex = (description: string) =>
  z.string().openapi({ description: `${description}, 64 lowercase hex characters` });

const CheckpointLogConsistencySchema = z
  .object({
    from: z.number().int(),
    to: z.number().int(),
    fromRoot: hex("root of the checkpoint log of `from` entries (informative)"),
    toRoot: hex("root of the checkpoint log of `to` entries (informative)"),
    proof: z.array(hex("a node of PROOF(from, D[to]) (RFC 9162 §2.1.4.1)")),
  })
  .openapi("CheckpointLogConsistencyProof");

const size = queryInteger(1, Number.MAX_SAFE_INTEGER);

/** Registers `GET /tlog/consistency`, counted by `limits` (the `/tlog/` routes' per-IP limit). */
export function registerGetTlogConsistency(app: App, deps: AppDeps, limits: RateLimits): void {
  const limit: MiddlewareHandler<AppEnv> = async (c, next) => {
    await limits.chargeClientIp(c);
    await next();
  };
  const route = createRoute({
    method: "get",
    path: "/tlog/consistency",
    operationId: "getCheckpointLogConsistency",
    tags: ["proofs"],
    summary: "Public RFC 9162 consistency proof between two signed sizes of the checkpoint log",
    description:
      "No credential. Answers PROOF(from, D[to]) of the checkpoint log for 1 ≤ from ≤ to ≤ the size of its latest signed checkpoint (`/tlog/checkpoint`). Hashes only. A verifier holding a bundle's `checkpointLog` cut at size `from` checks the proof between its `rootHash` and the root read from the checkpoint log account at size `to`, and never trusts `fromRoot`/`toRoot`. Counted against the client IP's limit of the `/tlog/` routes (RATE_LIMIT_TLOG_PER_MINUTE).",
    security: [],
    middleware: [limit] as const,
    request: { query: z.strictObject({ from: size, to: size }) },
    responses: {
      200: {
        description: "The proof and both roots",
        content: { "application/json": { schema: CheckpointLogConsistencySchema } },
      },
      400: errorResponse(
        "invalid_request: a missing, non-decimal or zero size, an unknown query parameter, from > to (details path from), or to past the latest signed size (details path to)",
      ),
      429: rateLimitedResponse("rate_limited: too many requests from this client IP"),
    },
  });
  app.openapi(route, async (c) => {
    const { from, to } = c.req.valid("query");
    return c.json(await checkpointLogConsistency(deps.db, from, to), 200);
  });
}
