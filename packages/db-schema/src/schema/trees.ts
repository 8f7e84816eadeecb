/**
 * `trees`: each user's incremental Merkle tree state, a regenerable cache of the leaves
 * (docs/protocol.md §5 "The Merkle log and leaf encoding", §5.3 "Hashes"). `frontier` is the
 * concatenation of the CompactRange hashes (32 bytes each, largest subtree first); `version` guards
 * every save (optimistic concurrency: a save names the version it read). `changed` is the user's
 * recall change mark: a fresh value of `trees_changed_seq` set in the transaction of every append
 * (the tree save) and every deletion of the user's memories, so one primary-key read tells the
 * recall cache whether anything it holds may have changed since it last looked (docs/data-model.md
 * "Recall segments").
 * @module
 */
import { sql } from "drizzle-orm";
import { bigint, check, pgSequence, pgTable, text } from "drizzle-orm/pg-core";
import { bytea, timestampMs } from "./_columns.js";
import { users } from "./users.js";

/** The source of `trees.changed`: never hands out a value twice, so a mark never comes back. */
export const treesChangedSeq = pgSequence("trees_changed_seq");

/** A user's tree: size, root, frontier, save version and recall change mark. */
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
    changed: bigint({ mode: "number" }).notNull().default(sql`nextval('trees_changed_seq')`),
    updatedAt: timestampMs().notNull().defaultNow(),
  },
  (t) => [
    check("trees_size_check", sql`${t.size} >= 0`),
    check("trees_frontier_check", sql`octet_length(${t.frontier}) % 32 = 0`),
  ],
);

/** A row of `trees`. */
export type TreeRow = typeof trees.$inferSelect;
