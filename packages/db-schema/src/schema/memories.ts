/**
 * `memories`: the per-user log's leaves (docs/protocol.md §4 "Memory record"; docs/protocol.md §4). The encrypted body
 * and IV are nulled on deletion while the leaf hash and index stay, so roots and proofs stay valid
 * (docs/protocol.md §1 behaviour 8).
 * @module
 */
import { sql } from "drizzle-orm";
import { bigint, boolean, check, index, jsonb, pgTable, text, unique } from "drizzle-orm/pg-core";
import { bytea, timestampMs } from "./_columns.js";
import { users } from "./users.js";

/** One memory: leaf `leafIndex` (0-based) of its user's log. */
export const memories = pgTable(
  "memories",
  {
    id: text().primaryKey(),
    userId: text()
      .notNull()
      .references(() => users.id),
    leafIndex: bigint({ mode: "number" }).notNull(),
    ciphertext: bytea(),
    iv: bytea(),
    leafHash: bytea().notNull(),
    metadata: jsonb().$type<Record<string, unknown>>().notNull().default({}),
    createdAt: timestampMs().notNull(),
    anchored: boolean().notNull().default(false),
    deletedAt: timestampMs(),
  },
  (t) => [
    unique("memories_user_leaf_unique").on(t.userId, t.leafIndex),
    // The anchor service's seal policy: count and age of a user's unanchored leaves.
    index("memories_pending_idx").on(t.userId, t.createdAt).where(sql`${t.anchored} = false`),
    // Incremental cache refresh: deletions since a timestamp.
    index("memories_deleted_idx").on(t.userId, t.deletedAt).where(sql`${t.deletedAt} is not null`),
    check("memories_leaf_index_check", sql`${t.leafIndex} >= 0`),
    check("memories_leaf_hash_check", sql`octet_length(${t.leafHash}) = 32`),
    check(
      "memories_deleted_check",
      sql`(${t.deletedAt} is null and ${t.ciphertext} is not null) or (${t.deletedAt} is not null and ${t.ciphertext} is null and ${t.iv} is null)`,
    ),
  ],
);

/** A row of `memories`. */
export type Memory = typeof memories.$inferSelect;
