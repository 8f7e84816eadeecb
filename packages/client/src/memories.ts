/**
 * The memory calls of the SDK client (docs/protocol.md §4 "Memories and encryption", §6
 * "Proofs and verification"): store one or many, recall, list, read, update, history, delete,
 * prove and the server's own check.
 * @module
 */
import { paginate, type RawClient, requireString, unwrap } from "./calls.js";
import { SvcError } from "./errors.js";
import type {
  BatchItem,
  CreatedMemory,
  ListOptions,
  Memory,
  MemoryPage,
  MemoryWithProof,
  Metadata,
  ProofBundle,
  QueryParams,
  RecallOptions,
  RememberOptions,
  SearchResult,
  ServerVerifyResult,
  UpdateOptions,
} from "./types.js";

/** The most items `POST /memories/batch` takes (docs/protocol.md §4.1). */
export const BATCH_MAX_ITEMS = 256;
/** The body limit of `POST /memories/batch`, bytes (docs/protocol.md §1.6). */
export const BATCH_MAX_BODY_BYTES = 1_048_576;

/** Options of {@link MemoryCalls.rememberMany}. */
export interface RememberManyOptions {
  /** Items per request, 1 to {@link BATCH_MAX_ITEMS} (the default). */
  readonly chunkSize?: number;
}

/** The memory calls (each throws SvcError for a non-2xx answer, TypeError for a refused argument). */
export interface MemoryCalls {
  /**
   * Stores a memory: `POST /memories`. Content is 1 to 32 768 UTF-8 bytes; metadata a JSON object
   * of at most 4 096 canonical bytes.
   * @param options further fields of the body, e.g. `{ namespace }`.
   * @returns the created memory `{ id, leafIndex, leafHash, metadata, namespace, writtenBy,
   *   createdAt, anchored: false, … }` (no content).
   * @throws SvcError `invalid_request` (details list the fields), `unauthorized`,
   *   `insufficient_scope`, `forbidden` (outside a key's namespace), `payload_too_large`.
   */
  remember(content: string, metadata?: Metadata, options?: RememberOptions): Promise<CreatedMemory>;
  /**
   * Stores many memories: `POST /memories/batch` in chunks of at most 256 items and 1 MiB, each
   * chunk all-or-nothing at contiguous leaf indices. An empty list stores nothing and makes no
   * call.
   * @returns the created memories, in the order given.
   * @throws SvcError of the first failing chunk, with `batch: { offset, stored }`: the chunks
   *   before it are stored (`stored`), and an `invalid_request` detail path `["items", i, …]` names
   *   item `offset + i`.
   */
  rememberMany(
    items: readonly BatchItem[],
    options?: RememberManyOptions,
  ): Promise<CreatedMemory[]>;
  /**
   * Recalls memories: `POST /memories/search`. Substring match (case-insensitive by default),
   * newest first, or BM25 with `rank: "relevance"` (semantic and hybrid with an embedding model); filters on metadata, namespace and time.
   * @param query the text to find; may be undefined when a filter is given.
   * @param options `limit` (1–200, default 20), `caseSensitive`, `metadata`, `namespace`,
   *   `namespacePrefix`, `createdAfter`, `createdBefore`, `rank`, `includeSuperseded`, `cursor`.
   * @returns `{ items, scanned, nextCursor }`.
   * @throws SvcError `invalid_request`, `unauthorized`, `insufficient_scope`.
   */
  recall(query: string | undefined, options?: RecallOptions): Promise<SearchResult>;
  /**
   * One page of the caller's memories, newest first: `GET /memories`.
   * @param options `limit` (1–200, default 50), `cursor` (a previous `nextCursor`), `namespace`,
   *   `namespacePrefix`, `includeSuperseded` (boolean or "true"/"false").
   * @returns `{ items, nextCursor }` (`nextCursor` null on the last page).
   * @throws SvcError `invalid_request` (e.g. a cursor from another list), `unauthorized`.
   */
  list(options?: ListOptions): Promise<MemoryPage>;
  /**
   * Every page of `GET /memories` from `options.cursor` on, fetched as you iterate.
   * @example for await (const page of client.listPages({ limit: 100 })) console.log(page.items.length);
   * @throws SvcError as {@link list}, from the iteration step that failed.
   */
  listPages(options?: ListOptions): AsyncGenerator<MemoryPage, void, undefined>;
  /**
   * Every memory of `GET /memories`, page after page, newest first.
   * @example for await (const memory of client.listAll()) console.log(memory.content);
   * @throws SvcError as {@link list}.
   */
  listAll(options?: ListOptions): AsyncGenerator<Memory, void, undefined>;
  /**
   * Reads one memory: `GET /memories/:id`.
   * @returns `{ id, leafIndex, leafHash, content, metadata, namespace, writtenBy, supersedes,
   *   supersededBy, createdAt, anchored }`.
   * @throws SvcError `not_found` (unknown, deleted, another user's, outside a key's namespace),
   *   `invalid_request` (a malformed id), `unauthorized`.
   */
  get(id: string): Promise<Memory>;
  /**
   * Writes a new version of a memory: `PUT /memories/:id`. The old version stays readable and
   * provable; the new one's leaf commits `supersedes: id`.
   * @returns the new version (`supersedes` = `id`).
   * @throws SvcError `not_found`, `conflict` (`id` deleted or already superseded; also what a
   *   retry sees when the first attempt's answer was lost), `invalid_request`.
   */
  update(
    id: string,
    content: string,
    metadata?: Metadata,
    options?: UpdateOptions,
  ): Promise<CreatedMemory>;
  /**
   * Every live version of a memory, oldest first, each with its proof: `GET /memories/:id/history`.
   * @throws SvcError `not_found`, `unauthorized`.
   */
  history(id: string): Promise<MemoryWithProof[]>;
  /**
   * Deletes a memory's content: `DELETE /memories/:id`. The leaf stays in the log (deletion is
   * detectable, not hidden); the memory is 404 afterwards.
   * @throws SvcError `not_found` (also on a second delete), `insufficient_scope`.
   */
  forget(id: string): Promise<void>;
  /**
   * The memory's proof bundle at the latest anchored checkpoint: `GET /memories/:id/proof`.
   * Not yet anchored: `anchored: false` with `checkpoint`, `inclusionProof`, `anchor` null.
   * Check it against the chain with `verify` / `verifyProof` from `@verifiable-memory/client/verify`.
   * @throws SvcError `not_found`, `unauthorized`.
   */
  prove(id: string): Promise<ProofBundle>;
  /**
   * The server's own check of a memory against the chain: `GET /memories/:id/verify`. This
   * trusts the API for what it read; for a check that does not, use `verify` from
   * `@verifiable-memory/client/verify`.
   * @returns `{ verified, reason, checkedAgainst }`.
   * @throws SvcError `not_found`, `chain_unavailable` (503, retried).
   */
  verifyOnServer(id: string): Promise<ServerVerifyResult>;
}

