/**
 * Anchored checkpoint queries (CONTRACT §5: proofs are cut at the latest anchored checkpoint;
 * `GET /log` reports it).
 * @module
 */
import type { Hash } from "@svc/merkle-log";
import { and, desc, eq } from "drizzle-orm";
import type { Executor } from "../client.js";
import { type AnchoredCheckpoint, anchoredCheckpoints } from "../schema/anchored-checkpoints.js";

/** Input of {@link insertAnchoredCheckpoint}. */
export interface NewAnchoredCheckpoint {
  readonly userId: string;
  readonly treeSize: number;
  readonly root: Hash;
  /** The commitment account's nonce after this commit. */
  readonly nonce: number;
  /** The confirmed transaction's signature, base58. */
  readonly signature: string;
  readonly slot?: number | null;
  readonly anchoredAt?: Date;
}

/**
 * Records a confirmed anchoring. Idempotent per (user, tree size): when that size is already
 * recorded, the existing row is returned unchanged.
 * @returns the stored checkpoint for (userId, treeSize).
 */
export async function insertAnchoredCheckpoint(
  db: Executor,
  input: NewAnchoredCheckpoint,
): Promise<AnchoredCheckpoint> {
  const inserted = await db
    .insert(anchoredCheckpoints)
    .values({
      userId: input.userId,
      treeSize: input.treeSize,
      root: input.root,
      nonce: input.nonce,
      signature: input.signature,
      slot: input.slot ?? null,
      ...(input.anchoredAt ? { anchoredAt: input.anchoredAt } : {}),
    })
    .onConflictDoNothing({ target: [anchoredCheckpoints.userId, anchoredCheckpoints.treeSize] })
    .returning();
  const row = inserted[0] ?? (await getAnchoredCheckpointBySize(db, input.userId, input.treeSize));
  if (!row) {
    throw new Error(`checkpoint (${input.userId}, ${input.treeSize}) vanished after a conflict`);
  }
  return row;
}

/** The user's checkpoint with the largest tree size, or null when never anchored. */
export async function latestAnchoredCheckpoint(
  db: Executor,
  userId: string,
): Promise<AnchoredCheckpoint | null> {
  const rows = await db
    .select()
    .from(anchoredCheckpoints)
    .where(eq(anchoredCheckpoints.userId, userId))
    .orderBy(desc(anchoredCheckpoints.treeSize))
    .limit(1);
  return rows[0] ?? null;
}

/** The user's checkpoint at exactly `treeSize`, or null. */
export async function getAnchoredCheckpointBySize(
  db: Executor,
  userId: string,
  treeSize: number,
): Promise<AnchoredCheckpoint | null> {
  const rows = await db
    .select()
    .from(anchoredCheckpoints)
    .where(and(eq(anchoredCheckpoints.userId, userId), eq(anchoredCheckpoints.treeSize, treeSize)))
    .limit(1);
  return rows[0] ?? null;
}
