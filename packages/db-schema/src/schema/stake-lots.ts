/**
 * `stake_lots`: a cache of stake lot maturity; the chain holds the balance (spec §2 "Stake lot";
 * CONTRACT §10). Amounts are lamports (u64 on chain; bigint here).
 * @module
 */
import { sql } from "drizzle-orm";
import { bigint, check, index, pgTable, text } from "drizzle-orm/pg-core";
import { generatedId, timestampMs } from "./_columns.js";
import { users } from "./users.js";

/** One stake deposit recorded from its transaction signature. */
export const stakeLots = pgTable(
  "stake_lots",
  {
    id: generatedId(),
    userId: text()
      .notNull()
      .references(() => users.id),
    amountLamports: bigint({ mode: "bigint" }).notNull(),
    unlockAt: timestampMs().notNull(),
    createdAt: timestampMs().notNull().defaultNow(),
    signature: text().notNull().unique("stake_lots_signature_unique"),
  },
  (t) => [
    index("stake_lots_user_unlock_idx").on(t.userId, t.unlockAt),
    check("stake_lots_amount_check", sql`${t.amountLamports} > 0`),
  ],
);

/** A row of `stake_lots`. */
export type StakeLot = typeof stakeLots.$inferSelect;
