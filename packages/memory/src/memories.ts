/**
 * The memory service (docs/protocol.md §4.1 "The memory record", §4.7 "Updates and history", §4.5
 * "Recall"): the encrypted append to the user's Merkle log, updates that supersede, reads, history,
 * deletion and recall, within the caller's namespace confinement. Every database call is scoped by
 * the caller's userId inside the SQL (`@verifiable-memory/db-schema`); another user's memory is
 * simply not found.
 * @module
 */
import { randomUUID } from "node:crypto";
import type { Clock } from "@verifiable-memory/clock";
import {
  checkpointLogCoveredSize,
  type Database,
  deleteMemory,
  getMemory,
  latestAnchoredCheckpoint,
  listMemories,
  listMemoryVersions,
  type Memory,
  type NewMemory,
  supersedeMemory,
} from "@verifiable-memory/db-schema";
import { toHex } from "@verifiable-memory/merkle-log";
import type { LeafWriter } from "@verifiable-memory/verifier";
import type { AppendedLeaf, Appender, AppendQueue } from "./append-queue.js";
import type { Caller, Owner } from "./caller.js";
import {
  MemoryConflictError,
  MemoryDomainError,
  MemoryNotFoundError,
  NamespaceForbiddenError,
} from "./errors.js";
import { newSalt, openMemoryBody, sealMemoryBody } from "./memory-body.js";
import { withinConfinement } from "./memory-filter.js";
import { memoryLeaf } from "./memory-leaf.js";
import { type MemoryView, memoryView, rowViewSource } from "./memory-view.js";
import type { RecallCache } from "./recall/cache.js";
import type { QueryVector, RecallCursor, RecallRank } from "./recall/types.js";
import { resealWithout } from "./segments.js";
import { resealVectorsWithout } from "./vector-segments.js";
import type { VectorIndexer } from "./vectors.js";

/** What `POST /memories` answers (docs/protocol.md §4). */
export interface CreatedMemory {
  readonly id: string;
  readonly leafIndex: number;
  readonly leafHash: string;
  readonly metadata: Readonly<Record<string, unknown>>;
  readonly namespace: string | null;
  readonly writtenBy: LeafWriter;
  readonly supersedes: string | null;
  readonly supersededBy: null;
  readonly createdAt: string;
  readonly anchored: false;
}

/** One memory to write, validated by the route. */
export interface MemoryInput {
  /** 1–32 768 UTF-8 bytes, well-formed. */
  readonly content: string;
  /** A JSON object ≤ 4 096 canonical bytes. */
  readonly metadata: Readonly<Record<string, unknown>>;
  /** 1–128 chars of `[A-Za-z0-9._:/-]`; absent: the key's confinement prefix, or none. */
  readonly namespace?: string | undefined;
}

/** A recall request, validated by the route (docs/protocol.md §4.5 "Recall"). */
export interface SearchInput {
  /**
   * Substring (recency) or terms and meaning (relevance, semantic, hybrid); optional when a
   * filter is given, required by semantic and hybrid.
   */
  readonly query?: string | undefined;
  readonly limit: number;
  readonly caseSensitive: boolean;
  readonly rank: RecallRank;
  /** Metadata conditions (equality or operator objects), validated. */
  readonly metadata?: Readonly<Record<string, unknown>> | undefined;
  readonly namespace?: string | undefined;
  readonly namespacePrefix?: string | undefined;
  readonly createdAfter?: Date | undefined;
  readonly createdBefore?: Date | undefined;
  readonly includeSuperseded?: boolean | undefined;
  /** A `nextCursor` of a previous page of the same search. */
  readonly cursor?: string | undefined;
}

/** A list request (docs/protocol.md §4 lists). */
export interface ListInput {
  readonly limit: number;
  readonly cursor?: string | undefined;
  readonly namespace?: string | undefined;
  readonly namespacePrefix?: string | undefined;
  readonly includeSuperseded?: boolean | undefined;
}

