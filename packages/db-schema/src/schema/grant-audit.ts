/**
 * `grant_audit`: one row per attempt to use a capability grant, failed or not (docs/protocol.md §8
 * "Capability grants", §8.4 "Management and audit"; docs/protocol.md §8 audit rows).
 * @module
 */
import { sql } from "drizzle-orm";
import { bigint, check, index, pgTable, text } from "drizzle-orm/pg-core";
import { timestampMs } from "./_columns.js";
import { capabilityGrants } from "./capability-grants.js";
import { users } from "./users.js";

/** Outcomes of a grant use attempt (docs/protocol.md §8). */
export const GRANT_OUTCOMES = ["ok", "not_found", "revoked", "expired", "exhausted"] as const;
/** Outcome of a grant use attempt. */
export type GrantOutcome = (typeof GRANT_OUTCOMES)[number];

/** One attempt; grant and user are null when the token matched no grant. */
export const grantAudit = pgTable(
  "grant_audit",
  {
    id: bigint({ mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    grantId: text().references(() => capabilityGrants.id),
    userId: text().references(() => users.id),
    outcome: text().$type<GrantOutcome>().notNull(),
    ip: text(),
    userAgent: text(),
    at: timestampMs().notNull().defaultNow(),
  },
  (t) => [
    index("grant_audit_grant_idx").on(t.grantId, t.id.desc()),
    check(
      "grant_audit_outcome_check",
      sql`${t.outcome} in ('ok', 'not_found', 'revoked', 'expired', 'exhausted')`,
    ),
  ],
);

/** A row of `grant_audit`. */
export type GrantAuditRow = typeof grantAudit.$inferSelect;
