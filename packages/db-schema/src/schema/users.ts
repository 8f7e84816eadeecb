/**
 * `users`: one row per wallet public key (docs/protocol.md §4.2 "Keys"). The wrapped data key is
 * not a cache: losing it makes the user's memories undecryptable (docs/operations.md "Production
 * checklist").
 * @module
 */
import { sql } from "drizzle-orm";
import { index, pgTable, text } from "drizzle-orm/pg-core";
import { bytea, timestampMs } from "./_columns.js";

/**
 * A user: an opaque id, the base58 wallet key and the data key wrapped under the master key.
 * `masterKeyId` is computed by PostgreSQL from `wrappedDataKey` (a stored generated column, so it
 * can never disagree with the bytes): the 16-hex-character id of the master key a version-2 wrap
 * names (bytes 1–8 of the 69-byte wrap, `@verifiable-memory/envelope-crypto` data-key.ts), NULL for a version-1
 * wrap from before key ids. Indexed for the start-up check and `pnpm rotate-master-key`.
 */
export const users = pgTable(
  "users",
  {
    id: text().primaryKey(),
    ownerPubkey: text().notNull().unique("users_owner_pubkey_unique"),
    wrappedDataKey: bytea().notNull(),
    createdAt: timestampMs().notNull().defaultNow(),
    masterKeyId: text().generatedAlwaysAs(
      sql`CASE WHEN length(wrapped_data_key) = 69 AND get_byte(wrapped_data_key, 0) = 2 THEN encode(substring(wrapped_data_key FROM 2 FOR 8), 'hex') END`,
    ),
  },
  (t) => [index("users_master_key_id_idx").on(t.masterKeyId)],
);

/** A row of `users`. */
export type User = typeof users.$inferSelect;
