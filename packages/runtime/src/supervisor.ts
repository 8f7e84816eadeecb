/**
 * The supervisor of `pnpm start` (docs/operations.md "Restarts under pnpm start"): it starts child
 * processes in tiers (the embedded PostgreSQL, then the local chain, then the apps), restarts a
 * child that exits unexpectedly after an exponential backoff, gives up when one child needs more
 * than `maxRestarts` restarts within `windowMs`, and stops everything tier by tier, highest first.
 * It knows nothing about processes itself: a {@link SupervisedChild} starts one and says when it is
 * ready, so the logic runs in tests with fake children, a {@link TestClock}-style clock and an
 * instant `sleep`.
 * @module
 */
import { type Clock, systemClock } from "@verifiable-memory/clock";

/** When and how often a child is restarted. */
export interface RestartPolicy {
  /** Delay before the first restart in a window, in ms; doubles with each further restart. */
  readonly initialDelayMs: number;
  /** Upper bound of the delay, in ms. */
  readonly maxDelayMs: number;
  /** Restarts of one child allowed within `windowMs`; one more exit and the supervisor gives up. */
  readonly maxRestarts: number;
  /** The sliding window the restarts are counted in, in ms. */
  readonly windowMs: number;
}

/** `pnpm start`'s policy: 250 ms doubling to 8 s, at most 5 restarts of one child per 60 s. */
export const DEFAULT_RESTART_POLICY: RestartPolicy = {
  initialDelayMs: 250,
  maxDelayMs: 8_000,
  maxRestarts: 5,
  windowMs: 60_000,
};

/** One started instance of a child. */
export interface RunningChild {
  /** Resolves once the instance has exited, with its exit code or the name of its signal. */
  readonly exited: Promise<number | string>;
  /** Resolves once the instance serves (healthy); rejects when it cannot start. */
  readonly ready: Promise<void>;
  /** Stops the instance (e.g. SIGTERM, then SIGKILL); resolves once it has exited. */
  stop(): Promise<void>;
}

/** A child the supervisor starts, watches and restarts. */
export interface SupervisedChild {
  /** Its name in log lines (`core-api`, `postgres`). */
  readonly name: string;
  /**
   * Its tier: lower tiers are what higher ones depend on. A child's restart waits while a child
   * of a lower tier is down; `stop()` stops the highest tier first, one tier at a time.
   */
  readonly tier: number;
  /** Starts one instance (spawning synchronously, so that it can be stopped at once). */
  start(): RunningChild;
}

/** What the supervisor reports, one event per log line. */
export type SupervisorEvent =
  | {
      /** A child exited unexpectedly and will be restarted after `delayMs`. */
      readonly type: "exited";
      readonly child: string;
      readonly exit: number | string;
      readonly delayMs: number;
      /** Which restart within the window this will be (1-based). */
      readonly restart: number;
    }
  | { readonly type: "restart-failed"; readonly child: string; readonly error: string }
  | { readonly type: "restarted"; readonly child: string }
  | {
      /** A child exited once more than the policy allows: the caller stops everything. */
      readonly type: "gave-up";
      readonly child: string;
      readonly exit: number | string;
      readonly restarts: number;
      readonly windowMs: number;
    };

/** Options of {@link Supervisor}. */
export interface SupervisorOptions {
  /** Default {@link DEFAULT_RESTART_POLICY}. */
  readonly policy?: RestartPolicy;
  /** Where restarts are timed for the window; default the system clock. */
  readonly clock?: Clock;
  /** Waits `ms` milliseconds (the backoff); default a timer. */
  readonly sleep?: (ms: number) => Promise<void>;
  /** Receives every event (see {@link describeSupervisorEvent} for a log line). */
  readonly onEvent?: (event: SupervisorEvent) => void;
}

/** The outcome that ends supervision: a child exhausted its restarts. */
export interface GaveUp {
  readonly child: string;
  readonly exit: number | string;
}

interface Entry {
  readonly spec: SupervisedChild;
  running: RunningChild | null;
  /** False until the first instance is ready: exits before that are start failures, not crashes. */
  established: boolean;
  /** True from an unexpected exit until the next instance is ready. */
  down: boolean;
  /** When (ms since the epoch, from the clock) each restart within the window was decided. */
  restarts: number[];
}

/**
 * Starts, watches and restarts children (see the module). Not reentrant across processes: one
 * supervisor per `pnpm start`.
 */
export class Supervisor {
  /** Resolves when a child exhausted its restart budget; never rejects. */
  readonly gaveUp: Promise<GaveUp>;
  private readonly policy: RestartPolicy;
  private readonly clock: Clock;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly onEvent: (event: SupervisorEvent) => void;
  private readonly entries: Entry[] = [];
  private resolveGaveUp: (outcome: GaveUp) => void = () => {};
  private stopping = false;
  private restarting = false;
  private changed: { promise: Promise<void>; resolve: () => void } = signal();

  /**
   * @param options policy, clock, sleep and event sink (all optional).
   * @throws RangeError when a policy value is not a positive finite number (`maxRestarts` may be 0).
   */
  constructor(options: SupervisorOptions = {}) {
    this.policy = options.policy ?? DEFAULT_RESTART_POLICY;
    for (const [name, value] of Object.entries(this.policy)) {
      const min = name === "maxRestarts" ? 0 : 1;
      if (!Number.isFinite(value) || value < min) {
        throw new RangeError(
          `restart policy ${name} must be a finite number ≥ ${min}, got ${value}`,
        );
      }
    }
    this.clock = options.clock ?? systemClock;
    this.sleep = options.sleep ?? ((ms) => new Promise((done) => setTimeout(done, ms)));
    this.onEvent = options.onEvent ?? (() => {});
    this.gaveUp = new Promise((resolve) => {
      this.resolveGaveUp = resolve;
    });
  }

