/**
 * Reads of the checkpoint log for a user's proofs (docs/protocol.md §6.1 "The proof bundle",
 * §13.5 "The checkpoint log"): the logged user checkpoint that covers a leaf, and the latest head
 * confirmed on chain.
 * @module
 */
import { and, asc, desc, eq, gt, isNotNull, lt, max, sql } from "drizzle-orm";
import type { Executor } from "../client.js";
import {
  type CheckpointLogHead,
  checkpointLogEntries,
  checkpointLogHeads,
} from "../schema/checkpoint-log.js";

/** A logged user checkpoint: its place in the checkpoint log and its texts. */
export interface LoggedUserCheckpoint {
  /** Its index in the checkpoint log. */
  readonly leafIndex: number;
  /** The size of the user's tree it records. */
  readonly treeSize: number;
  /** The entry: the unsigned note text, UTF-8 bytes. */
  readonly entry: Uint8Array;
  /** The signed note. */
  readonly note: string;
}

/**
 * The user's earliest logged checkpoint (lowest checkpoint-log index) whose size covers leaf
 * `leafIndex` (size > leafIndex) and whose signed note is stored. Scoped by `userId`.
 * @returns the entry, or null when no logged checkpoint of the user covers the leaf.
 */
export async function loggedCheckpointCovering(
  db: Executor,
  userId: string,
  leafIndex: number,
): Promise<LoggedUserCheckpoint | null> {
  const [row] = await db
    .select({
      leafIndex: checkpointLogEntries.leafIndex,
      treeSize: checkpointLogEntries.treeSize,
      entry: checkpointLogEntries.entry,
      note: checkpointLogEntries.note,
    })
    .from(checkpointLogEntries)
    .where(
      and(
        eq(checkpointLogEntries.userId, userId),
        gt(checkpointLogEntries.treeSize, leafIndex),
        isNotNull(checkpointLogEntries.note),
      ),
    )
    .orderBy(asc(checkpointLogEntries.leafIndex))
    .limit(1);
  return row ? { ...row, note: row.note as string } : null;
}

/**
 * The checkpoint log's latest head whose anchor (signature and account) is recorded, i.e.
 * confirmed on chain; null before the first.
 */
export async function latestAnchoredCheckpointLogHead(
  db: Executor,
): Promise<CheckpointLogHead | null> {
  const [head] = await db
    .select()
    .from(checkpointLogHeads)
    .where(
      and(
        isNotNull(checkpointLogHeads.anchorSignature),
        isNotNull(checkpointLogHeads.anchorAccount),
      ),
    )
    .orderBy(desc(checkpointLogHeads.treeSize))
    .limit(1);
  return head ?? null;
}

/**
 * How many leaves of the user's log the checkpoint log covers on chain: the largest size among
 * the user's entries below the size of the latest head whose anchor is recorded; 0 when none.
 * Scoped by `userId`.
 */
export async function checkpointLogCoveredSize(db: Executor, userId: string): Promise<number> {
  const [row] = await db
    .select({ size: max(checkpointLogEntries.treeSize) })
    .from(checkpointLogEntries)
    .where(
      and(
        eq(checkpointLogEntries.userId, userId),
        lt(
          checkpointLogEntries.leafIndex,
          sql`(select coalesce(max(${checkpointLogHeads.treeSize}), 0) from ${checkpointLogHeads}
            where ${checkpointLogHeads.anchorSignature} is not null)`,
        ),
      ),
    );
  return row?.size ?? 0;
}
