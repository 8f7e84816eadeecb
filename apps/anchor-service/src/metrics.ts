/**
 * Prometheus metrics of the anchor service, in their own prom-client Registry (docs/protocol.md
 * §7.7 "Leader election and the anchor service's surface": authority balance, age of the oldest
 * unanchored memory, batches in `failed`, batches stuck in `submitted`, sweep duration, tree save
 * conflicts; docs/protocol.md §7 `GET /metrics`). The database-derived gauges are computed at
 * scrape time, so a standby instance reports them too and they keep moving when anchoring has
 * stopped. README.md (Operations) says what each one means and when to alert.
 * @module
 */
import {
  COMMIT_BATCH_STATUSES,
  countBatchesByStatus,
  type Executor,
  getOldestPendingCreatedAt,
  listStuckBatches,
  treeSaveConflicts,
} from "@verifiable-memory/db-schema";
import { Counter, Gauge, Histogram, Registry } from "prom-client";

/** Outcome of one user's anchoring attempt within a sweep. */
export type CommitOutcome = "confirmed" | "failed" | "timeout" | "skipped";

/**
 * Integrity findings that are reported (error log + counter) rather than hidden:
 * - `count_decreased`: the chain refused a commit whose memory count is below the stored one;
 * - `shortened_log`: the on-chain memory count exceeds the local tree (log shortened, restored
 *   from an old backup, or a foreign commit);
 * - `root_conflict`: the local log's root at the on-chain size differs from the on-chain root
 *   (history rewritten, or a foreign commit);
 * - `foreign_authority`: the commitment account's stored authority is not this service's key;
 * - `invalid_account`: the commitment address holds an account that is not a commitment account;
 * - `unauthorized`: the chain refused the authority's signature;
 * - `log_corrupt`: the leaf indices are not contiguous (an operator must repair the log);
 * - `tree_drift`: the persisted tree differed from the leaves and was rebuilt;
 * - `checkpoint_log_fork`: the stored checkpoint log does not extend the checkpoint log account
 *   (docs/protocol.md §13.5 "The checkpoint log"); nothing is signed or anchored.
 */
export type IntegrityKind =
  | "count_decreased"
  | "shortened_log"
  | "root_conflict"
  | "foreign_authority"
  | "invalid_account"
  | "unauthorized"
  | "log_corrupt"
  | "tree_drift"
  | "checkpoint_log_fork";

/** The metric handles the sweep and the worker update. */
export interface AnchorMetrics {
  /** The registry serving `GET /metrics` (only this service's metrics). */
  readonly registry: Registry;
  /** Authority balance in lamports; NaN until the first successful read (then the last read). */
  readonly authorityBalance: Gauge;
  /** Chain reads that failed (treated as unknown, never zero), by `op` (commitment, balance). */
  readonly chainReadFailures: Counter<"op">;
  /** Duration of each sweep, seconds. */
  readonly sweepDuration: Histogram;
  /** Users sealed by the last sweep. */
  readonly usersSealed: Gauge;
  /** Completed sweeps. */
  readonly sweeps: Counter;
  /** Unix time (seconds) of the end of the last sweep. */
  readonly lastSweep: Gauge;
  /** Per-user anchoring outcomes, by `outcome`. */
  readonly commits: Counter<"outcome">;
  /** Integrity findings, by `kind` ({@link IntegrityKind}). */
  readonly integrityReports: Counter<"kind">;
  /** Trees rebuilt from their leaves (the O(n) path). */
  readonly treeRebuilds: Counter;
  /**
   * Checkpoint-log steps by `outcome`: anchored, current, refused, unavailable, failed, timeout
   * (docs/protocol.md §13.5 "The checkpoint log").
   */
  readonly checkpointLogAnchors: Counter<"outcome">;
  /**
   * Submissions of checkpoint-log heads to witnesses by `outcome`: cosigned, conflict, rejected,
   * invalid, unavailable (docs/protocol.md §13.6 "Witnesses").
   */
  readonly witnessSubmissions: Counter<"outcome">;
  /** Valid witness cosignatures stored for the latest checkpoint-log head. */
  readonly headCosignatures: Gauge;
  /** 1 while this instance holds the anchor lock, else 0. */
  readonly isLeader: Gauge;
}

/** Dependencies of {@link createMetrics}. */
export interface MetricsDeps {
  /** Database for the scrape-time gauges. */
  readonly db: Executor;
  /** ANCHOR_INTERVAL_MS: a `submitted` batch older than two intervals counts as stuck. */
  readonly intervalMs: number;
  /** Clock, ms since the epoch (default Date.now). */
  readonly now?: () => number;
}

/**
 * Creates the anchor service's metrics in a fresh Registry. Scrape-time gauges query `db`:
 * `anchor_oldest_unanchored_age_seconds` (0 when nothing is pending), `anchor_commit_batches`
 * by status, `anchor_commit_batches_stuck`; a failed query sets them to NaN (unknown) for that
 * scrape. `tree_save_conflicts_total` mirrors db-schema's process-wide counter.
 * @returns the handles; serve `registry.metrics()` with content type `registry.contentType`.
 * @throws RangeError when `intervalMs` is not a positive integer.
 */
