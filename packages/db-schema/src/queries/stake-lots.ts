/**
 * Stake lot queries: the maturity cache of a user's on-chain stake vault (the chain holds the
 * balance; these rows are rewritten from it on every staking read and never used as a balance).
 * Source: docs/staking.md.
 * @module
 */
import { asc, eq } from "drizzle-orm";
import type { Database } from "../client.js";
import { type StakeLot, stakeLots } from "../schema/stake-lots.js";

/** One lot as read from the vault, in vault order. */
export interface CachedStakeLot {
  /** Lamports (positive). */
  readonly amountLamports: bigint;
  /** Maturity: the chain-clock instant the lot can be unstaked. */
  readonly unlockAt: Date;
}

/**
 * Replaces the user's cached lots with `lots` (vault order becomes `position` 0…n-1) in one
 * transaction, so a reader never sees a mix of two refreshes.
 * @throws RangeError when an amount is not a positive bigint (nothing is written).
 */
export async function replaceStakeLots(
  db: Database,
  userId: string,
  lots: readonly CachedStakeLot[],
  refreshedAt: Date,
): Promise<void> {
  for (const lot of lots) {
    if (typeof lot.amountLamports !== "bigint" || lot.amountLamports <= 0n) {
      throw new RangeError("amountLamports must be a positive bigint");
    }
  }
  await db.transaction(async (tx) => {
    await tx.delete(stakeLots).where(eq(stakeLots.userId, userId));
    if (lots.length > 0) {
      await tx.insert(stakeLots).values(
        lots.map((lot, position) => ({
          userId,
          position,
          amountLamports: lot.amountLamports,
          unlockAt: lot.unlockAt,
          refreshedAt,
        })),
      );
    }
  });
}

/** The user's cached lots in vault order (what the last refresh saw; not a balance). */
export async function listStakeLots(db: Database, userId: string): Promise<StakeLot[]> {
  return db
    .select()
    .from(stakeLots)
    .where(eq(stakeLots.userId, userId))
    .orderBy(asc(stakeLots.position));
}
