/**
 * Child processes of `pnpm start`: each app runs as its own Node process (its built bundle with
 * plain `node`, or a TypeScript entry through tsx), is waited for on its health endpoint, and is
 * stopped with SIGTERM (SIGKILL after a grace period).
 * @module
 */
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { logLineFormatter } from "./log-lines.js";

/** One running app. */
export interface AppProcess {
  readonly name: string;
  readonly child: ChildProcess;
  /** Resolves with the exit code (or the signal name) once the process has exited. */
  readonly exited: Promise<number | string>;
}

/** Options of {@link startApp}. */
export interface StartOptions {
  /** Arguments after the entry file. */
  readonly args?: readonly string[];
  /**
   * Run in a process group of its own, so that a terminal's Ctrl-C (sent to the foreground group)
   * does not reach it, and open an IPC channel to it (which closes when this process ends).
   */
  readonly ownGroup?: boolean;
  /**
   * Where the app's output lines go, one call per line with the prefix (`stderr` tells which
   * stream); default this process's stdout and stderr, pretty-printed when they are terminals.
   */
  readonly output?: (line: string, stderr: boolean) => void;
}

/**
 * The Node arguments that run `entry`: a `.ts` file through tsx (`--import tsx`), anything else
 * (a bundle from `pnpm build`) with plain node and its source map applied to stack traces.
 */
export function nodeArgs(entry: string): string[] {
  return entry.endsWith(".ts") ? ["--import", "tsx", entry] : ["--enable-source-maps", entry];
}

/**
 * Starts `entry` (a bundle from `pnpm build` with plain node, or a `.ts` file with tsx; see
 * {@link nodeArgs}) in a child process with `env`, in `cwd`; its output lines are prefixed with
 * `[name]` and go to this process's stdout/stderr, pretty-printed when that is a terminal, or to
 * `options.output`. A failure to spawn rejects `exited`.
 */
export function startApp(
  name: string,
  entry: string,
  env: NodeJS.ProcessEnv,
  cwd: string,
  options: StartOptions = {},
): AppProcess {
  const child = spawn(process.execPath, [...nodeArgs(entry), ...(options.args ?? [])], {
    cwd,
    env,
    stdio: options.ownGroup ? ["ignore", "pipe", "pipe", "ipc"] : ["ignore", "pipe", "pipe"],
    detached: options.ownGroup === true,
  });
  const output = options.output;
  if (output) {
    forEachLine(child.stdout, (line) => output(`[${name}] ${line}`, false));
    forEachLine(child.stderr, (line) => output(`[${name}] ${line}`, true));
  } else {
    prefixLines(child.stdout, `[${name}] `, process.stdout);
    prefixLines(child.stderr, `[${name}] `, process.stderr);
  }
  const exited = once(child, "exit").then(([code, signal]) => (code ?? signal) as number | string);
  return { name, child, exited };
}

function prefixLines(
  from: NodeJS.ReadableStream | null,
  prefix: string,
  to: NodeJS.WritableStream,
): void {
  const format = logLineFormatter(to as { isTTY?: boolean });
  forEachLine(from, (line) => to.write(`${prefix}${format(line)}\n`));
}

/** Calls `each` with every line of `from` (the last one too when it lacks a newline). */
function forEachLine(from: NodeJS.ReadableStream | null, each: (line: string) => void): void {
  if (!from) {
    return;
  }
  let rest = "";
  from.setEncoding("utf8");
  from.on("data", (chunk: string) => {
    const lines = (rest + chunk).split("\n");
    rest = lines.pop() ?? "";
    for (const line of lines) {
      each(line);
    }
  });
  from.on("end", () => {
    if (rest) {
      each(rest);
    }
  });
}

/**
 * Polls `url` until it answers 2xx.
 * @throws Error when `app` exits first or `timeoutMs` passes.
 */
export async function waitHealthy(app: AppProcess, url: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let exited = false;
  void app.exited.then(() => {
    exited = true;
  });
  while (Date.now() < deadline) {
    if (exited) {
      throw new Error(`${app.name} exited before it became healthy`);
    }
    try {
      const res = await fetch(url);
      if (res.ok) {
        return;
      }
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${app.name} did not become healthy at ${url} within ${timeoutMs} ms`);
}

/** Sends SIGTERM, then SIGKILL after `graceMs`; resolves once the process has exited. */
export async function stopApp(app: AppProcess, graceMs = 20_000): Promise<void> {
  if (app.child.exitCode !== null || app.child.signalCode !== null) {
    return;
  }
  app.child.kill("SIGTERM");
  const timer = setTimeout(() => app.child.kill("SIGKILL"), graceMs);
  await app.exited;
  clearTimeout(timer);
}
