/**
 * The harness of the tests that run the real `scripts/start.ts` (start.test.ts,
 * start-supervision.test.ts): free ports, a temporary settings file and DATA_DIR (embedded
 * PostgreSQL and local chain, never the machine's DATABASE_URL or a CHAIN_RPC_URL), launching and
 * stopping the launcher in its own process group, and calls to the core API it serves.
 * {@link prepareLaunchers} in `beforeAll` and {@link cleanUpLaunchers} in `afterAll`.
 * @module
 */
import { type ChildProcess, spawn } from "node:child_process";
import { chmod, mkdtemp, readFile, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { expect } from "vitest";
import { writeSolanaKeypairFile } from "../lib/first-run.js";
import { loadWallet } from "../lib/wallet.js";

/** The repository root. */
export const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

/** Configuration the launcher must not inherit from the machine running the tests. */
const INHERITED_CONFIG = [
  "DATABASE_URL",
  "CHAIN_RPC_URL",
  "DATA_DIR",
  "JWT_SECRET",
  "MASTER_ENCRYPTION_KEY",
  "SIWS_DOMAIN",
  "SIWS_URI",
  "SIWS_CHAIN_ID",
  "SERVICE_NAME",
  "PUBLIC_BASE_URL",
  "CORS_ORIGINS",
  "EXTENSION_ALLOWED_ORIGINS",
  "EXTENSION_PUBLIC_URL",
  "EXTENSION_TOKEN_TTL_S",
  "SERVICE_PROGRAM_ID",
  "AUTHORITY_KEYPAIR_PATH",
  "LOG_ORIGIN",
  "LOG_SIGNING_KEY_PATH",
  "LOG_SIGNING_KEYS_PREVIOUS",
  "SEAL_MAX_PENDING",
  "NODE_OPTIONS",
];

/** A running `scripts/start.ts`. */
export interface Launcher {
  readonly child: ChildProcess;
  readonly output: string[];
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export interface Ports {
  readonly core: number;
  readonly anchor: number;
  readonly extension: number;
  readonly chain: number;
}

export let work: string;
export let ports: Ports;
const launchers: Launcher[] = [];

/** Asks the kernel for a free TCP port on 127.0.0.1 (0 when `port` is taken). */
export function listenOn(port: number): Promise<number> {
  return new Promise((done) => {
    const server = createServer();
    server.once("error", () => done(0));
    server.listen(port, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => done(typeof address === "object" && address ? address.port : 0));
    });
  });
}

/** Distinct free ports; the chain's port is followed by a free one (its WebSocket). */
export async function freePorts(): Promise<Ports> {
  const taken = new Set<number>();
  const one = async (): Promise<number> => {
    for (;;) {
      const port = await listenOn(0);
      if (port !== 0 && !taken.has(port)) {
        taken.add(port);
        return port;
      }
    }
  };
  let chain = 0;
  while (chain === 0) {
    const candidate = await one();
    if (candidate < 65_535 && !taken.has(candidate + 1) && (await listenOn(candidate + 1)) !== 0) {
      taken.add(candidate + 1);
      chain = candidate;
    }
  }
  return { chain, core: await one(), anchor: await one(), extension: await one() };
}

/** The launcher's environment: the machine's, minus its service configuration, plus ours. */
function launcherEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of INHERITED_CONFIG) {
    delete env[name];
  }
  return {
    ...env,
    ENV_FILE: join(work, ".env"),
    PORT: String(ports.core),
    ANCHOR_PORT: String(ports.anchor),
    EXTENSION_PORT: String(ports.extension),
    LOCAL_CHAIN_PORT: String(ports.chain),
    PUBLIC_BASE_URL: `http://127.0.0.1:${ports.core}`,
    ANCHOR_INTERVAL_MS: "500",
    SEAL_MAX_AGE_MS: "500",
    // These tests follow each owner's commitment account within seconds; the service's one-hour
    // batched pass and the checkpoint-log path are covered by e2e/checkpoint-log and `pnpm demo`.
    USER_ANCHOR_INTERVAL_MS: "0",
  };
}

/**
 * Runs `node --import tsx scripts/start.ts` (or, `viaPnpm`, the README's `pnpm start`) in its own
 * process group.
 */
export function launch(viaPnpm = false): Launcher {
  const [command, args] = viaPnpm
    ? ["pnpm", ["start"]]
    : [process.execPath, ["--import", "tsx", "scripts/start.ts"]];
  const child = spawn(command, args, {
    cwd: root,
    env: launcherEnv(),
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  const output: string[] = [];
  for (const stream of [child.stdout, child.stderr]) {
    let rest = "";
    stream?.setEncoding("utf8");
    stream?.on("data", (chunk: string) => {
      const lines = (rest + chunk).split("\n");
      rest = lines.pop() ?? "";
      output.push(...lines);
    });
  }
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) => {
    child.once("exit", (code, signal) => done({ code, signal }));
  });
  const launcher = { child, output, exited };
  launchers.push(launcher);
  return launcher;
}

export function tail(launcher: Launcher, lines = 60): string {
  return launcher.output.slice(-lines).join("\n");
}

export function running(launcher: Launcher): boolean {
  return launcher.child.exitCode === null && launcher.child.signalCode === null;
}

