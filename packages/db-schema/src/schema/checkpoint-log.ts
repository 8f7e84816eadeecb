/**
 * The checkpoint log (docs/protocol.md §13.5 "The checkpoint log"): one RFC 9162 tree, origin
 * LOG_ORIGIN, whose entries are user checkpoint note texts. `checkpoint_log_entries` holds each
 * entry with the user checkpoint it records (owner, size, the signed note, and the anchored
 * checkpoint when the owner's own account holds it), `checkpoint_log_nodes` the perfect subtrees
 * (level, idx) → hash as `merkle_nodes` does per user, `checkpoint_log_heads` each signed
 * checkpoint of the log.
 * @module
 */
import { sql } from "drizzle-orm";
import { bigint, check, pgTable, primaryKey, smallint, text, unique } from "drizzle-orm/pg-core";
import { bytea, timestampMs } from "./_columns.js";
import { anchoredCheckpoints } from "./anchored-checkpoints.js";
import { users } from "./users.js";

/**
 * One entry: the unsigned note text of the user checkpoint (`userId`, `treeSize`), at leaf index
 * `leafIndex`. `checkpointId` is the anchored checkpoint it records, null for a checkpoint logged
 * before the owner's own account held it; `note` is the signed user checkpoint (null on entries
 * appended before notes were stored, until the next append signs them).
 */
export const checkpointLogEntries = pgTable(
  "checkpoint_log_entries",
  {
    leafIndex: bigint({ mode: "number" }).primaryKey(),
    checkpointId: text()
      .unique()
      .references(() => anchoredCheckpoints.id),
    userId: text()
      .notNull()
      .references(() => users.id),
    treeSize: bigint({ mode: "number" }).notNull(),
    entry: bytea().notNull(),
    note: text(),
  },
  (t) => [unique("checkpoint_log_entries_user_size_unique").on(t.userId, t.treeSize)],
);

/** The hash of the perfect subtree of 2^level entries starting at entry idx · 2^level. */
export const checkpointLogNodes = pgTable(
  "checkpoint_log_nodes",
  {
    level: smallint().notNull(),
    idx: bigint({ mode: "number" }).notNull(),
    hash: bytea().notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.level, t.idx] }),
    check("checkpoint_log_nodes_hash_check", sql`octet_length(${t.hash}) = 32`),
  ],
);

/**
 * A signed checkpoint of the checkpoint log at `treeSize` entries; `anchor*` record the confirmed
 * `commit_checkpoint_log` transaction that put its root and size in the checkpoint log account
 * (null until then, and for heads a later anchor covered first).
 */
export const checkpointLogHeads = pgTable("checkpoint_log_heads", {
  treeSize: bigint({ mode: "number" }).primaryKey(),
  root: bytea().notNull(),
  note: text().notNull(),
  createdAt: timestampMs().notNull().defaultNow(),
  anchorSignature: text(),
  anchorSlot: bigint({ mode: "number" }),
  anchorNonce: bigint({ mode: "number" }),
  anchoredAt: timestampMs(),
  /** The checkpoint log account (PDA) the anchor wrote, base58. */
  anchorAccount: text(),
  /**
   * The appender's cursor: the highest `anchored_checkpoints.log_seq` it has read, logged or found
   * logged already (kept on the latest head; null on heads from before it was kept).
   */
  logSeqCursor: bigint({ mode: "number" }),
});

/** A row of `checkpoint_log_heads`. */
export type CheckpointLogHead = typeof checkpointLogHeads.$inferSelect;
