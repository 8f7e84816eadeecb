/**
 * Recall segment queries (docs/data-model.md "Recall segments"): the cold load's one read of a
 * user's sealed segments, idempotent sealing that never seals a deleted memory, the re-seal that
 * a deletion runs in its own transaction, and dropping a user's segments (rebuild).
 * @module
 */
import { and, asc, eq, gt, gte, isNull, lt, lte, sql } from "drizzle-orm";
import type { Database, Executor } from "../client.js";
import { memories } from "../schema/memories.js";
import { type RecallSegmentRow, recallSegments } from "../schema/recall-segments.js";
import { copyUserId, streamCopyBinary } from "./_copy-binary.js";
import { checkSegmentRange, SEGMENT_COPY_COLUMNS, segmentCopyFields } from "./_segment-rows.js";

/** A segment as sealed by its caller. */
export interface SealedSegment {
  readonly format: number;
  readonly entries: number;
  readonly iv: Uint8Array;
  readonly ciphertext: Uint8Array;
}

/**
 * COPY takes no bind parameters, so the (checked) user id is a literal. Binary format: the
 * ciphertexts arrive as their bytes, not as hex text twice their size (docs/performance.md).
 */
function segmentsCopySql(userId: string): string {
  return `copy (select ${SEGMENT_COPY_COLUMNS}
    from recall_segments where user_id = '${copyUserId(userId)}' order by first_leaf)
    to stdout (format binary)`;
}

/**
 * The cold load's read: the user's segments in leaf order, in ONE binary COPY whose rows are
 * handed to `visit` as they arrive (the caller opens one segment while PostgreSQL is still
 * sending the next). `iv` and `ciphertext` are views of the received bytes: copy what you keep.
 * When `visit` throws, the remaining rows are skipped and the first error is rethrown once the
 * stream has ended.
 * @returns the number of segments visited.
 * @throws RangeError when `userId` is not a UUID; TypeError when `db` is a transaction (no
 *   postgres.js client of its own) or the stream is malformed or cut short; the statement's
 *   PostgreSQL error; whatever `visit` threw.
 */
export async function streamRecallSegments(
  db: Database,
  userId: string,
  visit: (segment: RecallSegmentRow) => void,
): Promise<number> {
  return streamCopyBinary(
    db,
    "streamRecallSegments",
    segmentsCopySql(userId),
    (fields) => ({ userId, ...segmentCopyFields(fields, "recall segment") }),
    visit,
  );
}

/** The user's segments, in leaf order. */
export async function listRecallSegments(
  db: Executor,
  userId: string,
): Promise<RecallSegmentRow[]> {
  return db
    .select()
    .from(recallSegments)
    .where(eq(recallSegments.userId, userId))
    .orderBy(asc(recallSegments.firstLeaf));
}

/**
 * Seals the user's leaf range [firstLeaf, endLeaf) once, in one transaction: the live memory ids
 * of the range are read `FOR SHARE` (a concurrent deletion waits for this transaction, then
 * re-seals the new segment itself; one that committed first is not live here), `seal` builds
 * the segment from exactly those ids, and the row is inserted unless a segment starting at
 * `firstLeaf` reaches `endLeaf` already; a shorter one there (a tail segment,
 * docs/data-model.md "Recall segments") is replaced. Several instances may race; the longest
 * range wins, nothing breaks.
 * @param seal gets the live ids of the range; returns the sealed segment.
 * @returns true when this call inserted or replaced the segment.
 * @throws RangeError on a bad range; whatever `seal` throws (nothing is written then).
 */
