/**
 * The MCP tools' backend over core-api's in-process services (`@verifiable-memory/mcp`'s `MemoryBackend`),
 * acting as the authenticated caller of `POST /mcp`. Its arguments were validated by the MCP server
 * with the HTTP routes' own schemas (`@verifiable-memory/memory-schemas`); here apply the same scopes
 * (`memories:write` to remember and update, `memories:read` to recall, list, get, history, prove and
 * verify, `memories:delete` to forget) and the caller's namespace confinement, through the memory
 * services themselves.
 * @module
 */
import { type AuthContext, AuthError, requireScope } from "@verifiable-memory/auth";
import { ChainUnavailableError } from "@verifiable-memory/chain-commit";
import { InvalidCursorError } from "@verifiable-memory/db-schema";
import { isDatabaseUnavailable } from "@verifiable-memory/http-kit";
import {
  BackendError,
  type IdOptions,
  type MemoryBackend,
  withinNamespace,
} from "@verifiable-memory/mcp/backend";
import { MemoryDomainError, searchInputOf } from "@verifiable-memory/memory";
import type { Services } from "../../context.js";
import { openRequestCursor, sealPageCursor } from "../../cursors.js";
import type { Config } from "../../env.js";

/**
 * The typed errors of the packages as the tools' refusals, with the codes the HTTP routes answer
 * (apps/core-api/src/errors.ts); anything else is rethrown (the tool answers `internal`).
 */
function translate(error: unknown): never {
  if (error instanceof AuthError || error instanceof MemoryDomainError) {
    throw new BackendError(error.code, error.message, (error as { details?: unknown }).details);
  }
  if (error instanceof InvalidCursorError) {
    throw new BackendError("invalid_request", "invalid cursor");
  }
  if (error instanceof ChainUnavailableError) {
    throw new BackendError("chain_unavailable", "the chain RPC is unavailable; try again later");
  }
  if (error instanceof Error && isDatabaseUnavailable(error)) {
    throw new BackendError("database_unavailable", "the database does not answer; try again later");
  }
  throw error;
}

/** Runs a service call, translating its errors. */
async function call<T>(body: () => Promise<T> | T): Promise<T> {
  try {
    return await body();
  } catch (error) {
    translate(error);
  }
}

/**
 * The caller narrowed to the MCP server's own confinement (`confinedTo`, a namespace prefix), on
 * top of the credential's: the memory services then treat anything outside it as not found. A
 * confinement that does not overlap the credential's sees nothing.
 */
function narrowed(auth: AuthContext, options: IdOptions | undefined): AuthContext {
  const confinedTo = options?.confinedTo;
  if (confinedTo === undefined) {
    return auth;
  }
  if (withinNamespace(confinedTo, auth.namespace)) {
    return { ...auth, namespace: confinedTo };
  }
  if (auth.namespace?.startsWith(confinedTo)) {
    return auth;
  }
  throw new BackendError("not_found", "memory not found");
}

/**
 * The tools' backend for `auth`, the caller of one `POST /mcp` request, over `services`.
 * @param services the app's services (memory domain).
 * @param config the app's configuration: `recall`'s cursors are sealed under its `JWT_SECRET` as
 *   the HTTP routes' are (docs/protocol.md §1.6 "Content limits and pagination").
 * @param auth the caller resolved by the bearer middleware (scopes, confinement, data key).
 */
export function servicesBackend(
  services: Services,
  config: Config,
  auth: AuthContext,
): MemoryBackend {
  return {
    async remember(input) {
      await call(() => requireScope(auth, "memories:write"));
      return call(() =>
        services.memories.create(auth, services.dataKeys.of(auth), {
          content: input.content,
          metadata: input.metadata ?? {},
          namespace: input.namespace,
        }),
      );
    },

    async recall(input) {
      await call(() => requireScope(auth, "memories:read"));
      const result = await call(() =>
        services.memories.search(auth, services.dataKeys.of(auth), {
          ...searchInputOf(input),
          cursor: openRequestCursor(config, input.cursor),
        }),
      );
      return sealPageCursor(config, { items: result.items, nextCursor: result.nextCursor });
    },

    async get(id, options) {
      return call(() => {
        requireScope(auth, "memories:read");
        return services.memories.get(narrowed(auth, options), services.dataKeys.of(auth), id);
      });
    },

    async update(id, input, options) {
      return call(() => {
        requireScope(auth, "memories:write");
        return services.memories.update(narrowed(auth, options), services.dataKeys.of(auth), id, {
          content: input.content,
          metadata: input.metadata ?? {},
          namespace: input.namespace,
        });
      });
    },

    async history(id, options) {
      return call(async () => {
        requireScope(auth, "memories:read");
        const versions = await services.memories.history(narrowed(auth, options), id);
        const dataKey = services.dataKeys.of(auth);
        return services.proofs.memoriesWithProofs(auth, dataKey, versions);
      });
    },

    async forget(id, options) {
      await call(() => {
        requireScope(auth, "memories:delete");
        return services.memories.delete(narrowed(auth, options), services.dataKeys.of(auth), id);
      });
    },

    async prove(id, options) {
      return call(() => {
        requireScope(auth, "memories:read");
        return services.proofs.proofOf(narrowed(auth, options), services.dataKeys.of(auth), id);
      });
    },

    async verify(id, options) {
      const result = await call(async () => {
        requireScope(auth, "memories:read");
        const row = await services.memories.load(narrowed(auth, options), id);
        return services.proofs.verify(auth, services.dataKeys.of(auth), row);
      });
      return {
        verified: result.verified,
        anchored: result.reason !== "not_anchored",
        reason: result.reason,
        message: result.verified
          ? "The service checked the memory's proof against the root committed on chain."
          : result.reason === "not_anchored"
            ? "Not anchored yet: the memory is not covered by a root committed on chain; retry after the next anchoring."
            : `The check failed (${result.reason}): the memory's proof does not lead to the root committed on chain.`,
        checkedBy: "server",
        onChain: result.checkedAgainst,
      };
    },
  };
}
