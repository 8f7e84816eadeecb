/**
 * `api_keys`: API keys by SHA-256 of the raw key, with the 12-character prefix in clear
 * (docs/protocol.md §3 "API key", §3 "API keys"; docs/protocol.md §3).
 * @module
 */
import { char, index, pgTable, text } from "drizzle-orm/pg-core";
import { bytea, generatedId, timestampMs } from "./_columns.js";
import { users } from "./users.js";

/** An API key: only its hash is stored; `revokedAt` set means revoked. */
export const apiKeys = pgTable(
  "api_keys",
  {
    id: generatedId(),
    userId: text()
      .notNull()
      .references(() => users.id),
    keyHash: bytea().notNull().unique("api_keys_key_hash_unique"),
    prefix: char({ length: 12 }).notNull(),
    label: text().notNull(),
    createdAt: timestampMs().notNull().defaultNow(),
    lastUsedAt: timestampMs(),
    revokedAt: timestampMs(),
  },
  (t) => [index("api_keys_user_created_idx").on(t.userId, t.createdAt.desc(), t.id.desc())],
);

/** A row of `api_keys`. */
export type ApiKey = typeof apiKeys.$inferSelect;
