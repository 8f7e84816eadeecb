/**
 * Building the console when it is missing or stale, for `pnpm build`, `pnpm start` and the
 * console's tests: the build (`vite build`, a child process) writes `dist/`, then
 * `dist/build.json` records a SHA-256 over what it was built from: this app's sources, config and
 * public files, the sources and package.json of every workspace package it depends on
 * (transitively), and pnpm-lock.yaml. The build is current while that digest matches, which
 * reading those files tells in a few milliseconds.
 * @module
 */
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, realpathSync } from "node:fs";
import { open, rm, stat, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";

/** This app's directory. */
export const CONSOLE_DIR = resolve(dirname(fileURLToPath(import.meta.url)), "..");
/** The build's directory. */
export const CONSOLE_DIST = join(CONSOLE_DIR, "dist");
/** The repository root. */
const ROOT = resolve(CONSOLE_DIR, "../..");
/** The freshness record inside the build. */
const RECORD = join(CONSOLE_DIST, "build.json");
/** Version of the record's format; another format makes the build stale. */
const RECORD_FORMAT = 1;

/** Freshness of the build. */
export type ConsoleBuildState =
  | { readonly current: true }
  | { readonly current: false; readonly reason: string };

/** Every file under `dir` (skipping node_modules, dist and tests), sorted. */
function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) {
    return [];
  }
  const found: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (["node_modules", "dist", "test"].includes(entry.name)) {
      continue;
    }
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      found.push(...filesUnder(path));
    } else if (entry.isFile()) {
      found.push(path);
    }
  }
  return found.sort();
}

/** The directories of the workspace packages `packageDir` depends on, transitively. */
function workspaceDependencies(packageDir: string, seen = new Set<string>()): Set<string> {
  const manifest = JSON.parse(readFileSync(join(packageDir, "package.json"), "utf8")) as {
    dependencies?: Record<string, string>;
  };
  for (const [name, specifier] of Object.entries(manifest.dependencies ?? {})) {
    if (!specifier.startsWith("workspace:")) {
      continue;
    }
    const dir = join(packageDir, "node_modules", name);
    const real = existsSync(dir) ? realpathSync(dir) : null;
    if (real !== null && !seen.has(real)) {
      seen.add(real);
      workspaceDependencies(real, seen);
    }
  }
  return seen;
}

/** The inputs of the build: this app's files, its workspace dependencies' sources, the lockfile. */
function inputs(): string[] {
  const files = filesUnder(CONSOLE_DIR);
  for (const dir of [...workspaceDependencies(CONSOLE_DIR)].sort()) {
    files.push(join(dir, "package.json"), ...filesUnder(join(dir, "src")));
  }
  files.push(join(ROOT, "pnpm-lock.yaml"));
  return files;
}

/** SHA-256 over the inputs' paths and bytes. */
function digest(): string {
  const hash = createHash("sha256");
  hash.update(`format ${RECORD_FORMAT}\0`);
  for (const file of inputs()) {
    const bytes = readFileSync(file);
    hash.update(`${relative(ROOT, file).split(sep).join("/")}\0${bytes.length}\0`);
    hash.update(bytes);
  }
  return hash.digest("hex");
}

/** Whether the build exists and was built from the inputs as they are now. Never throws. */
export function consoleBuildState(): ConsoleBuildState {
  if (!existsSync(join(CONSOLE_DIST, "index.html"))) {
    return { current: false, reason: "not built" };
  }
  let recorded: { format?: number; digest?: string };
  try {
    recorded = JSON.parse(readFileSync(RECORD, "utf8")) as typeof recorded;
  } catch {
    return { current: false, reason: "no build record" };
  }
  if (recorded.format !== RECORD_FORMAT) {
    return { current: false, reason: "built by another version of the build" };
  }
  try {
    return recorded.digest === digest()
      ? { current: true }
      : { current: false, reason: "sources changed" };
  } catch {
    return { current: false, reason: "a source file is gone" };
  }
}

