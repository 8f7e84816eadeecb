/**
 * The readiness of an API process (docs/protocol.md §1.9 "Route index", `GET /readyz`): its
 * database answers and every committed migration is applied.
 * @module
 */
import { type Executor, pendingMigrations } from "@verifiable-memory/db-schema";
import type { Readiness } from "@verifiable-memory/http-kit";

/**
 * Checks `db` (a database or a transaction) for http-kit's `/readyz`: ready when no committed migration is pending.
 * @throws whatever the query throws when the database does not answer (`/readyz` answers 503
 *   `database_unavailable`).
 */
export async function databaseReadiness(db: Executor): Promise<Readiness> {
  const pending = await pendingMigrations(db);
  return pending > 0 ? { ready: false, pending } : { ready: true };
}
