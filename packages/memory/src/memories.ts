/**
 * The memory service (docs/protocol.md §4 "Writing a memory", "Recall"; docs/protocol.md §4): the encrypted append to
 * the user's Merkle log, reads, deletion and recall. Every database call is scoped by the caller's
 * userId inside the SQL (`@svc/db-schema`); another user's memory is simply not found.
 * @module
 */
import { randomUUID } from "node:crypto";
import type { Clock } from "@svc/auth";
import {
  type Database,
  deleteMemory,
  getMemory,
  latestAnchoredCheckpoint,
  listMemories,
  type Memory,
  type NewMemory,
} from "@svc/db-schema";
import { toHex } from "@svc/merkle-log";
import type { AppendedLeaf, Appender, AppendQueue } from "./append-queue.js";
import type { Owner } from "./caller.js";
import { MemoryNotFoundError } from "./errors.js";
import { newSalt, openMemoryBody, sealMemoryBody } from "./memory-body.js";
import { memoryLeaf } from "./memory-leaf.js";
import { type MemoryView, memoryView } from "./memory-view.js";
import type { RecallCache } from "./recall-cache.js";

/** What `POST /memories` answers (docs/protocol.md §4). */
export interface CreatedMemory {
  readonly id: string;
  readonly leafIndex: number;
  readonly leafHash: string;
  readonly metadata: Readonly<Record<string, unknown>>;
  readonly createdAt: string;
  readonly anchored: false;
}

/** One memory to write, validated by the route. */
export interface MemoryInput {
  /** 1–32 768 UTF-8 bytes, well-formed. */
  readonly content: string;
  /** A JSON object ≤ 4 096 canonical bytes. */
  readonly metadata: Readonly<Record<string, unknown>>;
}

/** A recall request, validated by the route. */
export interface SearchInput {
  readonly query: string;
  readonly limit: number;
  readonly caseSensitive: boolean;
  readonly metadata?: Readonly<Record<string, unknown>> | undefined;
}

/** What the memory service needs. */
export interface MemoryServiceDeps {
  readonly db: Database;
  readonly clock: Clock;
  readonly appendQueue: AppendQueue;
  readonly recall: RecallCache;
}

/** Memory operations for one authenticated owner and their data key. */
export class MemoryService {
  constructor(private readonly deps: MemoryServiceDeps) {}

  /**
   * Writes a memory: fresh id and salt, the leaf of docs/protocol.md §5, the body sealed under the data
   * key, then one transaction (shared with the user's concurrent writes) that inserts the row and
   * extends the persisted tree.
   * @param content 1–32 768 UTF-8 bytes, well-formed (the route validates).
   * @param metadata a JSON object ≤ 4 096 canonical bytes (the route validates).
   * @param appender the append queue (default), or an append announced to it
   *   (`AppendQueue.expect`) by the request this write belongs to.
   */
  async create(
    owner: Owner,
    dataKey: Uint8Array,
    content: string,
    metadata: Readonly<Record<string, unknown>>,
    appender: Appender = this.deps.appendQueue,
  ): Promise<CreatedMemory> {
    const [created] = await this.createAll(owner, dataKey, [{ content, metadata }], appender);
    return created as CreatedMemory;
  }

  /**
   * Writes several memories at once (`POST /memories/batch`), each exactly as {@link create}
   * does (fresh id and salt, its leaf, its body sealed), all with the same `createdAt`; then ONE
   * append (`Appender.appendAll`) stores them all or none, at contiguous leaf indices in the
   * given order, in one statement or transaction shared with the user's concurrent writes.
   * @param inputs at least one memory (the route validates each).
   * @returns the created memories, in the given order.
   */
  async createAll(
    owner: Owner,
    dataKey: Uint8Array,
    inputs: readonly MemoryInput[],
    appender: Appender = this.deps.appendQueue,
  ): Promise<CreatedMemory[]> {
    const createdAt = this.deps.clock.now();
    const rows: NewMemory[] = inputs.map(({ content, metadata }) => {
      const id = randomUUID();
      const body = { salt: newSalt(), content };
      const { leafHash } = memoryLeaf(
        { memoryId: id, owner: owner.ownerPubkey, createdAt, metadata },
        body,
      );
      const sealed = sealMemoryBody(dataKey, body, { userId: owner.userId, memoryId: id });
      return {
        id,
        ciphertext: sealed.ciphertext,
        iv: sealed.iv,
        leafHash,
        metadata: { ...metadata },
        createdAt,
      };
    });
    const leaves = await appender.appendAll(owner.userId, rows);
    return rows.map((row, i) => ({
      id: row.id,
      leafIndex: (leaves[i] as AppendedLeaf).leafIndex,
      leafHash: toHex(row.leafHash),
      metadata: (inputs[i] as MemoryInput).metadata,
      createdAt: createdAt.toISOString(),
      anchored: false,
    }));
  }

  /**
   * The owner's live memories, newest first, one page.
   * @throws InvalidCursorError (`@svc/db-schema`) for a cursor this list did not issue.
   */
  async list(
    owner: Owner,
    dataKey: Uint8Array,
    page: { limit: number; cursor?: string | undefined },
  ): Promise<{ items: MemoryView[]; nextCursor: string | null }> {
    const result = await listMemories(this.deps.db, owner.userId, {
      limit: page.limit,
      ...(page.cursor ? { cursor: page.cursor } : {}),
    });
    return {
      items: result.items.map((row) => decryptView(owner, dataKey, row)),
      nextCursor: result.nextCursor,
    };
  }

  /**
   * One live memory of the owner.
   * @throws MemoryNotFoundError when unknown, deleted or another user's.
   */
  async get(owner: Owner, dataKey: Uint8Array, id: string): Promise<MemoryView> {
    return decryptView(owner, dataKey, await this.load(owner, id));
  }

  /**
   * The owner's memory row, live.
   * @throws MemoryNotFoundError when unknown, deleted or another user's.
   */
  async load(owner: Owner, id: string): Promise<Memory> {
    const row = await getMemory(this.deps.db, owner.userId, id);
    if (!row) {
      throw new MemoryNotFoundError();
    }
    return row;
  }

  /**
   * Deletes a memory: body and salt destroyed, leaf kept (docs/protocol.md §5); dropped from this
   * process's recall cache at once.
   * @throws MemoryNotFoundError when unknown, already deleted or another user's.
   */
  async delete(owner: Owner, id: string): Promise<void> {
    const deleted = await deleteMemory(this.deps.db, owner.userId, id, this.deps.clock.now());
    if (!deleted) {
      throw new MemoryNotFoundError();
    }
    this.deps.recall.forget(owner.userId, id);
  }

  /**
   * Recall: substring search over the owner's live memories through the recall cache, newest
   * first; `anchored` comes from the latest anchored checkpoint.
   */
  async search(
    owner: Owner,
    dataKey: Uint8Array,
    input: SearchInput,
  ): Promise<{ items: MemoryView[]; scanned: number }> {
    const [result, checkpoint] = await Promise.all([
      this.deps.recall.search(owner.userId, dataKey, {
        query: input.query,
        caseSensitive: input.caseSensitive,
        metadata: input.metadata,
        limit: input.limit,
      }),
      latestAnchoredCheckpoint(this.deps.db, owner.userId),
    ]);
    const anchoredSize = checkpoint?.treeSize ?? 0;
    return {
      items: result.items.map((entry) =>
        memoryView(entry, entry.content, entry.leafIndex < anchoredSize),
      ),
      scanned: result.scanned,
    };
  }
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
  return memoryView(row, body.content, row.anchored);
}
