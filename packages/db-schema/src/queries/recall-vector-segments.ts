/**
 * Recall vector segment queries (docs/data-model.md "Recall segments", docs/protocol.md §4.5
 * "Recall"): the cold load's one read of a user's vector segments of one model, sealing a leaf
 * range's vectors once, re-sealing or dropping the segments that hold a deleted memory (in the
 * deletion's transaction, `deleteMemory`), and dropping a model's segments when a vector of the
 * range arrives after the seal (in the insertion's transaction, `insertMemoryVectors`). Other
 * models' segments go with their vectors (`deleteVectorsOfOtherModels`).
 *
 * Invariant: a vector segment of (user, model, range) holds the vector of that model of every
 * live memory of the range that has one. Sealing locks the range's live memories `FOR NO KEY
 * UPDATE` while it reads their vectors; an insertion locks its memories `FOR SHARE` (the two
 * conflict), so an insertion either committed before the seal read (its vector is inside) or
 * drops the segment after the seal committed.
 * @module
 */
import { and, asc, eq, gt, gte, isNull, lt, lte, sql } from "drizzle-orm";
import type { Executor } from "../client.js";
import { memories } from "../schema/memories.js";
import { memoryVectors } from "../schema/memory-vectors.js";
import {
  type RecallVectorSegmentRow,
  recallVectorSegments,
} from "../schema/recall-vector-segments.js";
import { copyLiteral, copyUserId, streamCopyBinary } from "./_copy-binary.js";
import { checkSegmentRange, SEGMENT_COPY_COLUMNS, segmentCopyFields } from "./_segment-rows.js";
import type { SealedSegment } from "./recall-segments.js";

/** A stored vector of a range being sealed: its memory, leaf and sealed bytes. */
export interface RangeVector {
  readonly memoryId: string;
  readonly leafIndex: number;
  readonly iv: Uint8Array;
  readonly ciphertext: Uint8Array;
}

/**
 * The cold load's read: the user's vector segments of `modelId` in leaf order, in ONE binary
 * COPY whose rows are handed to `visit` as they arrive. `iv` and `ciphertext` are views of the
 * received bytes: copy what you keep. When `visit` throws, the remaining rows are skipped and the
 * first error is rethrown once the stream has ended.
 * @returns the number of segments visited.
 * @throws RangeError when `userId` is not a UUID or `modelId` holds U+0000; TypeError when `db`
 *   is a transaction or the stream is malformed; the statement's PostgreSQL error; whatever
 *   `visit` threw.
 */
export async function streamRecallVectorSegments(
  db: Executor,
  userId: string,
  modelId: string,
  visit: (segment: RecallVectorSegmentRow) => void,
): Promise<number> {
  const statement = `copy (select ${SEGMENT_COPY_COLUMNS}
    from recall_vector_segments where user_id = '${copyUserId(userId)}'
      and model_id = ${copyLiteral(modelId)} order by first_leaf)
    to stdout (format binary)`;
  return streamCopyBinary(
    db,
    "streamRecallVectorSegments",
    statement,
    (fields) => ({ userId, modelId, ...segmentCopyFields(fields, "recall vector segment") }),
    visit,
  );
}

/**
 * Seals the user's vectors of `modelId` in the leaf range [firstLeaf, endLeaf) once, in one
 * transaction: nothing when the range is sealed for the model already; otherwise the range's live
 * memories are locked `FOR NO KEY UPDATE` (in leaf order), their stored vectors of the model are
 * read, `seal` builds the segment from exactly those, and the row is inserted (`ON CONFLICT DO
 * NOTHING`: instances may race).
 * @param seal gets the range's stored vectors of the model, in leaf order.
 * @returns true when this call inserted the segment.
 * @throws RangeError on a bad range; whatever `seal` throws (nothing is written then).
 */
