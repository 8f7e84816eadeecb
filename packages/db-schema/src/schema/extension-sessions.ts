/**
 * `extension_sessions`: the extension API's opaque tokens, by SHA-256, revocable server-side
 * (docs/protocol.md §3.3 "Extension tokens", §3; docs/protocol.md §9).
 * @module
 */
import { index, pgTable, text } from "drizzle-orm/pg-core";
import { bytea, generatedId, timestampMs } from "./_columns.js";
import { users } from "./users.js";

/** One extension session; active while not revoked and not expired. */
export const extensionSessions = pgTable(
  "extension_sessions",
  {
    id: generatedId(),
    userId: text()
      .notNull()
      .references(() => users.id),
    tokenHash: bytea().notNull().unique("extension_sessions_token_hash_unique"),
    createdAt: timestampMs().notNull().defaultNow(),
    expiresAt: timestampMs().notNull(),
    revokedAt: timestampMs(),
  },
  (t) => [index("extension_sessions_user_idx").on(t.userId)],
);

/** A row of `extension_sessions`. */
export type ExtensionSession = typeof extensionSessions.$inferSelect;
