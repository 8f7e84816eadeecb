/**
 * `merkle_nodes`: the node-hash store. Every perfect subtree completed by an append is stored once
 * as (level, idx) → hash, so an inclusion or consistency proof needs O(log n) node reads, done in
 * one query (RFC 9162 §2.1.3, §2.1.4; transparency-dev/merkle data model). A regenerable cache:
 * rebuildTree recreates it from the leaves. No foreign key: it is written 2 rows per leaf and
 * always together with its user's `trees` row.
 * @module
 */
import { sql } from "drizzle-orm";
import { bigint, check, pgTable, primaryKey, smallint, text } from "drizzle-orm/pg-core";
import { bytea } from "./_columns.js";

/** The hash of the perfect subtree of 2^level leaves starting at leaf idx * 2^level. */
export const merkleNodes = pgTable(
  "merkle_nodes",
  {
    userId: text().notNull(),
    level: smallint().notNull(),
    idx: bigint({ mode: "number" }).notNull(),
    hash: bytea().notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.userId, t.level, t.idx] }),
    check("merkle_nodes_hash_check", sql`octet_length(${t.hash}) = 32`),
  ],
);

/** A row of `merkle_nodes`. */
export type MerkleNodeRow = typeof merkleNodes.$inferSelect;