/** What the memory service needs. */
export interface MemoryServiceDeps {
  readonly db: Database;
  readonly clock: Clock;
  readonly appendQueue: AppendQueue;
  readonly recall: RecallCache;
  /** The background embedder and query embeddings (EMBEDDINGS); absent when `none`. */
  readonly vectors?: VectorIndexer | undefined;
}

/** Memory operations for one authenticated caller and their data key. */
export class MemoryService {
  constructor(private readonly deps: MemoryServiceDeps) {}

  /**
   * Writes a memory: fresh id and salt, the version-2 leaf of docs/protocol.md §5 (namespace,
   * writer, no predecessor), the body sealed under the data key, then one transaction (shared
   * with the user's concurrent writes) that inserts the row and extends the persisted tree.
   * @param input content, metadata and namespace (the route validates them).
   * @param appender the append queue (default), or an append announced to it
   *   (`AppendQueue.expect`) by the request this write belongs to.
   * @throws NamespaceForbiddenError when the namespace lies outside the caller's confinement.
   */
  async create(
    caller: Caller,
    dataKey: Uint8Array,
    input: MemoryInput,
    appender: Appender = this.deps.appendQueue,
  ): Promise<CreatedMemory> {
    const [created] = await this.writeAll(caller, dataKey, [input], appender, () => ["namespace"]);
    return created as CreatedMemory;
  }

  /**
   * Writes several memories at once (`POST /memories/batch`), each exactly as {@link create}
   * does, all with the same `createdAt`; then ONE append (`Appender.appendAll`) stores them all
   * or none, at contiguous leaf indices in the given order, in one statement or transaction
   * shared with the user's concurrent writes.
   * @param inputs at least one memory (the route validates each).
   * @returns the created memories, in the given order.
   * @throws NamespaceForbiddenError (details name the item) when a namespace lies outside the
   *   caller's confinement; nothing is written then.
   */
  createAll(
    caller: Caller,
    dataKey: Uint8Array,
    inputs: readonly MemoryInput[],
    appender: Appender = this.deps.appendQueue,
  ): Promise<CreatedMemory[]> {
    return this.writeAll(caller, dataKey, inputs, appender, (i) => ["items", i, "namespace"]);
  }

  /** {@link createAll}, naming the namespace field of item i by `namespacePath(i)` in errors. */
  private async writeAll(
    caller: Caller,
    dataKey: Uint8Array,
    inputs: readonly MemoryInput[],
    appender: Appender,
    namespacePath: (index: number) => (string | number)[],
  ): Promise<CreatedMemory[]> {
    const createdAt = this.deps.clock.now();
    const writtenBy = writerOfCaller(caller);
    const namespaces = inputs.map((input, i) =>
      namespaceFor(caller, input.namespace, namespacePath(i)),
    );
    const rows = inputs.map((input, i) =>
      this.sealNew(caller, dataKey, input, namespaces[i] ?? null, writtenBy, null, createdAt),
    );
    const leaves = await appender.appendAll(caller.userId, rows);
    this.deps.vectors?.enqueue(
      caller.userId,
      dataKey,
      rows.map((row, i) => ({
        id: row.id,
        namespace: row.namespace,
        content: (inputs[i] as MemoryInput).content,
      })),
    );
    return rows.map((row, i) => createdView(row, (leaves[i] as AppendedLeaf).leafIndex, writtenBy));
  }

