/**
 * `trees`: each user's incremental Merkle tree state, a regenerable cache of the leaves
 * (docs/protocol.md §5 "The Merkle log and leaf encoding", §5.3 "Hashes"). `frontier` is the
 * concatenation of the CompactRange hashes (32 bytes each, largest subtree first); `version` guards
 * every save (optimistic concurrency: a save names the version it read).
 * @module
 */
import { sql } from "drizzle-orm";
import { bigint, check, pgTable, text } from "drizzle-orm/pg-core";
import { bytea, timestampMs } from "./_columns.js";
import { users } from "./users.js";

/** A user's tree: size, root, frontier and save version. */
export const trees = pgTable(
  "trees",
  {
    userId: text()
      .primaryKey()
      .references(() => users.id),
    size: bigint({ mode: "number" }).notNull().default(0),
    root: bytea().notNull(),
    frontier: bytea().notNull(),
    version: bigint({ mode: "number" }).notNull().default(0),
    updatedAt: timestampMs().notNull().defaultNow(),
  },
  (t) => [
    check("trees_size_check", sql`${t.size} >= 0`),
    check("trees_frontier_check", sql`octet_length(${t.frontier}) % 32 = 0`),
  ],
);

/** A row of `trees`. */
export type TreeRow = typeof trees.$inferSelect;
