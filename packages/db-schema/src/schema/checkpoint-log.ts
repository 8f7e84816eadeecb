/**
 * The checkpoint log (docs/protocol.md §13.5 "The checkpoint log"): one RFC 9162 tree, origin
 * LOG_ORIGIN, whose entries are user checkpoint note texts. `checkpoint_log_entries` holds each
 * entry with the anchored checkpoint it records, `checkpoint_log_nodes` the perfect subtrees
 * (level, idx) → hash as `merkle_nodes` does per user, `checkpoint_log_heads` each signed
 * checkpoint of the log.
 * @module
 */
import { sql } from "drizzle-orm";
import { bigint, check, pgTable, primaryKey, smallint, text } from "drizzle-orm/pg-core";
import { bytea, timestampMs } from "./_columns.js";
import { anchoredCheckpoints } from "./anchored-checkpoints.js";

/** One entry: the unsigned note text of a user checkpoint, at leaf index `leafIndex`. */
export const checkpointLogEntries = pgTable("checkpoint_log_entries", {
  leafIndex: bigint({ mode: "number" }).primaryKey(),
  checkpointId: text()
    .notNull()
    .unique()
    .references(() => anchoredCheckpoints.id),
  entry: bytea().notNull(),
});

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
});

/** A row of `checkpoint_log_heads`. */
export type CheckpointLogHead = typeof checkpointLogHeads.$inferSelect;