  /**
   * `PUT /memories/:id` (docs/protocol.md §4.7 "Updates and history"): appends a new memory whose
   * leaf commits `supersedes: id`, and marks `id` superseded, in one transaction that locks `id`'s
   * row. The namespace defaults to the superseded memory's.
   * @throws MemoryNotFoundError when `id` is unknown, another user's or outside the caller's
   *   confinement; MemoryConflictError when it is deleted or already superseded (of two
   *   concurrent updates exactly one wins); NamespaceForbiddenError for a namespace outside the
   *   confinement.
   */
  async update(
    caller: Caller,
    dataKey: Uint8Array,
    id: string,
    input: MemoryInput,
  ): Promise<CreatedMemory> {
    const current = await getMemory(this.deps.db, caller.userId, id, { includeDeleted: true });
    if (!current || !withinConfinement(current.namespace, caller.namespace)) {
      throw new MemoryNotFoundError();
    }
    const namespace =
      input.namespace === undefined
        ? current.namespace
        : namespaceFor(caller, input.namespace, ["namespace"]);
    const writtenBy = writerOfCaller(caller);
    const createdAt = this.deps.clock.now();
    const row = this.sealNew(caller, dataKey, input, namespace, writtenBy, id, createdAt);
    const result = await supersedeMemory(this.deps.db, caller.userId, id, row, caller.namespace);
    if (result.status === "not_found") {
      throw new MemoryNotFoundError();
    }
    if (result.status === "conflict") {
      throw new MemoryConflictError(result.reason);
    }
    this.deps.vectors?.enqueue(caller.userId, dataKey, [
      { id: row.id, namespace, content: input.content },
    ]);
    return createdView(row, result.leafIndex, writtenBy);
  }

  /** A new memory's row: fresh id and salt, its version-2 leaf hash, its body sealed. */
  private sealNew(
    owner: Owner,
    dataKey: Uint8Array,
    input: MemoryInput,
    namespace: string | null,
    writtenBy: LeafWriter,
    supersedes: string | null,
    createdAt: Date,
  ): NewMemory & { readonly namespace: string | null; readonly supersedes: string | null } {
    const id = randomUUID();
    const body = { salt: newSalt(), content: input.content };
    const { leafHash } = memoryLeaf(
      {
        memoryId: id,
        owner: owner.ownerPubkey,
        createdAt,
        metadata: input.metadata,
        namespace,
        writtenBy,
        supersedes,
      },
      body,
    );
    const sealed = sealMemoryBody(dataKey, body, { userId: owner.userId, memoryId: id });
    return {
      id,
      ciphertext: sealed.ciphertext,
      iv: sealed.iv,
      leafHash,
      metadata: { ...input.metadata },
      createdAt,
      leafVersion: 2,
      namespace,
      writerKind: writtenBy.kind,
      writerKeyId: writtenBy.kind === "api_key" ? writtenBy.keyId : null,
      supersedes,
    };
  }

  /**
   * The caller's live memories, newest first, one page: current versions unless
   * `includeSuperseded`, within the caller's confinement and the namespace filters.
   * @throws InvalidCursorError (`@verifiable-memory/db-schema`) for a cursor this list did not issue.
   */
  async list(
    caller: Caller,
    dataKey: Uint8Array,
    input: ListInput,
  ): Promise<{ items: MemoryView[]; nextCursor: string | null }> {
    const result = await listMemories(this.deps.db, caller.userId, {
      limit: input.limit,
      ...(input.cursor ? { cursor: input.cursor } : {}),
      namespace: input.namespace,
      namespacePrefix: input.namespacePrefix,
      confinedTo: caller.namespace,
      includeSuperseded: input.includeSuperseded ?? false,
    });
    return {
      items: result.items.map((row) => decryptView(caller, dataKey, row)),
      nextCursor: result.nextCursor,
    };
  }

  /**
   * One live memory of the caller (current or superseded).
   * @throws MemoryNotFoundError when unknown, deleted, another user's or outside the caller's
   *   confinement.
   */
  async get(caller: Caller, dataKey: Uint8Array, id: string): Promise<MemoryView> {
    return decryptView(caller, dataKey, await this.load(caller, id));
  }

  /**
   * The caller's memory row, live and within the caller's confinement.
   * @throws MemoryNotFoundError when unknown, deleted, another user's or outside the confinement.
   */
  async load(caller: Owner & Partial<Pick<Caller, "namespace">>, id: string): Promise<Memory> {
    const row = await getMemory(this.deps.db, caller.userId, id);
    if (!row || !withinConfinement(row.namespace, caller.namespace ?? null)) {
      throw new MemoryNotFoundError();
    }
    return row;
  }

