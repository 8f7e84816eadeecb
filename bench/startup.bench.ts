/**
 * Startup benchmark: each app `pnpm start` runs, started the way `pnpm start`
 * starts it — its bundle from `pnpm build` with plain node (scripts/lib/processes.ts `startApp`) —
 * beside the same app from its sources through tsx (`node --import tsx apps/<app>/src/main.ts`,
 * as before the build existed), in the same run. Figures per app: the time from spawn to the
 * first `GET /readyz` 200 (polled every 10 ms), and the idle RSS (VmRSS from /proc/<pid>/status,
 * Linux only) IDLE_MS after that. Ratios are built/tsx. Rounds alternate which variant starts
 * first; figures are the median round. core-api and extension-api run on one fresh migrated
 * database, anchor-service too (with a keypair of its own and no chain reachable: it only needs one
 * when a user has leaves to anchor), local-chain in a fresh DATA_DIR per start (it deploys the
 * program at every first start). Sizes: BENCH_STARTUP_ROUNDS (default 5).
 * Database: DATABASE_URL's server when set, else an embedded PostgreSQL in a temporary directory;
 * a fresh database is created and dropped.
 * @module
 */
import { chmod, mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
// Relative import: the root package does not depend on this workspace package.
import { LOCAL_PROGRAM_ID } from "../programs/commitment/src/index.js";
import { bundlePath, ensureBuilt, REPO_ROOT, targetNamed } from "../scripts/lib/build.js";
import { writeSolanaKeypairFile } from "../scripts/lib/first-run.js";
import { type AppProcess, startApp, stopApp } from "../scripts/lib/processes.js";
import { type Figure, median, printFigures, procStatusMiB } from "./lib.js";
import { freePort } from "./processes.js";
import { BENCH_ENV, benchDatabase } from "./sign-in.bench.js";

const ROUNDS = Number(process.env.BENCH_STARTUP_ROUNDS ?? 5);
const IDLE_MS = 1_000;
const POLL_MS = 10;
const READY_TIMEOUT_MS = 90_000;

/** How one app is started for a measurement. */
interface AppCase {
  /** Build target name, also the app's folder under apps/. */
  readonly name: string;
  /** Environment of one start (fresh ports, and a fresh DATA_DIR where the app keeps state). */
  env(): Promise<{ env: NodeJS.ProcessEnv; port: number; cleanup(): Promise<void> }>;
}

/** One start's figures. */
interface Sample {
  readonly readyMs: number;
  /** VmRSS in MiB, NaN where /proc is not available. */
  readonly rssMiB: number;
}

/** `port` and `port + 1` both free (the local chain's JSON-RPC and WebSocket). */
async function freePortPair(): Promise<number> {
  for (;;) {
    const port = await freePort();
    if (port < 65_535 && (await portIsFree(port + 1))) {
      return port;
    }
  }
}

/** Whether `port` can be listened on at 127.0.0.1 right now. */
async function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once("error", () => resolve(false));
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
  });
}

/** VmRSS of `pid` in MiB; NaN when /proc cannot tell (not Linux). */
async function rssMiB(pid: number): Promise<number> {
  return (await procStatusMiB(pid, "VmRSS")) ?? Number.NaN;
}

/**
 * Starts `entry` as `pnpm start` would (startApp) and measures spawn → /readyz 200 and the idle
 * RSS after it, then stops it (SIGTERM, waits for the exit).
 * @throws Error with the app's last output lines when it exits first or is not ready in time.
 */
