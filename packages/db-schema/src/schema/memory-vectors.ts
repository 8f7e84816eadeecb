/**
 * `memory_vectors`: the embedding of a memory's content under one model (docs/protocol.md §4.5
 * "Recall"), sealed under the user's data key (`@verifiable-memory/envelope-crypto`
 * encryptVector): never in clear. One row per memory and model id; rows of other model ids stay
 * until a re-embedding prunes them and are never compared with the current model's. Deleting a
 * memory deletes its vectors in the same transaction.
 * @module
 */
import { sql } from "drizzle-orm";
import { bigint, check, index, pgTable, primaryKey, text } from "drizzle-orm/pg-core";
import { bytea, timestampMs } from "./_columns.js";
import { memories } from "./memories.js";
import { users } from "./users.js";

/** One sealed vector of one memory under one model. */
export const memoryVectors = pgTable(
  "memory_vectors",
  {
    userId: text()
      .notNull()
      .references(() => users.id),
    memoryId: text()
      .notNull()
      .references(() => memories.id),
    /** provider|origin|model|dimensions. */
    modelId: text().notNull(),
    /** The memory's leaf index (clear, as on the memory row): where the recall cache puts it. */
    leafIndex: bigint({ mode: "number" }).notNull(),
    iv: bytea().notNull(),
    ciphertext: bytea().notNull(),
    createdAt: timestampMs().notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ name: "memory_vectors_pkey", columns: [t.memoryId, t.modelId] }),
    // The recall cache's read: a user's vectors of one model, new ones since a time.
    index("memory_vectors_user_model_idx").on(t.userId, t.modelId, t.createdAt),
    check("memory_vectors_iv_check", sql`octet_length(${t.iv}) = 12`),
  ],
);

/** A row of `memory_vectors`. */
export type MemoryVectorRow = typeof memoryVectors.$inferSelect;
