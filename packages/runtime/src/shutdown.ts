/**
 * Being a service process: one shutdown coordinator (ordered hooks, one signal policy), one way
 * to refuse a bad configuration, and {@link runService}, the frame every app's `main.ts` runs in
 * (docs/protocol.md §10 "Configuration": a missing or malformed value stops the process).
 *
 * The signal policy: the first SIGINT, SIGTERM or SIGHUP runs the registered hooks in reverse
 * registration order (what started last stops first), each awaited, all together within a
 * timeout, then exits 0 (1 when a hook failed or the timeout passed). A second signal exits at
 * once with 128 + the signal's number. A signal that arrives while the service is still starting
 * is held until start-up has finished, then stops it the same way. A launcher whose children
 * stop only through it (`pnpm start`) sets {@link ShutdownOptions.secondSignal} to `ignore` and
 * {@link ShutdownOptions.timeoutMs} to `null`, and stops with its own exit code
 * ({@link ShutdownCoordinator.stop}).
 * @module
 */
import { constants } from "node:os";
import { ConfigError, type ConfigIssue } from "@verifiable-memory/app-config";
import type { Logger } from "pino";
import { handleShutdownSignals } from "./embedded.js";
import { createLogger } from "./logger.js";

/** Work run at shutdown (close a server, flush a ledger, stop a database). */
export type ShutdownHook = () => Promise<unknown> | unknown;

/** How long the hooks of one shutdown may take together by default. */
export const SHUTDOWN_TIMEOUT_MS = 30_000;

/** Options of {@link ShutdownCoordinator}. */
export interface ShutdownOptions {
  /** The service's name in log lines (`<name> stopping`, `<name> stopped`). */
  readonly name: string;
  readonly logger: Logger;
  /**
   * How long all hooks may take together, in ms; default {@link SHUTDOWN_TIMEOUT_MS}; `null`:
   * no limit (the hooks are awaited however long they take).
   */
  readonly timeoutMs?: number | null;
  /**
   * What a signal does once stopping has begun: `exit` (default) exits at once with 128 + the
   * signal's number; `ignore` lets the running hooks finish (for a process whose children only
   * stop through it, which exiting early would orphan).
   */
  readonly secondSignal?: "exit" | "ignore";
  /**
   * When given, called with the reason in place of the `<name> stopping` log line (a launcher
   * printing its own lines).
   */
  readonly onStopping?: (reason: string) => void;
  /**
   * When given, called with whether every hook succeeded within the timeout, in place of the
   * `<name> stopped` log line, just before the exit.
   */
  readonly onStopped?: (ok: boolean) => void;
}

/** What a service's start-up registers its shutdown work with. */
export interface ServiceContext {
  readonly logger: Logger;
  /**
   * Registers `hook` under `name` (named in the log when it fails); hooks run in reverse
   * registration order, so register each resource right after it is opened.
   */
  onShutdown(name: string, hook: ShutdownHook): void;
}

/**
 * The one shutdown of a process: hooks registered in order, run once in reverse order on the
 * first signal (or {@link stop}), with a timeout; a second signal exits at once (or, with
 * `secondSignal: "ignore"`, is ignored).
 */
export class ShutdownCoordinator implements ServiceContext {
  readonly logger: Logger;
  readonly #name: string;
  readonly #timeoutMs: number | null;
  readonly #secondSignal: "exit" | "ignore";
  readonly #onStopping: ((reason: string) => void) | undefined;
  readonly #onStopped: ((ok: boolean) => void) | undefined;
  readonly #hooks: { readonly name: string; readonly hook: ShutdownHook }[] = [];
  #signals = 0;
  #starting = false;
  #held: string | null = null;
  #stopping = false;

  constructor(options: ShutdownOptions) {
    this.#name = options.name;
    this.logger = options.logger;
    this.#timeoutMs = options.timeoutMs === undefined ? SHUTDOWN_TIMEOUT_MS : options.timeoutMs;
    this.#secondSignal = options.secondSignal ?? "exit";
    this.#onStopping = options.onStopping;
    this.#onStopped = options.onStopped;
  }

  /** {@inheritDoc ServiceContext.onShutdown} */
  onShutdown(name: string, hook: ShutdownHook): void {
    this.#hooks.push({ name, hook });
  }

