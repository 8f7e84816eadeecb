/**
 * The anchoring queue (docs/protocol.md §7): the leaves not anchored yet, per user and service
 * wide, the log's leaf count the sweep compares with the saved tree, and marking leaves anchored
 * once a commit of their root confirmed.
 * @module
 */
import { and, asc, count, eq, lt, max, min } from "drizzle-orm";
import type { Executor } from "../client.js";
import { memories } from "../schema/memories.js";
import { users } from "../schema/users.js";

/**
 * Number of leaves in the user's log, deleted memories included (their leaves stay): max(leaf
 * index) + 1 through the (user_id, leaf_index) unique index, O(log n). Equals the row count while
 * the leaf indices are contiguous, which checkTree verifies. The anchor service compares it with
 * the persisted tree size to detect a stale tree.
 */
export async function getLeafCount(db: Executor, userId: string): Promise<number> {
  const rows = await db
    .select({ last: max(memories.leafIndex) })
    .from(memories)
    .where(eq(memories.userId, userId));
  const last = rows[0]?.last;
  return last === null || last === undefined ? 0 : Number(last) + 1;
}

/** Pending (unanchored) leaves of one user. */
export interface PendingLeaves {
  /** Number of leaves with `anchored = false` (deleted ones included: their leaves stay). */
  readonly count: number;
  /** Creation time of the oldest of them; null when none. */
  readonly oldestCreatedAt: Date | null;
}

/** The user's unanchored leaves: count and oldest creation time (seal policy, docs/protocol.md §7). */
export async function getPendingLeaves(db: Executor, userId: string): Promise<PendingLeaves> {
  const rows = await db
    .select({ count: count(), oldestCreatedAt: min(memories.createdAt) })
    .from(memories)
    .where(and(eq(memories.userId, userId), eq(memories.anchored, false)));
  const row = rows[0];
  return { count: row?.count ?? 0, oldestCreatedAt: row?.oldestCreatedAt ?? null };
}

/** A user with unanchored leaves, as the anchor sweep needs it. */
export interface PendingUser extends PendingLeaves {
  readonly userId: string;
  /** The wallet key, base58 (seed of the commitment PDA). */
  readonly ownerPubkey: string;
}

/**
 * Service-wide (anchor service only): every user with unanchored leaves, with the count and the
 * oldest creation time, oldest first.
 */
export async function listUsersWithPendingLeaves(db: Executor): Promise<PendingUser[]> {
  const rows = await db
    .select({
      userId: memories.userId,
      ownerPubkey: users.ownerPubkey,
      count: count(),
      oldestCreatedAt: min(memories.createdAt),
    })
    .from(memories)
    .innerJoin(users, eq(users.id, memories.userId))
    .where(eq(memories.anchored, false))
    .groupBy(memories.userId, users.ownerPubkey)
    .orderBy(asc(min(memories.createdAt)));
  return rows.map((r) => ({ ...r, oldestCreatedAt: r.oldestCreatedAt ?? null }));
}

/**
 * Service-wide (metrics): creation time of the oldest unanchored leaf of any user, or null.
 */
export async function getOldestPendingCreatedAt(db: Executor): Promise<Date | null> {
  const rows = await db
    .select({ oldest: min(memories.createdAt) })
    .from(memories)
    .where(eq(memories.anchored, false));
  return rows[0]?.oldest ?? null;
}

/**
 * Marks the user's leaves with index < `upToLeafIndexExclusive` as anchored (after a commit of a
 * root of that size confirmed).
 * @returns the number of memories newly marked.
 * @throws RangeError when the bound is not a non-negative integer.
 */
export async function markAnchored(
  db: Executor,
  userId: string,
  upToLeafIndexExclusive: number,
): Promise<number> {
  if (!Number.isSafeInteger(upToLeafIndexExclusive) || upToLeafIndexExclusive < 0) {
    throw new RangeError(
      `upToLeafIndexExclusive must be a non-negative integer, got ${upToLeafIndexExclusive}`,
    );
  }
  const rows = await db
    .update(memories)
    .set({ anchored: true })
    .where(
      and(
        eq(memories.userId, userId),
        eq(memories.anchored, false),
        lt(memories.leafIndex, upToLeafIndexExclusive),
      ),
    )
    .returning({ id: memories.id });
  return rows.length;
}
