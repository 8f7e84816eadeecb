/**
 * `commit_batches`: the anchoring audit trail, one row per commit attempt (docs/protocol.md §7.6
 * "One user's anchoring and the commit batches", §4; docs/protocol.md §7 statuses `submitted`,
 * `confirmed`, `failed`).
 * @module
 */
import { sql } from "drizzle-orm";
import { bigint, check, index, pgTable, text } from "drizzle-orm/pg-core";
import { bytea, generatedId, timestampMs } from "./_columns.js";
import { users } from "./users.js";

/** Statuses of a commit batch (docs/protocol.md §7). */
export const COMMIT_BATCH_STATUSES = ["submitted", "confirmed", "failed"] as const;
/** Status of a commit batch. */
export type CommitBatchStatus = (typeof COMMIT_BATCH_STATUSES)[number];

/** One attempt to commit a user's root at `treeSize` with the on-chain `expectedNonce`. */
export const commitBatches = pgTable(
  "commit_batches",
  {
    id: generatedId(),
    userId: text()
      .notNull()
      .references(() => users.id),
    status: text().$type<CommitBatchStatus>().notNull().default("submitted"),
    treeSize: bigint({ mode: "number" }).notNull(),
    root: bytea().notNull(),
    expectedNonce: bigint({ mode: "number" }).notNull(),
    signature: text(),
    error: text(),
    createdAt: timestampMs().notNull().defaultNow(),
    updatedAt: timestampMs().notNull().defaultNow(),
  },
  (t) => [
    check("commit_batches_status_check", sql`${t.status} in ('submitted', 'confirmed', 'failed')`),
    index("commit_batches_status_created_idx").on(t.status, t.createdAt),
    index("commit_batches_user_created_idx").on(t.userId, t.createdAt),
  ],
);

/** A row of `commit_batches`. */
export type CommitBatch = typeof commitBatches.$inferSelect;
