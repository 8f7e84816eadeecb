/**
 * Memory vector queries (docs/protocol.md §4.5 "Recall"): storing sealed vectors only for live
 * memories, the recall cache's read of a user's vectors of one model, the background embedder's
 * search for live memories without a vector of the current model (across users), and pruning
 * other models' vectors after a re-embedding. Deleting a memory deletes its vectors
 * (`deleteMemory`, same transaction).
 * @module
 */
import { and, asc, eq, gte, inArray, isNull, ne, sql } from "drizzle-orm";
import type { Executor } from "../client.js";
import { memories } from "../schema/memories.js";
import { memoryVectors } from "../schema/memory-vectors.js";
import { recallVectorSegments } from "../schema/recall-vector-segments.js";
import { users } from "../schema/users.js";
import { copyField, copyLiteral, copyUserId, streamCopyBinary } from "./_copy-binary.js";
import { dropRecallVectorSegmentsOf } from "./recall-vector-segments.js";

/** A vector sealed by its caller, for {@link insertMemoryVectors}. */
export interface SealedVector {
  readonly memoryId: string;
  readonly iv: Uint8Array;
  readonly ciphertext: Uint8Array;
}

/** A stored vector as the recall cache reads it. */
export interface StoredVector {
  readonly memoryId: string;
  readonly leafIndex: number;
  readonly iv: Uint8Array;
  readonly ciphertext: Uint8Array;
  readonly createdAt: Date;
}

/**
 * Stores the user's sealed vectors of `modelId`, in one transaction: the memories still live are
 * read `FOR SHARE` (a concurrent deletion either committed first, and its memory is left out, or
 * waits for this transaction and then deletes the vector with the memory), and only their vectors
 * are inserted; a vector already stored for the memory and model is kept (`ON CONFLICT DO
 * NOTHING`: two embedders may race).
 * @returns how many vectors this call inserted.
 */
export async function insertMemoryVectors(
  db: Executor,
  userId: string,
  modelId: string,
  vectors: readonly SealedVector[],
): Promise<number> {
  if (vectors.length === 0) {
    return 0;
  }
  return db.transaction(async (tx) => {
    const live = await tx
      .select({ id: memories.id, leafIndex: memories.leafIndex })
      .from(memories)
      .where(
        and(
          eq(memories.userId, userId),
          inArray(
            memories.id,
            vectors.map((v) => v.memoryId),
          ),
          isNull(memories.deletedAt),
        ),
      )
      .orderBy(asc(memories.leafIndex))
      .for("share");
    const leafOf = new Map(live.map((row) => [row.id, row.leafIndex]));
    const rows = vectors
      .filter((v) => leafOf.has(v.memoryId))
      .map((v) => ({
        userId,
        memoryId: v.memoryId,
        modelId,
        leafIndex: leafOf.get(v.memoryId) as number,
        iv: v.iv,
        ciphertext: v.ciphertext,
      }));
    if (rows.length === 0) {
      return 0;
    }
    const inserted = await tx
      .insert(memoryVectors)
      .values(rows)
      .onConflictDoNothing()
      .returning({ memoryId: memoryVectors.memoryId, leafIndex: memoryVectors.leafIndex });
    await dropRecallVectorSegmentsOf(
      tx,
      userId,
      inserted.map((row) => row.leafIndex),
      modelId,
    );
    return inserted.length;
  });
}

/**
 * The user's stored vectors of `modelId`, oldest first: all of them, or those stored at or after
 * `since` (the recall cache's refresh).
 */
export async function listMemoryVectors(
  db: Executor,
  userId: string,
  modelId: string,
  since: Date | null,
): Promise<StoredVector[]> {
  return db
    .select({
      memoryId: memoryVectors.memoryId,
      leafIndex: memoryVectors.leafIndex,
      iv: memoryVectors.iv,
      ciphertext: memoryVectors.ciphertext,
      createdAt: memoryVectors.createdAt,
    })
    .from(memoryVectors)
    .where(
      and(
        eq(memoryVectors.userId, userId),
        eq(memoryVectors.modelId, modelId),
        since === null ? undefined : gte(memoryVectors.createdAt, since),
      ),
    )
    .orderBy(asc(memoryVectors.createdAt));
}

/**
 * {@link listMemoryVectors} for the recall cache's loads: the same rows in ONE binary COPY, each
 * handed to `visit` as it arrives (the ciphertexts as their bytes, not as hex text twice their
 * size). `iv` and `ciphertext` are views of the received bytes: copy what you keep. When `visit`
 * throws, the rest of the stream is drained and the first error rethrown.
 * @param fromLeaf only vectors of memories at this leaf index or above (a cold load that read the
 *   leaves below from vector segments); default 0.
 * @returns the number of rows visited.
 * @throws RangeError when `userId` is not a UUID or `fromLeaf` is not a non-negative integer;
 *   TypeError when `db` is a transaction or the stream is malformed; the statement's PostgreSQL
 *   error; whatever `visit` threw.
 */
