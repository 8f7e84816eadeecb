/**
 * `recall_segments`: sealed recall segments (docs/data-model.md "Recall segments"). A segment holds
 * the live memories of one leaf range [firstLeaf, endLeaf) of a user's log (a full aligned range,
 * or the tail after the last one) — ids, leaf indices, times, clear fields, leaf hashes and
 * contents — encoded by `@verifiable-memory/memory` and sealed under the user's data key
 * (`@verifiable-memory/envelope-crypto` encryptSegment). A derived copy for cold recall: the memory
 * rows stay the source of truth; dropping every segment loses nothing.
 * @module
 */
import { sql } from "drizzle-orm";
import { bigint, check, integer, pgTable, primaryKey, smallint, text } from "drizzle-orm/pg-core";
import { bytea, timestampMs } from "./_columns.js";
import { users } from "./users.js";

/** One sealed segment of a user's log. */
export const recallSegments = pgTable(
  "recall_segments",
  {
    userId: text()
      .notNull()
      .references(() => users.id),
    firstLeaf: bigint({ mode: "number" }).notNull(),
    endLeaf: bigint({ mode: "number" }).notNull(),
    /** Segment format version (the AAD binds it too). */
    format: smallint().notNull(),
    /** Live memories inside. */
    entries: integer().notNull(),
    iv: bytea().notNull(),
    ciphertext: bytea().notNull(),
    sealedAt: timestampMs().notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ name: "recall_segments_pkey", columns: [t.userId, t.firstLeaf] }),
    check(
      "recall_segments_range_check",
      sql`${t.firstLeaf} >= 0 and ${t.endLeaf} > ${t.firstLeaf}`,
    ),
  ],
);

/** A row of `recall_segments`. */
export type RecallSegmentRow = typeof recallSegments.$inferSelect;
