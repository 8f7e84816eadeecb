/**
 * `sign_in_nonces`: issued sign-in challenges, single use and scoped to (nonce, public key)
 * (docs/protocol.md §2.1 "The challenge", §2 step 2). The extension connect flow (docs/protocol.md
 * §9) reuses the table with purpose `extension_connect` and the redirect URI it was issued for.
 * @module
 */
import { sql } from "drizzle-orm";
import { check, index, pgTable, primaryKey, text } from "drizzle-orm/pg-core";
import { timestampMs } from "./_columns.js";

/** What a challenge may be redeemed for. */
export const NONCE_PURPOSES = ["sign_in", "extension_connect"] as const;
/** What a challenge may be redeemed for: core sign-in or the extension connect flow. */
export type NoncePurpose = (typeof NONCE_PURPOSES)[number];

/** An issued challenge with the exact message text and its persisted expiry. */
export const signInNonces = pgTable(
  "sign_in_nonces",
  {
    nonce: text().notNull(),
    publicKey: text().notNull(),
    message: text().notNull(),
    purpose: text().$type<NoncePurpose>().notNull().default("sign_in"),
    redirectUri: text(),
    expiresAt: timestampMs().notNull(),
    createdAt: timestampMs().notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.nonce, t.publicKey] }),
    index("sign_in_nonces_expires_at_idx").on(t.expiresAt),
    check("sign_in_nonces_purpose_check", sql`${t.purpose} in ('sign_in', 'extension_connect')`),
  ],
);

/** A row of `sign_in_nonces`. */
export type SignInNonce = typeof signInNonces.$inferSelect;
