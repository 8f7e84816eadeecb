/**
 * `anchored_checkpoints`: (tree size, root) pairs confirmed on chain, with the commitment nonce
 * after the commit and the transaction signature (docs/protocol.md §6 `checkpoint`/`anchor`, §7).
 * Proofs are cut at the latest of them. `logSeq` orders them for the checkpoint log's cursor
 * (docs/protocol.md §13.5 "The checkpoint log"): a sequence value drawn when the row is inserted.
 * @module
 */
import { bigint, bigserial, index, pgTable, text, unique } from "drizzle-orm/pg-core";
import { bytea, generatedId, timestampMs } from "./_columns.js";
import { users } from "./users.js";

/** One confirmed anchoring of a user's root at `treeSize`. */
export const anchoredCheckpoints = pgTable(
  "anchored_checkpoints",
  {
    id: generatedId(),
    userId: text()
      .notNull()
      .references(() => users.id),
    treeSize: bigint({ mode: "number" }).notNull(),
    root: bytea().notNull(),
    nonce: bigint({ mode: "number" }).notNull(),
    signature: text().notNull(),
    slot: bigint({ mode: "number" }),
    anchoredAt: timestampMs().notNull().defaultNow(),
    logSeq: bigserial({ mode: "number" }).notNull(),
  },
  (t) => [
    unique("anchored_checkpoints_user_size_unique").on(t.userId, t.treeSize),
    index("anchored_checkpoints_log_seq_idx").on(t.logSeq),
  ],
);

/** A row of `anchored_checkpoints`, without `logSeq` (the checkpoint log's internal order). */
export type AnchoredCheckpoint = Omit<typeof anchoredCheckpoints.$inferSelect, "logSeq">;
