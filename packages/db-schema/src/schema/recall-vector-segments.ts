/**
 * `recall_vector_segments`: sealed recall vector segments (docs/data-model.md "Recall segments",
 * docs/protocol.md §4.5 "Recall"). A vector segment holds the vectors of ONE model for the live
 * memories of one aligned leaf range [firstLeaf, endLeaf) of a user's log, encoded by
 * `@verifiable-memory/memory` and sealed under the user's data key
 * (`@verifiable-memory/envelope-crypto` encryptVectorSegment, AAD binding user, range and model).
 * A derived copy for cold recall, like `recall_segments`: `memory_vectors` stays the source of
 * truth; dropping every vector segment loses nothing.
 * @module
 */
import { sql } from "drizzle-orm";
import { bigint, check, integer, pgTable, primaryKey, smallint, text } from "drizzle-orm/pg-core";
import { bytea, timestampMs } from "./_columns.js";
import { users } from "./users.js";

/** One sealed vector segment of a user's log, for one model. */
export const recallVectorSegments = pgTable(
  "recall_vector_segments",
  {
    userId: text()
      .notNull()
      .references(() => users.id),
    /** The model id (provider|origin|model|dimensions) of every vector inside. */
    modelId: text().notNull(),
    firstLeaf: bigint({ mode: "number" }).notNull(),
    endLeaf: bigint({ mode: "number" }).notNull(),
    /** Vector segment format version. */
    format: smallint().notNull(),
    /** Vectors inside. */
    entries: integer().notNull(),
    iv: bytea().notNull(),
    ciphertext: bytea().notNull(),
    sealedAt: timestampMs().notNull().defaultNow(),
  },
  (t) => [
    primaryKey({
      name: "recall_vector_segments_pkey",
      columns: [t.userId, t.modelId, t.firstLeaf],
    }),
    check(
      "recall_vector_segments_range_check",
      sql`${t.firstLeaf} >= 0 and ${t.endLeaf} > ${t.firstLeaf}`,
    ),
  ],
);

/** A row of `recall_vector_segments`. */
export type RecallVectorSegmentRow = typeof recallVectorSegments.$inferSelect;
