/**
 * The anchor worker loop: every ANCHOR_INTERVAL_MS it makes sure it holds the leader lock and, if
 * so, runs one sweep (docs/protocol.md §7.5 "Sealing policy", §7.7 "Leader election and the anchor
 * service's surface"). An instance without the lock is a hot standby: it retries the lock every
 * interval, so it takes over within one interval after the leader's connection drops. Sweeps never
 * overlap; a sweep longer than the interval starts the next one at once (anchoring is falling
 * behind).
 * @module
 */
import type { Logger } from "pino";
import type { LeaderLock } from "./leader-lock.js";
import type { MaintenanceReport } from "./maintenance.js";
import type { AnchorMetrics } from "./metrics.js";
import type { SweepReport } from "./sweep.js";

/** Options of {@link startWorker}. */
export interface WorkerOptions {
  /** The leader lock; the worker releases and closes it on stop. */
  readonly lock: LeaderLock;
  /** Milliseconds from the start of one tick to the start of the next. */
  readonly intervalMs: number;
  /** One sweep (runSweep bound to its dependencies). */
  readonly sweep: () => Promise<SweepReport>;
  readonly logger: Logger;
  /** When given, `anchor_is_leader` follows the lock. */
  readonly metrics?: AnchorMetrics;
  /**
   * Table maintenance (runMaintenance bound to its dependencies), run by the leader after a sweep
   * at most once per `maintenanceIntervalMs`.
   */
  readonly maintain?: () => Promise<MaintenanceReport>;
  /** Minimum milliseconds between two maintenance passes; default 60 000. */
  readonly maintenanceIntervalMs?: number;
}

/** A running worker. */
export interface AnchorWorker {
  /** True while this instance held the lock at its last tick. */
  readonly leader: boolean;
  /**
   * Stops the loop: waits for the running sweep to finish, then releases the lock and closes its
   * connection. Idempotent.
   */
  stop(): Promise<void>;
}

/**
 * Starts the loop (the first tick runs immediately).
 * @throws RangeError when `intervalMs` is not a positive integer.
 */
export function startWorker(options: WorkerOptions): AnchorWorker {
  const { lock, intervalMs, sweep, logger, metrics, maintain } = options;
  const maintenanceIntervalMs = options.maintenanceIntervalMs ?? 60_000;
  let lastMaintenance = Number.NEGATIVE_INFINITY;
  if (!Number.isInteger(intervalMs) || intervalMs <= 0) {
    throw new RangeError(`intervalMs must be a positive integer, got ${intervalMs}`);
  }
  let leader = false;
  let stopping = false;
  let wake: (() => void) | null = null;

  const setLeader = (value: boolean) => {
    if (value !== leader) {
      logger.info(
        { leader: value },
        value ? "acquired the anchor lock: this instance anchors" : "lost the anchor lock",
      );
    }
    leader = value;
    metrics?.isLeader.set(value ? 1 : 0);
  };

  const tick = async () => {
    let held: boolean;
    try {
      held = await lock.acquire();
    } catch (error) {
      logger.warn({ err: error }, "anchor lock check failed; not sweeping this interval");
      held = false;
    }
    setLeader(held);
    if (!held || stopping) {
      // A worker told to stop starts no sweep, even when the lock came free during its last check
      // (the old leader releasing it on its own stop).
      return;
    }
    try {
      const report = await sweep();
      const { outcomes: _outcomes, waiting: _waiting, ...summary } = report;
      logger[report.sealed > 0 ? "info" : "debug"](summary, "sweep done");
    } catch (error) {
      logger.error({ err: error }, "sweep failed");
    }
    if (maintain && Date.now() - lastMaintenance >= maintenanceIntervalMs) {
      lastMaintenance = Date.now();
      try {
        const report = await maintain();
        logger.info(report, "maintenance done");
      } catch (error) {
        logger.error({ err: error }, "maintenance failed");
      }
    }
  };

  const loop = (async () => {
    logger.info({ intervalMs }, "anchor worker started");
    while (!stopping) {
      const started = Date.now();
      await tick();
      const wait = Math.max(0, intervalMs - (Date.now() - started));
      if (!stopping && wait > 0) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, wait);
          wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        wake = null;
      }
    }
  })();

  let stopped: Promise<void> | null = null;
  return {
    get leader() {
      return leader;
    },
    stop() {
      stopped ??= (async () => {
        stopping = true;
        wake?.();
        await loop;
        try {
          await lock.release();
        } catch (error) {
          logger.warn({ err: error }, "releasing the anchor lock failed (closing releases it)");
        }
        await lock.close();
        setLeader(false);
        logger.info("anchor worker stopped");
      })();
      return stopped;
    },
  };
}
