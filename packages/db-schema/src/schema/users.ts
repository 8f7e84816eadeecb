/**
 * `users`: one row per wallet public key (spec §2 "User"). The wrapped data key is not a cache:
 * losing it makes the user's memories undecryptable (spec §8 "Back up the database").
 * @module
 */
import { pgTable, text } from "drizzle-orm/pg-core";
import { bytea, timestampMs } from "./_columns.js";

/** A user: an opaque id, the base58 wallet key and the data key wrapped under the master key. */
export const users = pgTable("users", {
  id: text().primaryKey(),
  ownerPubkey: text().notNull().unique("users_owner_pubkey_unique"),
  wrappedDataKey: bytea().notNull(),
  createdAt: timestampMs().notNull().defaultNow(),
});

/** A row of `users`. */
export type User = typeof users.$inferSelect;