  /**
   * Starts `child` and supervises it from then on.
   * @returns once its first instance is ready.
   * @throws whatever its first instance's `ready` rejects with (it is then not restarted; the
   *   caller stops the service), or Error when the supervisor is stopping.
   */
  async add(child: SupervisedChild): Promise<void> {
    if (this.stopping) {
      throw new Error(`not starting ${child.name}: stopping`);
    }
    const entry: Entry = {
      spec: child,
      running: null,
      established: false,
      down: false,
      restarts: [],
    };
    this.entries.push(entry);
    const running = this.launch(entry);
    await running.ready;
    entry.established = true;
  }

  /**
   * Stops every child, the highest tier first and the children of one tier together; pending
   * restarts are abandoned. Idempotent.
   */
  async stop(): Promise<void> {
    this.stopping = true;
    this.notify();
    const tiers = [...new Set(this.entries.map((e) => e.spec.tier))].sort((a, b) => b - a);
    for (const tier of tiers) {
      await Promise.all(
        this.entries
          .filter((e) => e.spec.tier === tier && e.running !== null)
          .map((e) => e.running?.stop()),
      );
    }
  }

  private launch(entry: Entry): RunningChild {
    const running = entry.spec.start();
    entry.running = running;
    void running.exited.then((exit) => this.exited(entry, running, exit));
    return running;
  }

  private exited(entry: Entry, running: RunningChild, exit: number | string): void {
    if (this.stopping || entry.running !== running || !entry.established) {
      return;
    }
    entry.down = true;
    const now = this.clock.now().getTime();
    entry.restarts = entry.restarts.filter((t) => now - t < this.policy.windowMs);
    if (entry.restarts.length >= this.policy.maxRestarts) {
      this.onEvent({
        type: "gave-up",
        child: entry.spec.name,
        exit,
        restarts: entry.restarts.length,
        windowMs: this.policy.windowMs,
      });
      this.resolveGaveUp({ child: entry.spec.name, exit });
      return;
    }
    const delayMs = Math.min(
      this.policy.initialDelayMs * 2 ** entry.restarts.length,
      this.policy.maxDelayMs,
    );
    entry.restarts.push(now);
    this.onEvent({
      type: "exited",
      child: entry.spec.name,
      exit,
      delayMs,
      restart: entry.restarts.length,
    });
    this.notify();
    void this.restart(entry, delayMs);
  }

  private async restart(entry: Entry, delayMs: number): Promise<void> {
    await this.sleep(delayMs);
    if (!(await this.takeTurn(entry))) {
      return;
    }
    let running: RunningChild;
    try {
      running = this.launch(entry);
    } catch (error) {
      this.restarting = false;
      this.onEvent({ type: "restart-failed", child: entry.spec.name, error: message(error) });
      this.exited(entry, entry.running as RunningChild, message(error));
      return;
    }
    try {
      await running.ready;
      if (entry.running === running && !this.stopping) {
        entry.down = false;
        this.onEvent({ type: "restarted", child: entry.spec.name });
      }
    } catch (error) {
      this.onEvent({ type: "restart-failed", child: entry.spec.name, error: message(error) });
      // Still running but not ready (e.g. health timeout): stopping it is its next exit.
      void running.stop();
    } finally {
      this.restarting = false;
      this.notify();
    }
  }

  /**
   * Waits until no restart is in progress and no child of a lower tier is down, then claims the
   * restart slot. @returns false when the supervisor stopped meanwhile.
   */
  private async takeTurn(entry: Entry): Promise<boolean> {
    for (;;) {
      if (this.stopping) {
        return false;
      }
      const blocked = this.entries.some((e) => e.down && e.spec.tier < entry.spec.tier);
      if (!this.restarting && !blocked) {
        this.restarting = true;
        return true;
      }
      await this.changed.promise;
    }
  }

  private notify(): void {
    const current = this.changed;
    this.changed = signal();
    current.resolve();
  }
}

/** One log line for `event` (without a prefix). */
export function describeSupervisorEvent(event: SupervisorEvent): string {
  switch (event.type) {
    case "exited":
      return `${event.child} exited unexpectedly (${describeExit(event.exit)}); restart ${event.restart} in ${event.delayMs} ms`;
    case "restart-failed":
      return `${event.child} failed to restart: ${event.error}`;
    case "restarted":
      return `${event.child} restarted`;
    case "gave-up":
      return `${event.child} exited unexpectedly (${describeExit(event.exit)}) after ${event.restarts} restarts within ${event.windowMs / 1000} s; stopping everything`;
  }
}

/** `exit code 1` for a number, `signal SIGKILL` for a signal name, the text otherwise. */
export function describeExit(exit: number | string): string {
  if (typeof exit === "number") {
    return `exit code ${exit}`;
  }
  return /^SIG[A-Z0-9]+$/.test(exit) ? `signal ${exit}` : exit;
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function signal(): { promise: Promise<void>; resolve: () => void } {
  let resolve: () => void = () => {};
  const promise = new Promise<void>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}