  /**
   * Every live version of the memory `id` (docs/protocol.md §4.7 "Updates and history"), oldest
   * first: the rows, for the route to render each with its proof. Deleted versions are left out
   * (their bodies are destroyed; their leaves stay in the log).
   * @throws MemoryNotFoundError when `id` is unknown, deleted, another user's or outside the
   *   caller's confinement.
   */
  async history(caller: Caller, id: string): Promise<Memory[]> {
    await this.load(caller, id);
    const versions = await listMemoryVersions(this.deps.db, caller.userId, id);
    return versions.filter(
      (row) => row.deletedAt === null && withinConfinement(row.namespace, caller.namespace),
    );
  }

  /**
   * Deletes a memory: body and salt destroyed, leaf kept (docs/protocol.md §5), and the recall
   * segment and vector segments holding it re-sealed without it in the same transaction
   * (docs/data-model.md "Recall segments"); dropped from this process's recall cache at once. Other versions of it
   * are untouched.
   * @param dataKey the caller's data key (opens and re-seals the segment).
   * @throws MemoryNotFoundError when unknown, already deleted, another user's or outside the
   *   caller's confinement.
   */
  async delete(caller: Caller, dataKey: Uint8Array, id: string): Promise<void> {
    const deleted = await deleteMemory(
      this.deps.db,
      caller.userId,
      id,
      this.deps.clock.now(),
      caller.namespace,
      {
        content: (segment, memoryId) => resealWithout(dataKey, segment, memoryId),
        vectors: (segment, memoryId) => resealVectorsWithout(dataKey, segment, memoryId),
      },
    );
    if (!deleted) {
      throw new MemoryNotFoundError();
    }
    this.deps.recall.forget(caller.userId, id);
  }

  /**
   * Recall through the recall cache (docs/protocol.md §4.5 "Recall"): the filters, then recency,
   * relevance, semantic or hybrid ranking, one page; `anchored` comes from the latest anchored
   * checkpoint. Semantic and hybrid embed the query first (the query lane of the model).
   * @throws MemoryDomainError `invalid_request` for a cursor this search did not issue, or a
   *   semantic or hybrid search without a query or without an embedding model (EMBEDDINGS=none);
   *   EmbeddingsError (`@verifiable-memory/embeddings`) when the model fails on the query.
   */
  async search(
    caller: Caller,
    dataKey: Uint8Array,
    input: SearchInput,
  ): Promise<{
    items: MemoryView[];
    scanned: number;
    nextCursor: string | null;
    unranked?: number;
  }> {
    const after =
      input.cursor === undefined ? undefined : decodeSearchCursor(input.cursor, input.rank);
    const vector = await this.queryVector(input);
    const [result, checkpoint, logCovered] = await Promise.all([
      this.deps.recall.search(caller.userId, dataKey, {
        vector,
        query: input.query,
        caseSensitive: input.caseSensitive,
        rank: input.rank,
        limit: input.limit,
        after,
        filter: {
          metadata: input.metadata,
          namespace: input.namespace,
          namespacePrefix: input.namespacePrefix,
          confinedTo: caller.namespace,
          createdAfter: input.createdAfter,
          createdBefore: input.createdBefore,
          includeSuperseded: input.includeSuperseded,
        },
      }),
      latestAnchoredCheckpoint(this.deps.db, caller.userId),
      checkpointLogCoveredSize(this.deps.db, caller.userId),
    ]);
    // Anchored on either path: the owner's account, or the checkpoint log (docs/protocol.md §4.1).
    const anchoredSize = Math.max(checkpoint?.treeSize ?? 0, logCovered);
    const last = result.items[result.items.length - 1];
    return {
      items: result.items.map((entry) =>
        memoryView(entry, entry.content, entry.leafIndex < anchoredSize),
      ),
      scanned: result.scanned,
      nextCursor: result.more && last ? encodeSearchCursor(input.rank, last) : null,
      ...(result.unranked === undefined ? {} : { unranked: result.unranked }),
    };
  }