export async function sealRecallSegment(
  db: Executor,
  userId: string,
  range: { readonly firstLeaf: number; readonly endLeaf: number },
  seal: (liveIds: ReadonlySet<string>) => SealedSegment,
): Promise<boolean> {
  const { firstLeaf, endLeaf } = range;
  checkSegmentRange(firstLeaf, endLeaf);
  return db.transaction(async (tx) => {
    const live = await tx
      .select({ id: memories.id })
      .from(memories)
      .where(
        and(
          eq(memories.userId, userId),
          gte(memories.leafIndex, firstLeaf),
          lt(memories.leafIndex, endLeaf),
          isNull(memories.deletedAt),
        ),
      )
      .for("share");
    const sealed = seal(new Set(live.map((row) => row.id)));
    const inserted = await tx
      .insert(recallSegments)
      .values({ userId, firstLeaf, endLeaf, ...sealed })
      .onConflictDoUpdate({
        target: [recallSegments.userId, recallSegments.firstLeaf],
        set: {
          endLeaf: sql`excluded.end_leaf`,
          format: sql`excluded.format`,
          entries: sql`excluded.entries`,
          iv: sql`excluded.iv`,
          ciphertext: sql`excluded.ciphertext`,
          sealedAt: sql`now()`,
        },
        setWhere: sql`${recallSegments.endLeaf} < excluded.end_leaf`,
      })
      .returning({ firstLeaf: recallSegments.firstLeaf });
    return inserted.length === 1;
  });
}

/**
 * Within a deletion's transaction: the user's segment covering `leafIndex`, locked
 * `FOR UPDATE`, handed to `reseal`; its answer replaces the segment (same range, fresh seal).
 * @returns true when a segment covered the leaf.
 */
export async function resealRecallSegmentOf(
  tx: Executor,
  userId: string,
  leafIndex: number,
  reseal: (segment: RecallSegmentRow) => SealedSegment,
): Promise<boolean> {
  const [segment] = await tx
    .select()
    .from(recallSegments)
    .where(
      and(
        eq(recallSegments.userId, userId),
        lte(recallSegments.firstLeaf, leafIndex),
        gt(recallSegments.endLeaf, leafIndex),
      ),
    )
    .for("update");
  if (!segment) {
    return false;
  }
  const sealed = reseal(segment);
  await tx
    .update(recallSegments)
    .set({ ...sealed, sealedAt: sql`now()` })
    .where(and(eq(recallSegments.userId, userId), eq(recallSegments.firstLeaf, segment.firstLeaf)));
  return true;
}

/**
 * Drops every segment of the user (a rebuild: the sealer seals them again from the rows).
 * @returns how many were dropped.
 */
export async function deleteRecallSegments(db: Executor, userId: string): Promise<number> {
  const rows = await db
    .delete(recallSegments)
    .where(eq(recallSegments.userId, userId))
    .returning({ firstLeaf: recallSegments.firstLeaf });
  return rows.length;
}

/**
 * Within a deletion's transaction without a re-sealer: drops the user's segment covering
 * `leafIndex` (cold loads read that range from the rows until it is sealed again).
 */
export async function dropRecallSegmentOf(
  tx: Executor,
  userId: string,
  leafIndex: number,
): Promise<void> {
  await tx
    .delete(recallSegments)
    .where(
      and(
        eq(recallSegments.userId, userId),
        lte(recallSegments.firstLeaf, leafIndex),
        gt(recallSegments.endLeaf, leafIndex),
      ),
    );
}

/**
 * The user's superseded memories with a leaf index below `endLeaf`, as `[leafIndex,
 * supersededBy]`: what a cold load from segments (which do not keep the mutable `superseded_by`)
 * adds back, finding each memory by its leaf index.
 */
export async function listSupersededBefore(
  db: Executor,
  userId: string,
  endLeaf: number,
): Promise<[leafIndex: number, supersededBy: string][]> {
  const rows = await db
    .select({ leafIndex: memories.leafIndex, supersededBy: memories.supersededBy })
    .from(memories)
    .where(
      and(
        eq(memories.userId, userId),
        sql`${memories.supersededBy} is not null`,
        lt(memories.leafIndex, endLeaf),
      ),
    );
  return rows.map((row) => [row.leafIndex, row.supersededBy as string]);
}