  /**
   * Makes this coordinator the process's only handler of SIGINT, SIGTERM and SIGHUP (in place of
   * the embedded PostgreSQL's exit hooks too). Call it before starting anything.
   */
  listen(): void {
    handleShutdownSignals((signal) => this.#onSignal(signal));
  }

  /**
   * Runs `startUp` with signals held: a first signal meanwhile stops the process once it
   * settles. When it throws, the hooks registered so far run and the error is rethrown.
   * @throws whatever `startUp` throws.
   */
  async starting<T>(startUp: () => Promise<T>): Promise<T> {
    this.#starting = true;
    try {
      return await startUp();
    } catch (error) {
      this.#held = null;
      await this.#runHooks();
      throw error;
    } finally {
      this.#starting = false;
      if (this.#held !== null && !this.#stopping) {
        void this.stop(this.#held);
      }
    }
  }

  /**
   * Runs the hooks once (later calls wait for nothing and return), in reverse registration
   * order within the timeout, then exits: `code` (default 0; a launcher passes 1 when its
   * start-up failed or its supervisor gave up), or 1 when a hook threw or the timeout passed.
   */
  async stop(reason: string, code = 0): Promise<void> {
    if (this.#stopping) {
      return;
    }
    this.#stopping = true;
    if (this.#onStopping) {
      this.#onStopping(reason);
    } else {
      this.logger.info({ reason }, `${this.#name} stopping`);
    }
    const ok = await this.#runHooks();
    if (this.#onStopped) {
      this.#onStopped(ok);
    } else {
      this.logger[ok ? "info" : "error"](`${this.#name} stopped`);
    }
    process.exit(ok ? code : 1);
  }

  #onSignal(signal: NodeJS.Signals): void {
    if (this.#stopping && this.#secondSignal === "ignore") {
      return;
    }
    this.#signals += 1;
    if (this.#signals > 1) {
      this.logger.warn({ signal }, `${this.#name}: second signal, exiting at once`);
      process.exit(128 + (constants.signals[signal] ?? 0));
    }
    if (this.#starting) {
      this.#held = signal;
      this.logger.info({ signal }, `${this.#name}: stopping once start-up has finished`);
      return;
    }
    void this.stop(signal);
  }

  /** Runs and forgets the registered hooks; false when one threw or the timeout passed. */
  async #runHooks(): Promise<boolean> {
    const hooks = this.#hooks.splice(0).reverse();
    let ok = true;
    const run = async () => {
      for (const { name, hook } of hooks) {
        try {
          await hook();
        } catch (error) {
          ok = false;
          this.logger.error({ err: error, hook: name }, `shutdown step ${name} failed`);
        }
      }
    };
    const timeoutMs = this.#timeoutMs;
    if (timeoutMs === null) {
      await run();
      return ok;
    }
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<"timeout">((resolve) => {
      timer = setTimeout(() => resolve("timeout"), timeoutMs);
    });
    const outcome = await Promise.race([run(), timedOut]);
    clearTimeout(timer);
    if (outcome === "timeout") {
      this.logger.error({ timeoutMs }, "shutdown timed out");
      return false;
    }
    return ok;
  }
}

/**
 * Refuses to start on a bad configuration: one fatal log line on stderr (JSON, or readable on a
 * terminal) with `service`, `variables` (every bad variable's name) and the message
 * `invalid configuration:` followed by one `  VARIABLE: reason` line each; then exit 1.
 * The same format in every app.
 */
export function configErrorExit(service: string, issues: readonly ConfigIssue[]): never {
  const error = new ConfigError(issues);
  createLogger({ service, output: process.stderr }).fatal(
    { variables: error.variables },
    error.message,
  );
  process.exit(1);
}

/**
 * Parses the configuration with `parse`, exiting as {@link configErrorExit} describes when it
 * throws a ConfigError.
 * @throws whatever else `parse` throws.
 */
export function loadServiceConfig<T>(service: string, parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    if (error instanceof ConfigError) {
      configErrorExit(service, error.issues);
    }
    throw error;
  }
}

/** Options of {@link runService}. */
export interface ServiceOptions extends ShutdownOptions {
  /**
   * Starts the service, registering each thing it opens with `service.onShutdown` right after
   * opening it. A ConfigError it throws exits as {@link configErrorExit}; any other error is
   * logged on stderr as fatal (`<name> failed to start`, with the error's message) and exits 1,
   * after the hooks registered so far have run.
   */
  readonly start: (service: ServiceContext) => Promise<unknown>;
}

/**
 * Runs a service process: takes over the shutdown signals before anything starts, starts the
 * service, and stops it on the first signal (see the module's signal policy).
 */
export async function runService(options: ServiceOptions): Promise<void> {
  const coordinator = new ShutdownCoordinator(options);
  coordinator.listen();
  try {
    await coordinator.starting(() => options.start(coordinator));
  } catch (error) {
    if (error instanceof ConfigError) {
      configErrorExit(options.name, error.issues);
    }
    const message = error instanceof Error ? error.message : String(error);
    createLogger({ service: options.name, output: process.stderr }).fatal(
      { err: error },
      `${options.name} failed to start: ${message}`,
    );
    process.exit(1);
  }
}