export async function sealRecallVectorSegment(
  db: Executor,
  userId: string,
  modelId: string,
  range: { readonly firstLeaf: number; readonly endLeaf: number },
  seal: (vectors: readonly RangeVector[]) => SealedSegment,
): Promise<boolean> {
  const { firstLeaf, endLeaf } = range;
  checkSegmentRange(firstLeaf, endLeaf);
  return db.transaction(async (tx) => {
    const [existing] = await tx
      .select({ firstLeaf: recallVectorSegments.firstLeaf })
      .from(recallVectorSegments)
      .where(
        and(
          eq(recallVectorSegments.userId, userId),
          eq(recallVectorSegments.modelId, modelId),
          eq(recallVectorSegments.firstLeaf, firstLeaf),
        ),
      );
    if (existing) {
      return false;
    }
    const inRange = and(
      eq(memories.userId, userId),
      gte(memories.leafIndex, firstLeaf),
      lt(memories.leafIndex, endLeaf),
      isNull(memories.deletedAt),
    );
    await tx
      .select({ id: memories.id })
      .from(memories)
      .where(inRange)
      .orderBy(asc(memories.leafIndex))
      .for("no key update");
    const vectors = await tx
      .select({
        memoryId: memoryVectors.memoryId,
        leafIndex: memoryVectors.leafIndex,
        iv: memoryVectors.iv,
        ciphertext: memoryVectors.ciphertext,
      })
      .from(memoryVectors)
      .innerJoin(memories, eq(memories.id, memoryVectors.memoryId))
      .where(and(inRange, eq(memoryVectors.modelId, modelId)))
      .orderBy(asc(memoryVectors.leafIndex));
    const sealed = seal(vectors);
    const inserted = await tx
      .insert(recallVectorSegments)
      .values({ userId, modelId, firstLeaf, endLeaf, ...sealed })
      .onConflictDoNothing()
      .returning({ firstLeaf: recallVectorSegments.firstLeaf });
    return inserted.length === 1;
  });
}

/** The user's vector segments (every model, or `modelId`'s) whose range holds `leafIndex`. */
function covering(userId: string, leafIndex: number, modelId?: string) {
  return and(
    eq(recallVectorSegments.userId, userId),
    modelId === undefined ? undefined : eq(recallVectorSegments.modelId, modelId),
    lte(recallVectorSegments.firstLeaf, leafIndex),
    gt(recallVectorSegments.endLeaf, leafIndex),
  );
}

/**
 * Within a deletion's transaction: every vector segment (of every model) whose range holds
 * `leafIndex`, locked `FOR UPDATE`, handed to `reseal`; its answer replaces the segment (same
 * model and range, fresh seal).
 * @returns how many segments were re-sealed.
 */
export async function resealRecallVectorSegmentsOf(
  tx: Executor,
  userId: string,
  leafIndex: number,
  reseal: (segment: RecallVectorSegmentRow) => SealedSegment,
): Promise<number> {
  const segments = await tx
    .select()
    .from(recallVectorSegments)
    .where(covering(userId, leafIndex))
    .orderBy(asc(recallVectorSegments.modelId))
    .for("update");
  for (const segment of segments) {
    const sealed = reseal(segment);
    await tx
      .update(recallVectorSegments)
      .set({ ...sealed, sealedAt: sql`now()` })
      .where(
        and(
          eq(recallVectorSegments.userId, userId),
          eq(recallVectorSegments.modelId, segment.modelId),
          eq(recallVectorSegments.firstLeaf, segment.firstLeaf),
        ),
      );
  }
  return segments.length;
}

/**
 * Within a transaction: drops the user's vector segments whose range holds one of `leafIndexes`
 * (of `modelId` only, or of every model when it is undefined). Cold loads read those ranges'
 * vectors from `memory_vectors` until they are sealed again.
 */
export async function dropRecallVectorSegmentsOf(
  tx: Executor,
  userId: string,
  leafIndexes: readonly number[],
  modelId?: string,
): Promise<void> {
  if (leafIndexes.length === 0) {
    return;
  }
  if (leafIndexes.length === 1) {
    await tx
      .delete(recallVectorSegments)
      .where(covering(userId, leafIndexes[0] as number, modelId));
    return;
  }
  await tx.delete(recallVectorSegments).where(
    and(
      eq(recallVectorSegments.userId, userId),
      modelId === undefined ? undefined : eq(recallVectorSegments.modelId, modelId),
      sql`exists (select 1 from unnest(${`{${leafIndexes.join(",")}}`}::int8[]) as l(leaf)
          where l.leaf >= ${recallVectorSegments.firstLeaf} and l.leaf < ${recallVectorSegments.endLeaf})`,
    ),
  );
}
