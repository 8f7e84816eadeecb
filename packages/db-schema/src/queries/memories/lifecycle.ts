/**
 * A memory's lifecycle after its append: superseding it by a new version (docs/protocol.md §4.7
 * "Updates and history") and deleting it, which keeps its leaf so roots and proofs stay valid.
 * @module
 */
import { and, eq, isNull } from "drizzle-orm";
import type { Executor } from "../../client.js";
import { memories } from "../../schema/memories.js";
import type { RecallSegmentRow } from "../../schema/recall-segments.js";
import type { RecallVectorSegmentRow } from "../../schema/recall-vector-segments.js";
import { deleteVectorsOf } from "../memory-vectors.js";
import {
  dropRecallSegmentOf,
  resealRecallSegmentOf,
  type SealedSegment,
} from "../recall-segments.js";
import {
  dropRecallVectorSegmentsOf,
  resealRecallVectorSegmentsOf,
} from "../recall-vector-segments.js";
import { appendMemories, type NewMemory } from "./append.js";
import { namespaceUnder } from "./read.js";

/** Outcome of {@link supersedeMemory}. */
export type SupersedeResult =
  | { readonly status: "superseded"; readonly leafIndex: number; readonly size: number }
  | { readonly status: "not_found" }
  | { readonly status: "conflict"; readonly reason: "deleted" | "superseded" };

/**
 * `PUT /memories/:id` (docs/protocol.md §4.7 "Updates and history"): in ONE transaction, locks the
 * user's memory `oldId` (`SELECT … FOR UPDATE`), and when it is live, current and within
 * `confinedTo`, appends `item` (whose `supersedes` must be `oldId`) to the log as
 * {@link appendMemories} does and marks the old row `superseded_by` the new id. Two concurrent
 * updates of one memory queue on the row lock: the second sees it superseded (conflict); the
 * partial unique index on (user_id, supersedes) backs this up.
 * @returns `superseded` with the new leaf index and tree size; `not_found` for an unknown id,
 *   another user's or one outside `confinedTo`; `conflict` for a deleted or already superseded one.
 * @throws RangeError when `item.supersedes` is not `oldId`; as {@link appendMemories}.
 */
export async function supersedeMemory(
  db: Executor,
  userId: string,
  oldId: string,
  item: NewMemory,
  confinedTo: string | null = null,
): Promise<SupersedeResult> {
  if (item.supersedes !== oldId) {
    throw new RangeError("item.supersedes must be the superseded memory's id");
  }
  return db.transaction(async (tx) => {
    const [old] = await tx
      .select({
        deletedAt: memories.deletedAt,
        supersededBy: memories.supersededBy,
        namespace: memories.namespace,
      })
      .from(memories)
      .where(and(eq(memories.userId, userId), eq(memories.id, oldId)))
      .for("update");
    if (
      !old ||
      (confinedTo !== null && (old.namespace === null || !old.namespace.startsWith(confinedTo)))
    ) {
      return { status: "not_found" } as const;
    }
    if (old.deletedAt !== null) {
      return { status: "conflict", reason: "deleted" } as const;
    }
    if (old.supersededBy !== null) {
      return { status: "conflict", reason: "superseded" } as const;
    }
    const appended = await appendMemories(tx, userId, [item]);
    await tx
      .update(memories)
      .set({ supersededBy: item.id })
      .where(and(eq(memories.userId, userId), eq(memories.id, oldId)));
    return {
      status: "superseded",
      leafIndex: (appended.items[0] as { leafIndex: number }).leafIndex,
      size: appended.size,
    } as const;
  });
}

/** What {@link deleteMemory} re-seals the segments holding a deleted memory with. */
export interface SegmentResealers {
  /** The covering recall segment again without the memory `memoryId`. */
  readonly content: (segment: RecallSegmentRow, memoryId: string) => SealedSegment;
  /** A covering vector segment (one per model) again without the vector of `memoryId`. */
  readonly vectors: (segment: RecallVectorSegmentRow, memoryId: string) => SealedSegment;
}

/**
 * Deletes the user's memory `id`: nulls its ciphertext and iv and sets `deletedAt`; the leaf hash,
 * leaf index and tree nodes stay, so roots and proofs stay valid (docs/protocol.md §5, §1). In the
 * same transaction, the recall segment and the vector segments (every model's) holding the memory
 * (docs/data-model.md "Recall segments") are re-sealed without it by `reseal`, or dropped when no
 * `reseal` is given, so no segment ever keeps a deleted memory's content or vector; its vectors
 * (every model's) are deleted too.
 * @param confinedTo the credential's namespace confinement (null: none): a memory outside it is
 *   not deleted.
 * @param reseal builds the covering segments again without the memory (given the segment row and
 *   the deleted memory's id).
 * @returns true when a live memory of `userId` was deleted; false when unknown, another user's,
 *   outside `confinedTo`, or already deleted.
 */
export async function deleteMemory(
  db: Executor,
  userId: string,
  id: string,
  now: Date = new Date(),
  confinedTo: string | null = null,
  reseal?: SegmentResealers,
): Promise<boolean> {
  return db.transaction(async (tx) => {
    const [deleted] = await tx
      .update(memories)
      .set({ ciphertext: null, iv: null, deletedAt: now })
      .where(
        and(
          eq(memories.userId, userId),
          eq(memories.id, id),
          isNull(memories.deletedAt),
          confinedTo === null ? undefined : namespaceUnder(confinedTo),
        ),
      )
      .returning({ leafIndex: memories.leafIndex });
    if (!deleted) {
      return false;
    }
    await deleteVectorsOf(tx, userId, id);
    if (reseal) {
      await resealRecallSegmentOf(tx, userId, deleted.leafIndex, (segment) =>
        reseal.content(segment, id),
      );
      await resealRecallVectorSegmentsOf(tx, userId, deleted.leafIndex, (segment) =>
        reseal.vectors(segment, id),
      );
    } else {
      await dropRecallSegmentOf(tx, userId, deleted.leafIndex);
      await dropRecallVectorSegmentsOf(tx, userId, [deleted.leafIndex]);
    }
    return true;
  });
}
