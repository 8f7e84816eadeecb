/**
 * Bounded tables: the leader's periodic clean-up of rows that nothing else removes (most of them
 * created by unauthenticated requests) — expired sign-in challenges (every `POST /auth/challenge` and
 * `POST /connect/challenge` writes one), ended extension sessions (expired or revoked), audit
 * rows of grant uses with a token that matched no grant after a retention period, and the events of
 * `GET /events` (`memory_events`) after theirs (default 7 days). It runs only on the instance
 * holding the anchor lock, so several instances do it once.
 * @module
 */
import {
  type Database,
  deleteEndedExtensionSessions,
  deleteEventsBefore,
  deleteExpiredNonces,
  deleteUnknownGrantAudit,
} from "@verifiable-memory/db-schema";

/** What one maintenance pass deleted. */
export interface MaintenanceReport {
  readonly expiredChallenges: number;
  readonly endedExtensionSessions: number;
  readonly unknownGrantAudit: number;
  /** Events of `GET /events` older than their retention. */
  readonly prunedEvents: number;
}

/** How long the events of `GET /events` are kept by default (resumable that far back), ms. */
export const DEFAULT_EVENT_RETENTION_MS = 7 * 24 * 60 * 60 * 1000;

/** Options of {@link runMaintenance}. */
export interface MaintenanceConfig {
  /** How long audit rows of unknown grant tokens are kept, ms. */
  readonly unknownGrantAuditRetentionMs: number;
  /** How long events of `GET /events` are kept, ms; default {@link DEFAULT_EVENT_RETENTION_MS}. */
  readonly eventRetentionMs?: number;
}

/**
 * One pass: deletes challenges that expired before `now`, extension sessions that expired or were
 * revoked before `now`, unknown-token grant audit rows older than their retention, and events
 * older than theirs.
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
  const prunedEvents = await deleteEventsBefore(
    db,
    new Date(now.getTime() - (deps.config.eventRetentionMs ?? DEFAULT_EVENT_RETENTION_MS)),
  );
  return { expiredChallenges, endedExtensionSessions, unknownGrantAudit, prunedEvents };
}
