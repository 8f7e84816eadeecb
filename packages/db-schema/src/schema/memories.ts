/**
 * `memories`: the per-user log's leaves (docs/protocol.md §4.1 "The memory record";
 * docs/protocol.md §4). The encrypted body and IV are nulled on deletion while the leaf hash and
 * index stay, so roots and proofs stay valid (docs/protocol.md §1 behaviour 8).
 * @module
 */
import { sql } from "drizzle-orm";
import {
  bigint,
  boolean,
  check,
  index,
  jsonb,
  pgTable,
  smallint,
  text,
  unique,
  uniqueIndex,
} from "drizzle-orm/pg-core";
import { bytea, timestampMs } from "./_columns.js";
import { users } from "./users.js";

/** Who wrote a memory (docs/protocol.md §5 leaf version 2): a wallet session or one API key. */
export const WRITER_KINDS = ["session", "api_key"] as const;
/** Kind of credential that wrote a memory. */
export type WriterKind = (typeof WRITER_KINDS)[number];

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
    /**
     * True once a user checkpoint in a checkpoint-log head confirmed on chain covers the leaf
     * (docs/protocol.md §13.5); `anchored` stays the owner's own account's.
     */
    logAnchored: boolean().notNull().default(false),
    deletedAt: timestampMs(),
    /** Leaf-encoding version of `leafHash` (docs/protocol.md §5): 1 or 2. */
    leafVersion: smallint().$type<1 | 2>().notNull().default(1),
    /** Optional namespace (version-2 leaves), e.g. `agent:research/run:42`. */
    namespace: text(),
    /** Credential kind that wrote it (version-2 leaves; null on version 1). */
    writerKind: text().$type<WriterKind>(),
    /** The API key id when `writerKind` is `api_key`. */
    writerKeyId: text(),
    /** The memory this one supersedes (`PUT /memories/:id`; version-2 leaves). */
    supersedes: text(),
    /** The memory that superseded this one; null while it is the current version. */
    supersededBy: text(),
  },
  (t) => [
    unique("memories_user_leaf_unique").on(t.userId, t.leafIndex),
    // The anchor service's seal policy: count and age of a user's unanchored leaves.
    index("memories_pending_idx").on(t.userId, t.createdAt).where(sql`${t.anchored} = false`),
    // Incremental cache refresh: deletions since a timestamp.
    index("memories_deleted_idx").on(t.userId, t.deletedAt).where(sql`${t.deletedAt} is not null`),
    // Namespace filters (exact or prefix, text_pattern_ops for LIKE 'p%').
    index("memories_user_namespace_idx")
      .on(t.userId, sql`${t.namespace} text_pattern_ops`)
      .where(sql`${t.namespace} is not null`),
    // Cold recall from segments: the user's superseded memories (few).
    index("memories_superseded_idx").on(t.userId).where(sql`${t.supersededBy} is not null`),
    // A memory is superseded at most once (PUT /memories/:id: one of two concurrent updates wins).
    uniqueIndex("memories_user_supersedes_unique")
      .on(t.userId, t.supersedes)
      .where(sql`${t.supersedes} is not null`),
    check("memories_leaf_index_check", sql`${t.leafIndex} >= 0`),
    check("memories_leaf_version_check", sql`${t.leafVersion} in (1, 2)`),
    check(
      "memories_writer_check",
      sql`${t.writerKind} is null or ${t.writerKind} in ('session', 'api_key')`,
    ),
    check("memories_leaf_hash_check", sql`octet_length(${t.leafHash}) = 32`),
    check(
      "memories_deleted_check",
      sql`(${t.deletedAt} is null and ${t.ciphertext} is not null) or (${t.deletedAt} is not null and ${t.ciphertext} is null and ${t.iv} is null)`,
    ),
  ],
);

/** A row of `memories`. */
export type Memory = typeof memories.$inferSelect;
