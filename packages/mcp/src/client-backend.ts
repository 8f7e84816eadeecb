/**
 * The {@link MemoryBackend} over `@verifiable-memory/client`: the stdio server's, talking HTTP to core-api with
 * an API key or a session token. `verify` checks against a chain RPC named by the user, through
 * `@verifiable-memory/client/verify`, trusting the API for nothing; without one it asks the server's own check.
 * @module
 */
import { type RecallOptions, type SvcClient, SvcError } from "@verifiable-memory/client";
import { verifyProof } from "@verifiable-memory/client/verify";
import {
  BackendError,
  type IdOptions,
  type MemoryBackend,
  type RecalledMemory,
  type StoredMemory,
  type VerifyResult,
  withinNamespace,
} from "./backend.js";

/** Options of {@link clientBackend}. */
export interface ClientBackendOptions {
  /**
   * The Solana JSON-RPC URL `verify` reads the commitment account from (one *you* trust, never the
   * memory API). Without it, `verify` reports the server's own check (`checkedBy: "server"`).
   */
  readonly rpcUrl?: string | undefined;
  /** The commitment program id to pin (`GET /info`'s `programId`); default the bundle's own. */
  readonly programId?: string | undefined;
  /** The anchoring authority to pin (`GET /info`'s `anchorAuthority`); default unchecked. */
  readonly authority?: string | undefined;
  /**
   * The log verifier keys to trust for a memory only the checkpoint log covers (docs/protocol.md
   * §13.1 "The log key"); default the `logKeys` of the service's `GET /info`.
   */
  readonly logKeys?: readonly string[] | undefined;
}

/** The backend error of a failed SDK call; anything else is rethrown as is. */
function translate(error: unknown): never {
  if (error instanceof SvcError) {
    throw new BackendError(error.code, error.message, error.details);
  }
  if (error instanceof TypeError) {
    // The SDK refuses malformed arguments before calling.
    throw new BackendError("invalid_request", error.message);
  }
  throw error;
}

/** Runs an SDK call, translating its errors. */
async function call<T>(body: () => Promise<T>): Promise<T> {
  try {
    return await body();
  } catch (error) {
    translate(error);
  }
}

/** The fields of a memory the tools report. */
function stored(memory: {
  id: string;
  leafIndex: number;
  leafHash: string;
  metadata: Record<string, unknown>;
  namespace: string | null;
  createdAt: string;
  anchored: boolean;
  supersedes: string | null;
  supersededBy: string | null;
}): StoredMemory {
  return {
    id: memory.id,
    leafIndex: memory.leafIndex,
    leafHash: memory.leafHash,
    metadata: memory.metadata,
    namespace: memory.namespace,
    createdAt: memory.createdAt,
    anchored: memory.anchored,
    supersedes: memory.supersedes,
    supersededBy: memory.supersededBy,
  };
}

/** A decrypted memory the tools report. */
function recalled(memory: Parameters<typeof stored>[0] & { content: string; score?: number }) {
  return {
    ...stored(memory),
    content: memory.content,
    ...(memory.score === undefined ? {} : { score: memory.score }),
  } satisfies RecalledMemory;
}

/**
 * A backend calling core-api through `client` (its credential: an API key or a session token).
 * Scopes and the key's namespace confinement are enforced by the API; `confinedTo` is checked here
 * by reading the memory first (`GET /memories/:id`).
 * @param client an `@verifiable-memory/client` client with a credential.
 * @param options `rpcUrl` (and the pins `programId`, `authority`) for `verify` against the chain.
 */
export function clientBackend(
  client: SvcClient,
  options: ClientBackendOptions = {},
): MemoryBackend {
  /** The memory, when it lies within `confinedTo`; else `not_found`, as the API would say. */
  async function visible(id: string, idOptions: IdOptions | undefined) {
    const memory = await call(() => client.get(id));
    if (!withinNamespace(memory.namespace, idOptions?.confinedTo)) {
      throw new BackendError("not_found", "memory not found");
    }
    return memory;
  }

  return {
    async remember(input) {
      const created = await call(() =>
        client.remember(
          input.content,
          input.metadata,
          input.namespace === undefined ? {} : { namespace: input.namespace },
        ),
      );
      return stored(created);
    },

    async recall(input) {
      const { query, ...filters } = input;
      const result = await call(() => client.recall(query, filters as RecallOptions));
      return { items: result.items.map(recalled), nextCursor: result.nextCursor };
    },

    async get(id, idOptions) {
      return recalled(await visible(id, idOptions));
    },

    async update(id, input, idOptions) {
      if (idOptions?.confinedTo !== undefined) {
        await visible(id, idOptions);
      }
      const created = await call(() =>
        client.update(
          id,
          input.content,
          input.metadata,
          input.namespace === undefined ? {} : { namespace: input.namespace },
        ),
      );
      return stored(created);
    },

    async history(id, idOptions) {
      if (idOptions?.confinedTo !== undefined) {
        await visible(id, idOptions);
      }
      const versions = await call(() => client.history(id));
      return versions.map(recalled);
    },

    async forget(id, idOptions) {
      if (idOptions?.confinedTo !== undefined) {
        await visible(id, idOptions);
      }
      await call(() => client.forget(id));
    },

    async prove(id, idOptions) {
      if (idOptions?.confinedTo !== undefined) {
        await visible(id, idOptions);
      }
      return call(() => client.prove(id));
    },

    async verify(id, idOptions): Promise<VerifyResult> {
      if (options.rpcUrl === undefined) {
        if (idOptions?.confinedTo !== undefined) {
          await visible(id, idOptions);
        }
        const checked = await call(() => client.verifyOnServer(id));
        return {
          verified: checked.verified,
          anchored: checked.reason !== "not_anchored",
          reason: checked.reason,
          message: checked.verified
            ? "The service checked the memory's proof against the root committed on chain."
            : `The service's check failed: ${checked.reason}.`,
          checkedBy: "server",
          onChain: checked.checkedAgainst ?? checked.checkpointLog,
        };
      }
      const [memory, bundle] = await Promise.all([
        visible(id, idOptions),
        call(() => client.prove(id)),
      ]);
      const outcome = await verifyProof(bundle, {
        rpcUrl: options.rpcUrl,
        // The API's public consistency route bridges a bundle anchored before the chain's root.
        apiUrl: client.baseUrl,
        content: memory.content,
        ...(options.programId === undefined ? {} : { programId: options.programId }),
        ...(options.authority === undefined ? {} : { authority: options.authority }),
        ...(options.logKeys === undefined ? {} : { logKeys: options.logKeys }),
      });
      return {
        verified: outcome.ok,
        anchored: bundle.anchored || outcome.path === "checkpoint_log",
        reason: outcome.reason ?? null,
        message: outcome.message,
        checkedBy: "client",
        onChain: outcome.onChain,
      };
    },
  };
}
