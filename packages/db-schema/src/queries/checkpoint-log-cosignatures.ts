/**
 * Stored witness cosignatures of the checkpoint log (docs/protocol.md §13.6 "Witnesses"): the
 * anchor service records what each witness answered; core-api appends the lines to the served
 * checkpoint. Public by design, like the log itself.
 * @module
 */
import { asc, eq, max } from "drizzle-orm";
import type { Executor } from "../client.js";
import { checkpointLogCosignatures } from "../schema/checkpoint-log-cosignatures.js";

/** One cosignature to store. */
export interface CheckpointLogCosignature {
  /** The size of the cosigned head (a row of checkpoint_log_heads). */
  readonly treeSize: number;
  /** The witness's verifier key. */
  readonly witness: string;
  /** The signature line, ending in `\n`. */
  readonly line: string;
  /** The cosignature's timestamp. */
  readonly cosignedAt: Date;
}

/**
 * Stores a cosignature; a second one by the same witness for the same head is ignored.
 * @returns whether a row was written.
 * @throws the database's errors (a foreign-key violation when no head has that size).
 */
export async function recordCheckpointLogCosignature(
  db: Executor,
  cosignature: CheckpointLogCosignature,
): Promise<boolean> {
  const rows = await db
    .insert(checkpointLogCosignatures)
    .values(cosignature)
    .onConflictDoNothing()
    .returning({ treeSize: checkpointLogCosignatures.treeSize });
  return rows.length > 0;
}

/**
 * The largest head size `witness` (a verifier key) has a stored cosignature for, or 0 when none:
 * the `old` size the log sends it next.
 */
export async function latestCosignedSize(db: Executor, witness: string): Promise<number> {
  const [row] = await db
    .select({ size: max(checkpointLogCosignatures.treeSize) })
    .from(checkpointLogCosignatures)
    .where(eq(checkpointLogCosignatures.witness, witness));
  return row?.size ?? 0;
}

/** The stored cosignature lines of the head at `treeSize`, ordered by witness verifier key. */
export async function checkpointLogCosignatureLines(
  db: Executor,
  treeSize: number,
): Promise<string[]> {
  const rows = await db
    .select({ line: checkpointLogCosignatures.line })
    .from(checkpointLogCosignatures)
    .where(eq(checkpointLogCosignatures.treeSize, treeSize))
    .orderBy(asc(checkpointLogCosignatures.witness));
  return rows.map((r) => r.line);
}
