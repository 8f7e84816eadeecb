/**
 * `GET /owners/{owner}/consistency?from=M&to=N` (public; docs/protocol.md §6.3, §12; RFC 9162
 * §2.1.4): the consistency proof between two ANCHORED sizes of an owner's log, hashes only (no
 * content, no leaf data). With it anyone holding a proof bundle cut at an older anchored size M
 * can bridge it to the root committed on chain now (size N), without the owner's credential:
 * `@verifiable-memory/verifier` checks the proof against the bundle's root and the on-chain root, never against
 * the roots this route reports. Limited per client IP like the other unauthenticated routes.
 * @module
 */

import { createRoute, z } from "@hono/zod-openapi";
import { errorResponse, limitPerClientIp, rateLimitedResponse } from "@verifiable-memory/http-kit";
import { queryInteger } from "@verifiable-memory/memory-schemas";
import type { App, AppDeps, AppEnv, Services } from "../../context.js";

const hex = (description: string) =>
  z.string().openapi({ description: `${description}, 64 lowercase hex characters` });

const OwnerConsistencySchema = z
  .object({
    owner: z.string().openapi({ description: "the owner's wallet public key, base58" }),
    from: z.number().int(),
    to: z.number().int(),
    fromRoot: hex("root of the owner's tree of `from` leaves (informative: verify against yours)"),
    toRoot: hex("root of the owner's tree of `to` leaves (informative: verify against the chain)"),
    proof: z.array(hex("a node of PROOF(from, D[to]) (RFC 9162 §2.1.4.1)")),
  })
  .openapi("OwnerConsistencyProof");

const size = queryInteger(1, Number.MAX_SAFE_INTEGER);

/** `{owner}`: a base58 wallet public key (32–44 characters of the Bitcoin alphabet). */
export const OwnerParamSchema = z.object({
  owner: z
    .string()
    .regex(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/, "must be a base58 public key")
    .openapi({
      param: { name: "owner", in: "path" },
      description: "the owner's wallet public key, base58 (the commitment account's seed)",
    }),
});

/** Registers `GET /owners/{owner}/consistency`. */
export function registerGetOwnerConsistency(app: App, _deps: AppDeps, services: Services): void {
  const route = createRoute({
    method: "get",
    path: "/owners/{owner}/consistency",
    operationId: "getOwnerConsistency",
    tags: ["proofs"],
    summary: "Public RFC 9162 consistency proof between two anchored sizes of an owner's log",
    description:
      "No credential. Answers PROOF(from, D[to]) of the owner's log for 1 ≤ from ≤ to ≤ the size of the owner's latest anchored checkpoint (only anchored sizes are public; the chain shows `memoryCount` anyway). Hashes only. A verifier holding a proof bundle cut at size `from` checks the proof between the bundle's root and the root read from the chain at size `to`, and never trusts `fromRoot`/`toRoot`. Counted against the client IP's limit of unauthenticated routes.",
    security: [],
    middleware: [limitPerClientIp<AppEnv>()] as const,
    request: {
      params: OwnerParamSchema,
      query: z.strictObject({ from: size, to: size }),
    },
    responses: {
      200: {
        description: "The proof and both roots",
        content: { "application/json": { schema: OwnerConsistencySchema } },
      },
      400: errorResponse(
        "invalid_request: a malformed owner or size, or not 1 ≤ from ≤ to ≤ the latest anchored size",
      ),
      404: errorResponse("not_found: no user with this key, or a log never anchored"),
      429: rateLimitedResponse("rate_limited: too many requests from this client IP"),
    },
  });
  app.openapi(route, async (c) => {
    const { owner } = c.req.valid("param");
    const { from, to } = c.req.valid("query");
    return c.json(await services.proofs.ownerConsistency(owner, from, to), 200);
  });
}
