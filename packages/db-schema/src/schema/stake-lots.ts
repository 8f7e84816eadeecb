/**
 * `stake_lots`: a cache of the lots of a user's on-chain stake vault, with their maturity. The
 * chain holds the balance: these rows are rewritten from the vault on every staking read and are
 * never used as a balance (docs/staking.md). Amounts are lamports (u64 on chain; bigint here).
 * @module
 */
import { sql } from "drizzle-orm";
import { bigint, check, pgTable, smallint, text, unique } from "drizzle-orm/pg-core";
import { generatedId, timestampMs } from "./_columns.js";
import { users } from "./users.js";

/** One lot of a stake vault, at its position in the vault's lot array. */
export const stakeLots = pgTable(
  "stake_lots",
  {
    id: generatedId(),
    userId: text()
      .notNull()
      .references(() => users.id),
    /** Index of the lot in the vault account (0-based, in deposit order). */
    position: smallint().notNull(),
    amountLamports: bigint({ mode: "bigint" }).notNull(),
    unlockAt: timestampMs().notNull(),
    /** When these rows were last rewritten from the chain. */
    refreshedAt: timestampMs().notNull().defaultNow(),
  },
  (t) => [
    unique("stake_lots_user_position_unique").on(t.userId, t.position),
    check("stake_lots_amount_check", sql`${t.amountLamports} > 0`),
    check("stake_lots_position_check", sql`${t.position} >= 0`),
  ],
);

/** A row of `stake_lots`. */
export type StakeLot = typeof stakeLots.$inferSelect;
