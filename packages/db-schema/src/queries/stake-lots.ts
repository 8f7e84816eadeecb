/**
 * Stake lot queries: the maturity cache of CONTRACT §10 (the chain holds the balance).
 * @module
 */
import { and, asc, eq } from "drizzle-orm";
import type { Executor } from "../client.js";
import { type StakeLot, stakeLots } from "../schema/stake-lots.js";

/** Input of {@link insertStakeLot}. */
export interface NewStakeLot {
  readonly userId: string;
  /** Lamports staked (positive). */
  readonly amountLamports: bigint;
  readonly unlockAt: Date;
  /** The stake transaction's signature, base58; recording it twice is a no-op. */
  readonly signature: string;
}

/**
 * Records a stake lot; idempotent per transaction signature.
 * @returns the stored lot, or null when the signature is already recorded for another user.
 * @throws RangeError when `amountLamports` is not a positive bigint.
 */
export async function insertStakeLot(db: Executor, input: NewStakeLot): Promise<StakeLot | null> {
  if (typeof input.amountLamports !== "bigint" || input.amountLamports <= 0n) {
    throw new RangeError("amountLamports must be a positive bigint");
  }
  const inserted = await db
    .insert(stakeLots)
    .values({
      userId: input.userId,
      amountLamports: input.amountLamports,
      unlockAt: input.unlockAt,
      signature: input.signature,
    })
    .onConflictDoNothing({ target: stakeLots.signature })
    .returning();
  if (inserted[0]) {
    return inserted[0];
  }
  const existing = await db
    .select()
    .from(stakeLots)
    .where(and(eq(stakeLots.userId, input.userId), eq(stakeLots.signature, input.signature)))
    .limit(1);
  return existing[0] ?? null;
}

/** The user's stake lots, earliest unlock first. */
export async function listStakeLots(db: Executor, userId: string): Promise<StakeLot[]> {
  return db
    .select()
    .from(stakeLots)
    .where(eq(stakeLots.userId, userId))
    .orderBy(asc(stakeLots.unlockAt), asc(stakeLots.id));
}