export async function streamMemoryVectors(
  db: Executor,
  userId: string,
  modelId: string,
  since: Date | null,
  visit: (vector: StoredVector) => void,
  fromLeaf = 0,
): Promise<number> {
  if (!Number.isSafeInteger(fromLeaf) || fromLeaf < 0) {
    throw new RangeError(`fromLeaf must be a non-negative integer, got ${fromLeaf}`);
  }
  const after =
    (since === null ? "" : ` and created_at >= to_timestamp(${since.getTime()}::float8 / 1000)`) +
    (fromLeaf === 0 ? "" : ` and leaf_index >= ${fromLeaf}`);
  const statement = `copy (select memory_id, leaf_index::int8, iv, ciphertext,
      (extract(epoch from created_at) * 1000)::int8
    from memory_vectors where user_id = '${copyUserId(userId)}'
      and model_id = ${copyLiteral(modelId)}${after}
    order by created_at) to stdout (format binary)`;
  const field = (fields: readonly (Buffer | null)[], index: number) =>
    copyField(fields, index, "memory vector");
  return streamCopyBinary(
    db,
    "streamMemoryVectors",
    statement,
    (fields) => ({
      memoryId: field(fields, 0).toString("utf8"),
      leafIndex: Number(field(fields, 1).readBigInt64BE(0)),
      iv: field(fields, 2),
      ciphertext: field(fields, 3),
      createdAt: new Date(Number(field(fields, 4).readBigInt64BE(0))),
    }),
    visit,
  );
}

/** A live memory without a vector of the current model, as the background embedder reads it. */
export interface MemoryToEmbed {
  readonly id: string;
  readonly userId: string;
  readonly leafIndex: number;
  readonly namespace: string | null;
  readonly iv: Uint8Array;
  readonly ciphertext: Uint8Array;
  /** The owner's data key wrapped under a master key (the embedder unwraps it). */
  readonly wrappedDataKey: Uint8Array;
}

/**
 * Service-wide (the background embedder and `pnpm reembed`, no user-facing route): live memories,
 * of every user, that have no vector of `modelId`, in (user id, leaf index) order after `after`,
 * at most `limit`. Namespace prefixes (EMBEDDINGS_NAMESPACES) are checked by the caller.
 */
export async function listMemoriesWithoutVector(
  db: Executor,
  modelId: string,
  options: {
    readonly after: { readonly userId: string; readonly leafIndex: number } | null;
    readonly limit: number;
  },
): Promise<MemoryToEmbed[]> {
  const { after, limit } = options;
  const rows = await db
    .select({
      id: memories.id,
      userId: memories.userId,
      leafIndex: memories.leafIndex,
      namespace: memories.namespace,
      iv: memories.iv,
      ciphertext: memories.ciphertext,
      wrappedDataKey: users.wrappedDataKey,
    })
    .from(memories)
    .innerJoin(users, eq(users.id, memories.userId))
    .where(
      and(
        isNull(memories.deletedAt),
        after === null
          ? undefined
          : sql`(${memories.userId}, ${memories.leafIndex}) > (${after.userId}, ${after.leafIndex})`,
        sql`not exists (select 1 from ${memoryVectors} v where v.memory_id = ${memories.id} and v.model_id = ${modelId})`,
      ),
    )
    .orderBy(asc(memories.userId), asc(memories.leafIndex))
    .limit(limit);
  return rows.filter((row): row is MemoryToEmbed => row.iv !== null && row.ciphertext !== null);
}

/**
 * Service-wide (`pnpm reembed --prune`): deletes every vector of a model other than `modelId`,
 * and those models' recall vector segments, in one transaction.
 * @returns how many vectors were deleted.
 */
export async function deleteVectorsOfOtherModels(db: Executor, modelId: string): Promise<number> {
  return db.transaction(async (tx) => {
    await tx.delete(recallVectorSegments).where(ne(recallVectorSegments.modelId, modelId));
    const rows = await tx
      .delete(memoryVectors)
      .where(ne(memoryVectors.modelId, modelId))
      .returning({ memoryId: memoryVectors.memoryId });
    return rows.length;
  });
}

/** Within a deletion's transaction: deletes every vector of the user's memory `memoryId`. */
export async function deleteVectorsOf(
  tx: Executor,
  userId: string,
  memoryId: string,
): Promise<void> {
  await tx
    .delete(memoryVectors)
    .where(and(eq(memoryVectors.userId, userId), eq(memoryVectors.memoryId, memoryId)));
}
