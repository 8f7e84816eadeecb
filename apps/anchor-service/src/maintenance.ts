/**
 * Bounded tables: the leader's periodic clean-up of rows that unauthenticated requests create and
 * nothing else removes — expired sign-in challenges (every `POST /auth/challenge` and
 * `POST /connect/challenge` writes one), ended extension sessions (expired or revoked), and audit
 * rows of grant uses with a token that matched no grant, after a retention period. It runs only on
 * the instance holding the anchor lock, so several instances do it once.
 * @module
 */
import {
  type Database,
  deleteEndedExtensionSessions,
  deleteExpiredNonces,
  deleteUnknownGrantAudit,
} from "@svc/db-schema";

/** What one maintenance pass deleted. */
export interface MaintenanceReport {
  readonly expiredChallenges: number;
  readonly endedExtensionSessions: number;
  readonly unknownGrantAudit: number;
}

/** Options of {@link runMaintenance}. */
export interface MaintenanceConfig {
  /** How long audit rows of unknown grant tokens are kept, ms. */
  readonly unknownGrantAuditRetentionMs: number;
}

/**
 * One pass: deletes challenges that expired before `now`, extension sessions that expired or were
 * revoked before `now`, and unknown-token grant audit rows older than the retention.
 * @throws the database's error (the caller logs it and tries again next time).
 */
export async function runMaintenance(deps: {
  readonly db: Database;
  readonly now: Date;
  readonly config: MaintenanceConfig;
}): Promise<MaintenanceReport> {
  const { db, now } = deps;
  const expiredChallenges = await deleteExpiredNonces(db, now);
  const endedExtensionSessions = await deleteEndedExtensionSessions(db, now);
  const unknownGrantAudit = await deleteUnknownGrantAudit(
    db,
    new Date(now.getTime() - deps.config.unknownGrantAuditRetentionMs),
  );
  return { expiredChallenges, endedExtensionSessions, unknownGrantAudit };
}