export function createMetrics(deps: MetricsDeps): AnchorMetrics {
  if (!Number.isInteger(deps.intervalMs) || deps.intervalMs <= 0) {
    throw new RangeError(`intervalMs must be a positive integer, got ${deps.intervalMs}`);
  }
  const now = deps.now ?? Date.now;
  const { db } = deps;
  const registry = new Registry();
  const registers = [registry];

  const authorityBalance = new Gauge({
    name: "anchor_authority_balance_lamports",
    help: "Balance of the commit authority in lamports (refreshed each sweep; NaN until read)",
    registers,
  });
  authorityBalance.set(Number.NaN);

  new Gauge({
    name: "anchor_oldest_unanchored_age_seconds",
    help: "Age of the oldest memory not yet anchored, seconds (0 when none)",
    registers,
    async collect() {
      try {
        const oldest = await getOldestPendingCreatedAt(db);
        this.set(oldest === null ? 0 : Math.max(0, (now() - oldest.getTime()) / 1000));
      } catch {
        this.set(Number.NaN);
      }
    },
  });

  new Gauge({
    name: "anchor_commit_batches",
    help: "Commit batches by status (submitted, confirmed, failed)",
    labelNames: ["status"] as const,
    registers,
    async collect() {
      try {
        const counts = await countBatchesByStatus(db);
        for (const status of COMMIT_BATCH_STATUSES) {
          this.set({ status }, counts[status]);
        }
      } catch {
        for (const status of COMMIT_BATCH_STATUSES) {
          this.set({ status }, Number.NaN);
        }
      }
    },
  });

  new Gauge({
    name: "anchor_commit_batches_stuck",
    help: "Batches still submitted after two sweep intervals (confirmation timed out)",
    registers,
    async collect() {
      try {
        const stuck = await listStuckBatches(db, new Date(now() - 2 * deps.intervalMs));
        this.set(stuck.length);
      } catch {
        this.set(Number.NaN);
      }
    },
  });

  let conflictsSeen = 0;
  new Counter({
    name: treeSaveConflicts.name,
    help: `${treeSaveConflicts.help} (this process; must stay 0 with one instance)`,
    registers,
    collect() {
      const delta = treeSaveConflicts.value - conflictsSeen;
      if (delta > 0) {
        this.inc(delta);
        conflictsSeen += delta;
      }
    },
  });

  return {
    registry,
    authorityBalance,
    chainReadFailures: new Counter({
      name: "anchor_chain_read_failures_total",
      help: "Chain reads that failed (unknown, never zero), by operation",
      labelNames: ["op"] as const,
      registers,
    }),
    sweepDuration: new Histogram({
      name: "anchor_sweep_duration_seconds",
      help: "Duration of each anchor sweep, seconds (alert as it approaches the interval)",
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300],
      registers,
    }),
    usersSealed: new Gauge({
      name: "anchor_users_sealed",
      help: "Users whose pending leaves the last sweep sealed",
      registers,
    }),
    sweeps: new Counter({
      name: "anchor_sweeps_total",
      help: "Completed anchor sweeps",
      registers,
    }),
    lastSweep: new Gauge({
      name: "anchor_last_sweep_timestamp_seconds",
      help: "Unix time of the end of the last sweep",
      registers,
    }),
    commits: new Counter({
      name: "anchor_commits_total",
      help: "Per-user anchoring outcomes: confirmed, failed, timeout (left submitted), skipped",
      labelNames: ["outcome"] as const,
      registers,
    }),
    integrityReports: new Counter({
      name: "anchor_integrity_reports_total",
      help: "Integrity findings reported by the sweep, by kind (any increase needs an operator)",
      labelNames: ["kind"] as const,
      registers,
    }),
    treeRebuilds: new Counter({
      name: "anchor_tree_rebuilds_total",
      help: "Persisted trees rebuilt from their leaves because they were missing or drifted",
      registers,
    }),
    checkpointLogAnchors: new Counter({
      name: "anchor_checkpoint_log_anchors_total",
      help: "Checkpoint-log steps after each sweep: anchored, current, refused (fork), unavailable, failed, timeout",
      labelNames: ["outcome"] as const,
      registers,
    }),
    witnessSubmissions: new Counter({
      name: "anchor_witness_submissions_total",
      help: "Checkpoint-log heads submitted to witnesses, by outcome",
      labelNames: ["outcome"] as const,
      registers,
    }),
    headCosignatures: new Gauge({
      name: "anchor_checkpoint_log_cosignatures",
      help: "Witness cosignatures stored for the latest checkpoint-log head (compare with WITNESS_POLICY)",
      registers,
    }),
    isLeader: new Gauge({
      name: "anchor_is_leader",
      help: "1 while this instance holds the anchor lock (exactly one instance should)",
      registers,
    }),
  };
}
