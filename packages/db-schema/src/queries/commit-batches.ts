/**
 * Commit batch queries: the anchoring audit trail (docs/protocol.md §7.6 "One user's anchoring and
 * the commit batches", §7; docs/protocol.md §7) and the monitoring counts of docs/protocol.md §7
 * (batches in `failed`, batches stuck in `submitted`).
 * @module
 */
import type { Hash } from "@verifiable-memory/merkle-log";
import { and, asc, count, eq, gt, gte, lt, notExists, sql } from "drizzle-orm";
import { alias } from "drizzle-orm/pg-core";
import type { Executor } from "../client.js";
import {
  COMMIT_BATCH_STATUSES,
  type CommitBatch,
  type CommitBatchStatus,
  commitBatches,
} from "../schema/commit-batches.js";

/** Input of {@link insertSubmittedBatch}. */
export interface NewCommitBatch {
  readonly userId: string;
  readonly treeSize: number;
  readonly root: Hash;
  /** The on-chain nonce the commit expects. */
  readonly expectedNonce: number;
  /** The transaction signature, when already known. */
  readonly signature?: string | null;
}

/** Records a commit attempt in status `submitted`. */
export async function insertSubmittedBatch(
  db: Executor,
  input: NewCommitBatch,
): Promise<CommitBatch> {
  const rows = await db
    .insert(commitBatches)
    .values({
      userId: input.userId,
      status: "submitted",
      treeSize: input.treeSize,
      root: input.root,
      expectedNonce: input.expectedNonce,
      signature: input.signature ?? null,
    })
    .returning();
  return rows[0] as CommitBatch;
}

/**
 * Moves the user's `submitted` batch `id` to `confirmed`, storing `signature` when given.
 * @returns true when the batch was the user's and still `submitted`.
 */
export async function markBatchConfirmed(
  db: Executor,
  userId: string,
  id: string,
  signature?: string,
): Promise<boolean> {
  const rows = await db
    .update(commitBatches)
    .set({
      status: "confirmed",
      ...(signature ? { signature } : {}),
      updatedAt: sql`now()`,
    })
    .where(
      and(
        eq(commitBatches.userId, userId),
        eq(commitBatches.id, id),
        eq(commitBatches.status, "submitted"),
      ),
    )
    .returning({ id: commitBatches.id });
  return rows.length === 1;
}

/**
 * Moves the user's `submitted` batch `id` to `failed` with an error description (e.g. the nonce
 * race was lost, docs/protocol.md §4).
 * @returns true when the batch was the user's and still `submitted`.
 */
export async function markBatchFailed(
  db: Executor,
  userId: string,
  id: string,
  error: string,
): Promise<boolean> {
  const rows = await db
    .update(commitBatches)
    .set({ status: "failed", error, updatedAt: sql`now()` })
    .where(
      and(
        eq(commitBatches.userId, userId),
        eq(commitBatches.id, id),
        eq(commitBatches.status, "submitted"),
      ),
    )
    .returning({ id: commitBatches.id });
  return rows.length === 1;
}

/** The user's batch `id`, or null. */
export async function getCommitBatch(
  db: Executor,
  userId: string,
  id: string,
): Promise<CommitBatch | null> {
  const rows = await db
    .select()
    .from(commitBatches)
    .where(and(eq(commitBatches.userId, userId), eq(commitBatches.id, id)))
    .limit(1);
  return rows[0] ?? null;
}

/** Service-wide (metrics): number of batches in each status, every status present. */
export async function countBatchesByStatus(
  db: Executor,
): Promise<Record<CommitBatchStatus, number>> {
  const rows = await db
    .select({ status: commitBatches.status, n: count() })
    .from(commitBatches)
    .groupBy(commitBatches.status);
  const counts = Object.fromEntries(COMMIT_BATCH_STATUSES.map((s) => [s, 0])) as Record<
    CommitBatchStatus,
    number
  >;
  for (const row of rows) {
    counts[row.status] = row.n;
  }
  return counts;
}

/**
 * Service-wide (monitoring): batches still `submitted` that were created before `olderThan` and
 * that no later `confirmed` batch of the same user subsumes (a confirmed root covering at least as
 * many leaves), oldest first. A timed-out batch stays `submitted` for the audit trail
 * (docs/protocol.md §7.6 "One user's anchoring and the commit batches"); once subsumed it is benign
 * and is no longer counted, so this list only holds anchoring that is really stalled.
 */
export async function listStuckBatches(db: Executor, olderThan: Date): Promise<CommitBatch[]> {
  const later = alias(commitBatches, "later");
  return db
    .select()
    .from(commitBatches)
    .where(
      and(
        eq(commitBatches.status, "submitted"),
        lt(commitBatches.createdAt, olderThan),
        notExists(
          db
            .select({ one: sql`1` })
            .from(later)
            .where(
              and(
                eq(later.userId, commitBatches.userId),
                eq(later.status, "confirmed"),
                gte(later.treeSize, commitBatches.treeSize),
                gt(later.createdAt, commitBatches.createdAt),
              ),
            ),
        ),
      ),
    )
    .orderBy(asc(commitBatches.createdAt));
}
