/**
 * `api_keys`: API keys by SHA-256 of the raw key, with the 12-character prefix in clear
 * (docs/protocol.md §3.2 "API keys"; docs/protocol.md §3).
 * @module
 */
import { sql } from "drizzle-orm";
import { char, check, index, pgTable, text } from "drizzle-orm/pg-core";
import { bytea, generatedId, timestampMs } from "./_columns.js";
import { users } from "./users.js";

/** What an API key may do (docs/protocol.md §3.5 "Scopes, expiry and confinement"). */
export const API_KEY_SCOPES = [
  "memories:read",
  "memories:write",
  "memories:delete",
  "grants:write",
] as const;
/** One API key scope. */
export type ApiKeyScope = (typeof API_KEY_SCOPES)[number];

/**
 * An API key: only its hash is stored; `revokedAt` set means revoked, `expiresAt` passed means
 * expired; `scopes` limit its routes and `namespace` confines it to memories under that prefix.
 */
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
    scopes: text()
      .array()
      .$type<ApiKeyScope[]>()
      .notNull()
      .default(sql`'{memories:read,memories:write,memories:delete,grants:write}'::text[]`),
    expiresAt: timestampMs(),
    namespace: text(),
  },
  (t) => [
    index("api_keys_user_created_idx").on(t.userId, t.createdAt.desc(), t.id.desc()),
    check(
      "api_keys_scopes_check",
      sql`${t.scopes} <@ '{memories:read,memories:write,memories:delete,grants:write}'::text[]`,
    ),
  ],
);

/** A row of `api_keys`. */
export type ApiKey = typeof apiKeys.$inferSelect;