/**
 * Runs `vite build` for the console (a child process, its output passed to `log` line by line)
 * and writes the freshness record, holding the build lock.
 * @throws Error with the build's last lines when it fails (e.g. the first-load budget is
 *   exceeded).
 */
export function buildConsole(log: (line: string) => void = () => undefined): Promise<void> {
  return withBuildLock(() => runViteBuild(log));
}

/** {@link buildConsole} without the lock. */
async function runViteBuild(log: (line: string) => void): Promise<void> {
  const before = digest();
  const viteManifest = createRequire(join(CONSOLE_DIR, "package.json")).resolve(
    "vite/package.json",
  );
  const bin = (JSON.parse(readFileSync(viteManifest, "utf8")) as { bin: { vite: string } }).bin;
  const vite = join(dirname(viteManifest), bin.vite);
  const output: string[] = [];
  const code = await new Promise<number | null>((resolveExit, reject) => {
    const child = spawn(process.execPath, [vite, "build", "--logLevel", "warn"], {
      cwd: CONSOLE_DIR,
      env: { ...process.env, NODE_ENV: "production", NO_COLOR: "1" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const take = (chunk: Buffer) => {
      for (const line of chunk.toString("utf8").split("\n")) {
        if (line.trim() !== "") {
          output.push(line);
          log(line);
        }
      }
    };
    child.stdout.on("data", take);
    child.stderr.on("data", take);
    child.once("error", reject);
    child.once("close", resolveExit);
  });
  if (code !== 0) {
    throw new Error(`the console's build failed:\n${output.slice(-20).join("\n")}`);
  }
  await writeFile(
    RECORD,
    `${JSON.stringify({ format: RECORD_FORMAT, digest: before }, null, 2)}\n`,
  );
}

/** The lock that keeps two processes (e.g. two test files) from building at once. */
const LOCK = join(
  tmpdir(),
  `vm-console-build-${createHash("sha256").update(CONSOLE_DIR).digest("hex").slice(0, 16)}.lock`,
);
/** A lock older than this is taken to be left by a process that died. */
const STALE_LOCK_MS = 10 * 60_000;

/** Runs `work` holding {@link LOCK}, waiting for another holder to finish first. */
async function withBuildLock<T>(work: () => Promise<T>): Promise<T> {
  for (;;) {
    try {
      const handle = await open(LOCK, "wx");
      await handle.close();
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") {
        throw error;
      }
      const since = await stat(LOCK).then(
        (info) => Date.now() - info.mtimeMs,
        () => 0,
      );
      if (since > STALE_LOCK_MS) {
        await rm(LOCK, { force: true });
      } else {
        await new Promise((done) => setTimeout(done, 250));
      }
    }
  }
  try {
    return await work();
  } finally {
    await rm(LOCK, { force: true });
  }
}

/**
 * Builds the console when {@link consoleBuildState} says it is missing or stale. Concurrent
 * callers (several test files, a start and a build) build it once: the others wait, then find it
 * current.
 * @returns why it was rebuilt, or null when it was current.
 * @throws as {@link buildConsole}.
 */
export async function ensureConsoleBuilt(
  log: (line: string) => void = () => undefined,
): Promise<string | null> {
  if (consoleBuildState().current) {
    return null;
  }
  return withBuildLock(async () => {
    const state = consoleBuildState();
    if (state.current) {
      return null;
    }
    await runViteBuild(log);
    return state.reason;
  });
}

/** The first-load figures the build recorded (dist/first-load.json). */
export function firstLoadReport(): { files: string[]; gzipBytes: number; maxGzipBytes: number } {
  return JSON.parse(readFileSync(join(CONSOLE_DIST, "first-load.json"), "utf8")) as {
    files: string[];
    gzipBytes: number;
    maxGzipBytes: number;
  };
}
