/**
 * `capability_grants`: bearer URLs granting exactly one operation, with an expiry and a use count
 * (docs/protocol.md §8 "Capability grants"; docs/protocol.md §8). Only the token's SHA-256 is
 * stored.
 * @module
 */
import { sql } from "drizzle-orm";
import { check, index, integer, jsonb, pgTable, text } from "drizzle-orm/pg-core";
import { bytea, generatedId, timestampMs } from "./_columns.js";
import { apiKeys } from "./api-keys.js";
import { users } from "./users.js";

/**
 * The operation a grant allows, as stored (docs/protocol.md §8). A `search` grant's query text is
 * not in it: it is sealed in `queryCiphertext`/`queryIv` (docs/protocol.md §8.1 "Creation").
 * `query` is present only in rows written before queries were sealed, until core-api's start-up
 * re-encryption removes it.
 */
export type GrantOperation = (
  | { readonly type: "read_memories"; readonly memoryIds: readonly string[] }
  | { readonly type: "search"; readonly query?: string; readonly limit?: number }
) & {
  /** Set when a namespace-confined API key created the grant: it reaches only that prefix. */
  readonly namespacePrefix?: string;
};

/**
 * A capability grant; usable while not revoked, not expired, `uses < maxUses` and, when an API key
 * created it (`createdByKeyId`), while that key is neither revoked nor expired. `createdByKeyId` is
 * null for grants created by a wallet session and for grants created before the column existed
 * (docs/security.md "Scopes and grants").
 */
export const capabilityGrants = pgTable(
  "capability_grants",
  {
    id: generatedId(),
    userId: text()
      .notNull()
      .references(() => users.id),
    tokenHash: bytea().notNull().unique("capability_grants_token_hash_unique"),
    operation: jsonb().$type<GrantOperation>().notNull(),
    label: text(),
    /** A `search` grant's sealed query: version(1) ‖ AES-256-GCM ciphertext ‖ tag(16). */
    queryCiphertext: bytea(),
    /** The 12-byte IV of `queryCiphertext`. */
    queryIv: bytea(),
    createdByKeyId: text().references(() => apiKeys.id),
    maxUses: integer().notNull(),
    uses: integer().notNull().default(0),
    expiresAt: timestampMs().notNull(),
    revokedAt: timestampMs(),
    createdAt: timestampMs().notNull().defaultNow(),
  },
  (t) => [
    index("capability_grants_user_created_idx").on(t.userId, t.createdAt.desc(), t.id.desc()),
    index("capability_grants_created_by_key_idx")
      .on(t.createdByKeyId)
      .where(sql`${t.createdByKeyId} is not null`),
    check("capability_grants_uses_check", sql`${t.uses} >= 0 and ${t.uses} <= ${t.maxUses}`),
    check("capability_grants_max_uses_check", sql`${t.maxUses} >= 1`),
    check(
      "capability_grants_query_sealed_check",
      sql`(${t.queryCiphertext} is null) = (${t.queryIv} is null)`,
    ),
  ],
);

/** A row of `capability_grants`. */
export type CapabilityGrant = typeof capabilityGrants.$inferSelect;