/** The memory calls over `raw`. */
export function memoryCalls(raw: RawClient): MemoryCalls {
  const listMemories = (opts: ListOptions = {}): Promise<MemoryPage> => {
    const query: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(opts)) {
      if (value !== undefined) {
        query[key] = typeof value === "boolean" ? String(value) : value;
      }
    }
    return unwrap(
      raw.GET("/memories", { params: { query: query as QueryParams<"listMemories"> } }),
    );
  };
  return {
    async remember(content, metadata, rememberOptions = {}) {
      requireString(content, "content");
      return unwrap(
        raw.POST("/memories", {
          body: { ...rememberOptions, content, ...(metadata === undefined ? {} : { metadata }) },
        }),
      );
    },
    async rememberMany(items, manyOptions = {}) {
      if (!Array.isArray(items)) {
        throw new TypeError("items must be an array");
      }
      const chunkSize = manyOptions.chunkSize ?? BATCH_MAX_ITEMS;
      if (!Number.isInteger(chunkSize) || chunkSize < 1 || chunkSize > BATCH_MAX_ITEMS) {
        throw new TypeError(`chunkSize must be an integer from 1 to ${BATCH_MAX_ITEMS}`);
      }
      const stored: CreatedMemory[] = [];
      for (const chunk of chunkBatch(items, chunkSize)) {
        try {
          const created = await unwrap(raw.POST("/memories/batch", { body: { items: chunk } }));
          stored.push(...created.items);
        } catch (error) {
          if (error instanceof SvcError) {
            throw error.withBatch({ offset: stored.length, stored: [...stored] });
          }
          throw error;
        }
      }
      return stored;
    },
    async recall(query, recallOptions = {}) {
      if (query !== undefined) {
        requireString(query, "query");
      }
      return unwrap(
        raw.POST("/memories/search", {
          body: query === undefined ? recallOptions : { ...recallOptions, query },
        }),
      );
    },
    list: listMemories,
    listPages(opts = {}) {
      return paginate((cursor) => listMemories({ ...opts, cursor }), opts.cursor);
    },
    async *listAll(opts = {}) {
      for await (const page of paginate(
        (cursor) => listMemories({ ...opts, cursor }),
        opts.cursor,
      )) {
        yield* page.items;
      }
    },
    async get(id) {
      requireString(id, "id");
      return unwrap(raw.GET("/memories/{id}", { params: { path: { id } } }));
    },
    async update(id, content, metadata, updateOptions = {}) {
      requireString(id, "id");
      requireString(content, "content");
      return unwrap(
        raw.PUT("/memories/{id}", {
          params: { path: { id } },
          body: { ...updateOptions, content, ...(metadata === undefined ? {} : { metadata }) },
        }),
      );
    },
    async history(id) {
      requireString(id, "id");
      return (await unwrap(raw.GET("/memories/{id}/history", { params: { path: { id } } }))).items;
    },
    async forget(id) {
      requireString(id, "id");
      await unwrap(raw.DELETE("/memories/{id}", { params: { path: { id } } }));
    },
    async prove(id) {
      requireString(id, "id");
      return unwrap(raw.GET("/memories/{id}/proof", { params: { path: { id } } }));
    },
    async verifyOnServer(id) {
      requireString(id, "id");
      return unwrap(raw.GET("/memories/{id}/verify", { params: { path: { id } } }));
    },
  };
}

/** Items split into request bodies within both batch limits (count and bytes). */
function chunkBatch(items: readonly BatchItem[], maxItems: number): BatchItem[][] {
  const encoder = new TextEncoder();
  const envelope = encoder.encode('{"items":[]}').length;
  const chunks: BatchItem[][] = [];
  let current: BatchItem[] = [];
  let bytes = envelope;
  for (const item of items) {
    const size = encoder.encode(JSON.stringify(item)).length;
    const separator = current.length > 0 ? 1 : 0;
    if (
      current.length > 0 &&
      (current.length >= maxItems || bytes + separator + size > BATCH_MAX_BODY_BYTES)
    ) {
      chunks.push(current);
      current = [];
      bytes = envelope;
    }
    bytes += (current.length > 0 ? 1 : 0) + size;
    current.push(item);
  }
  if (current.length > 0) {
    chunks.push(current);
  }
  return chunks;
}