/** Waits for the launcher's "ready" line, then checks both health endpoints. */
export async function waitReady(launcher: Launcher, timeoutMs = 150_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!launcher.output.some((line) => line.includes("[start] Ctrl-C stops everything"))) {
    if (!running(launcher)) {
      throw new Error(`start.ts exited before it was ready:\n${tail(launcher)}`);
    }
    if (Date.now() > deadline) {
      throw new Error(`start.ts not ready within ${timeoutMs} ms:\n${tail(launcher)}`);
    }
    await sleep(250);
  }
  expect((await fetch(`http://127.0.0.1:${ports.core}/healthz`)).status).toBe(200);
  expect((await fetch(`http://127.0.0.1:${ports.extension}/readyz`)).status).toBe(200);
  expect((await fetch(`http://127.0.0.1:${ports.anchor}/healthz`)).status).toBe(200);
}

/** SIGTERM; resolves with how the launcher exited (SIGKILL to its group after `graceMs`). */
export async function terminate(launcher: Launcher, graceMs = 60_000) {
  if (!running(launcher)) {
    return launcher.exited;
  }
  launcher.child.kill("SIGTERM");
  const timer = setTimeout(() => killGroup(launcher), graceMs);
  const outcome = await launcher.exited;
  clearTimeout(timer);
  return outcome;
}

/** SIGKILL to the launcher's whole process group (apps, chain and PostgreSQL included). */
export function killGroup(launcher: Launcher): void {
  const pid = launcher.child.pid;
  if (pid === undefined) {
    return;
  }
  try {
    process.kill(-pid, "SIGKILL");
  } catch {
    // the group is gone already
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((done) => setTimeout(done, ms));
}

/** Calls the core API; throws with the body unless the status is `expected`. */
export async function api<T>(
  path: string,
  init: { method?: string; bearer?: string; body?: unknown; expected?: number } = {},
): Promise<T> {
  const res = await fetch(`http://127.0.0.1:${ports.core}${path}`, {
    method: init.method ?? (init.body === undefined ? "GET" : "POST"),
    headers: {
      ...(init.bearer ? { authorization: `Bearer ${init.bearer}` } : {}),
      ...(init.body === undefined ? {} : { "content-type": "application/json" }),
    },
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
  });
  const text = await res.text();
  if (res.status !== (init.expected ?? 200)) {
    throw new Error(`${init.method ?? "GET"} ${path} → ${res.status} ${text}`);
  }
  return (text ? JSON.parse(text) : undefined) as T;
}

/** Makes the temporary directory (DATA_DIR's parent, reachable by the `postgres` user) and picks ports. */
export async function prepareLaunchers(): Promise<void> {
  work = await mkdtemp(join(tmpdir(), "svc-start-test-"));
  // The embedded PostgreSQL runs as the unprivileged `postgres` user when we are root.
  await chmod(work, 0o755);
  ports = await freePorts();
}

/** Stops every launcher still running: SIGTERM, then SIGKILL to its group (after a failed test). */
export async function stopLaunchers(): Promise<void> {
  for (const launcher of launchers) {
    if (running(launcher)) {
      await terminate(launcher, 30_000);
    }
    killGroup(launcher);
  }
}

/** {@link stopLaunchers}, then removes the temporary directory. */
export async function cleanUpLaunchers(): Promise<void> {
  await stopLaunchers();
  if (work) {
    await rm(work, { recursive: true, force: true });
  }
}

/** The pid of the latest instance of `child` the launcher started (its `started … (pid N)` line). */
export function pidOf(launcher: Launcher, child: string): number {
  const prefix = `[start] started ${child} (pid `;
  const line = launcher.output.findLast((l) => l.startsWith(prefix));
  if (line === undefined) {
    throw new Error(`no pid of ${child} in the output:\n${tail(launcher)}`);
  }
  return Number(line.slice(prefix.length, -1));
}

/** How many output lines of the launcher are exactly `line`. */
export function countLines(launcher: Launcher, line: string): number {
  return launcher.output.filter((l) => l === line).length;
}

/** Resolves once `predicate` holds (polled every 50 ms); throws with the output's tail after `timeoutMs`. */
export async function waitFor(
  launcher: Launcher,
  what: string,
  predicate: () => boolean | Promise<boolean>,
  timeoutMs = 90_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await predicate())) {
    if (Date.now() > deadline) {
      throw new Error(`${what}: not within ${timeoutMs} ms\n${tail(launcher)}`);
    }
    await sleep(50);
  }
}

/** The pid of the embedded PostgreSQL's postmaster and its port (postmaster.pid lines 1 and 4). */
export async function postmaster(): Promise<{ pid: number; port: number }> {
  const lines = (await readFile(join(work, ".data", "postgres", "postmaster.pid"), "utf8")).split(
    "\n",
  );
  return { pid: Number(lines[0]), port: Number(lines[3]) };
}

/** A fresh wallet signed in (SIWS) on the core API: its session token and an API key. */
export async function signIn(): Promise<{ session: string; key: string }> {
  const walletPath = join(work, `wallet-${Date.now()}-${Math.random()}.json`);
  await writeSolanaKeypairFile(walletPath);
  const wallet = loadWallet(walletPath);
  const challenge = await api<{ message: string }>("/auth/challenge", {
    body: { publicKey: wallet.publicKey },
  });
  const { token } = await api<{ token: string }>("/auth/verify", {
    body: {
      publicKey: wallet.publicKey,
      message: challenge.message,
      signature: wallet.sign(challenge.message),
    },
  });
  const { key } = await api<{ key: string }>("/keys", {
    bearer: token,
    body: { label: "supervision test" },
    expected: 201,
  });
  return { session: token, key };
}