  /** The query's vector for semantic and hybrid searches; undefined for the other ranks. */
  private async queryVector(input: SearchInput): Promise<QueryVector | undefined> {
    if (input.rank !== "semantic" && input.rank !== "hybrid") {
      return undefined;
    }
    const refuse = (message: string, path: string) =>
      new MemoryDomainError("invalid_request", message, [{ path: [path], message }]);
    if (this.deps.vectors === undefined) {
      throw refuse(`rank "${input.rank}" needs an embedding model (EMBEDDINGS is none)`, "rank");
    }
    if (input.query === undefined || input.query.trim() === "") {
      throw refuse(`rank "${input.rank}" needs a query`, "query");
    }
    return this.deps.vectors.embedQuery(input.query);
  }
}

/** The writer a caller's memories commit (docs/protocol.md §5 leaf version 2). */
function writerOfCaller(caller: Caller): LeafWriter {
  return caller.credential === "api_key" && caller.apiKeyId !== null
    ? { kind: "api_key", keyId: caller.apiKeyId }
    : { kind: "session" };
}

/**
 * The namespace a caller's write lands in: the given one, or the caller's confinement prefix
 * when none is given.
 * @throws NamespaceForbiddenError when the given one lies outside the confinement.
 */
function namespaceFor(
  caller: Caller,
  namespace: string | undefined,
  path: (string | number)[],
): string | null {
  if (namespace === undefined) {
    return caller.namespace;
  }
  if (!withinConfinement(namespace, caller.namespace)) {
    throw new NamespaceForbiddenError(namespace, caller.namespace as string, path);
  }
  return namespace;
}

function createdView(
  row: NewMemory & { readonly namespace: string | null; readonly supersedes: string | null },
  leafIndex: number,
  writtenBy: LeafWriter,
): CreatedMemory {
  return {
    id: row.id,
    leafIndex,
    leafHash: toHex(row.leafHash),
    metadata: row.metadata,
    namespace: row.namespace,
    writtenBy,
    supersedes: row.supersedes,
    supersededBy: null,
    createdAt: row.createdAt.toISOString(),
    anchored: false,
  };
}

const SEARCH_CURSOR = "search.v1";

/** The opaque cursor after `last` of a search page (base64url JSON). */
function encodeSearchCursor(rank: RecallRank, last: { leafIndex: number; score?: number }): string {
  const body =
    rank !== "recency"
      ? { k: SEARCH_CURSOR, r: rank, l: last.leafIndex, s: last.score ?? 0 }
      : { k: SEARCH_CURSOR, r: rank, l: last.leafIndex };
  return Buffer.from(JSON.stringify(body)).toString("base64url");
}

/**
 * The position a search cursor names.
 * @throws MemoryDomainError `invalid_request` for a cursor this search (with this rank) did not
 *   issue.
 */
function decodeSearchCursor(cursor: string, rank: RecallRank): RecallCursor {
  const invalid = () =>
    new MemoryDomainError("invalid_request", "invalid cursor", [
      { path: ["cursor"], message: "the cursor is not valid for this search" },
    ]);
  let body: unknown;
  try {
    body = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
  } catch {
    throw invalid();
  }
  const value = body as { k?: unknown; r?: unknown; l?: unknown; s?: unknown };
  if (
    value === null ||
    typeof value !== "object" ||
    value.k !== SEARCH_CURSOR ||
    value.r !== rank ||
    !Number.isSafeInteger(value.l) ||
    (rank !== "recency" && (typeof value.s !== "number" || !Number.isFinite(value.s)))
  ) {
    throw invalid();
  }
  return rank !== "recency"
    ? { rank, leafIndex: value.l as number, score: value.s as number }
    : { rank, leafIndex: value.l as number };
}

function decryptView(owner: Owner, dataKey: Uint8Array, row: Memory): MemoryView {
  if (row.ciphertext === null || row.iv === null) {
    throw new MemoryNotFoundError();
  }
  const body = openMemoryBody(
    dataKey,
    { ciphertext: row.ciphertext, iv: row.iv },
    { userId: owner.userId, memoryId: row.id },
  );
  return memoryView(rowViewSource(row), body.content, row.anchored || row.logAnchored);
}