async function measure(app: AppCase, entry: string): Promise<Sample> {
  const { env, port, cleanup } = await app.env();
  const lines: string[] = [];
  const started = performance.now();
  const child: AppProcess = startApp(app.name, entry, env, REPO_ROOT, {
    output: (line) => {
      lines.push(line);
      lines.splice(0, Math.max(0, lines.length - 20));
    },
  });
  let exited = false;
  void child.exited.then(() => {
    exited = true;
  });
  try {
    const url = `http://127.0.0.1:${port}/readyz`;
    for (;;) {
      const ready = await fetch(url).then(
        async (res) => {
          await res.arrayBuffer();
          return res.status === 200;
        },
        () => false,
      );
      if (ready) {
        break;
      }
      if (exited || performance.now() - started > READY_TIMEOUT_MS) {
        throw new Error(`${app.name} (${entry}) not ready:\n${lines.join("\n")}`);
      }
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
    const readyMs = performance.now() - started;
    await new Promise((resolve) => setTimeout(resolve, IDLE_MS));
    return { readyMs, rssMiB: await rssMiB(child.child.pid as number) };
  } finally {
    await stopApp(child);
    await cleanup();
  }
}

/** Runs the benchmark (see the module documentation) and prints its figures. */
export async function run(): Promise<void> {
  const build = await ensureBuilt();
  if (build.rebuilt.length > 0) {
    console.log(`(built ${build.rebuilt.map((r) => r.target.name).join(", ")} first)`);
  }
  const database = await benchDatabase("startup");
  const work = await mkdtemp(join(tmpdir(), "svc-bench-startup-"));
  // The embedded PostgreSQL (when DATABASE_URL is unset) runs as `postgres` when we are root.
  await chmod(work, 0o755);
  const keypair = join(work, "authority.json");
  await writeSolanaKeypairFile(keypair);
  const fixed = { cleanup: async () => {} };
  const base: NodeJS.ProcessEnv = { ...process.env, ...BENCH_ENV, DATABASE_URL: database.url };
  delete base.NODE_OPTIONS;
  const apps: AppCase[] = [
    {
      name: "core-api",
      env: async () => {
        const port = await freePort();
        return { ...fixed, port, env: { ...base, PORT: String(port) } };
      },
    },
    {
      name: "extension-api",
      env: async () => {
        const port = await freePort();
        return { ...fixed, port, env: { ...base, EXTENSION_PORT: String(port) } };
      },
    },
    {
      name: "anchor-service",
      env: async () => {
        const port = await freePort();
        return {
          ...fixed,
          port,
          env: {
            ...base,
            ANCHOR_PORT: String(port),
            AUTHORITY_KEYPAIR_PATH: keypair,
            SERVICE_PROGRAM_ID: LOCAL_PROGRAM_ID,
            CHAIN_RPC_URL: "http://127.0.0.1:9",
            ANCHOR_INTERVAL_MS: "600000",
            LOG_LEVEL: "warn",
          },
        };
      },
    },
    {
      name: "local-chain",
      env: async () => {
        const port = await freePortPair();
        const dataDir = await mkdtemp(join(work, "chain-"));
        return {
          port,
          env: { ...base, LOCAL_CHAIN_PORT: String(port), DATA_DIR: dataDir },
          cleanup: () => rm(dataDir, { recursive: true, force: true }),
        };
      },
    },
  ];
  const figures: Figure[] = [];
  try {
    for (const app of apps) {
      const built = bundlePath(targetNamed(app.name));
      const source = `apps/${app.name}/src/main.ts`;
      const samples = { built: [] as Sample[], tsx: [] as Sample[] };
      for (let round = 0; round < ROUNDS; round++) {
        const order = round % 2 === 0 ? (["built", "tsx"] as const) : (["tsx", "built"] as const);
        for (const variant of order) {
          samples[variant].push(await measure(app, variant === "built" ? built : source));
        }
      }
      const med = (list: Sample[], key: keyof Sample) => median(list.map((s) => s[key]));
      figures.push({
        name: `${app.name} spawn → /readyz 200`,
        value: med(samples.built, "readyMs"),
        baseline: med(samples.tsx, "readyMs"),
        unit: "ms",
        baselineName: "tsx sources",
      });
      const rss = med(samples.built, "rssMiB");
      if (!Number.isNaN(rss)) {
        figures.push({
          name: `${app.name} idle RSS, ${IDLE_MS} ms after ready`,
          value: rss,
          baseline: med(samples.tsx, "rssMiB"),
          unit: "MiB",
          baselineName: "tsx sources",
        });
      }
    }
  } finally {
    await rm(work, { recursive: true, force: true });
    await database.close();
  }
  printFigures(
    `startup: built bundle (plain node, pnpm build) vs sources (tsx), median of ${ROUNDS} rounds; ratio = built/tsx`,
    figures,
  );
}
