/**
 * `svc` start-up (`pnpm bench startup` runs this beside startup.bench.ts): the wall time from spawn
 * to exit of `svc --version` and of `svc recall <word>` against a local service holding 10
 * memories, median of BENCH_SVC_RUNS runs (default 20). Ours: the published package, packed and
 * npm-installed outside the workspace (scripts/lib/dist-install.ts) and run with plain node from
 * dist/. Baseline in the same run: the workspace's bin (packages/cli/bin/svc.js), which compiles
 * the TypeScript sources through tsx on every run, as `svc` ran before the build. Runs alternate
 * between the two. A floor is printed too: plain node doing nothing (`node -e 0`) for `--version`,
 * and plain node sending the same search with the stored session token (one fetch) for `recall`,
 * both as node runs by default and with WebAssembly kept on Liftoff as svc keeps it (packages/cli
 * src/main.ts: otherwise node waits at exit for V8 to finish recompiling undici's HTTP parser), so
 * what svc itself adds shows beside what the machine and the service take. The service:
 * testkit's startLocalService (PostgreSQL from DATABASE_URL, else an embedded one). Target:
 * ≤ 300 ms each.
 * @module
 */
import { spawn } from "node:child_process";
import { mkdir, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
// The service start-up alone: the package's main entry also loads its vitest helpers, which need
// a running vitest.
import { newSolanaKeypair, startLocalService } from "@verifiable-memory/testkit/service";
import { installPackedPackages } from "../scripts/lib/dist-install.js";
import { WORKSPACE_ROOT } from "../scripts/lib/workspace.js";
import { type Figure, median, printFigures } from "./lib.js";
import { benchDatabase } from "./sign-in.bench.js";

const RUNS = Number(process.env.BENCH_SVC_RUNS ?? 20);
const MEMORIES = 10;
const TSX_BIN = join(WORKSPACE_ROOT, "packages", "cli", "bin", "svc.js");

/** One run: its exit status, its output and the milliseconds from spawn to exit. */
interface Timed {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly ms: number;
}

/** Spawns `command args…` and times it to its exit. */
function timed(command: string, args: readonly string[], env: NodeJS.ProcessEnv): Promise<Timed> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(command, args, { env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString("utf8");
    });
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString("utf8");
    });
    child.on("error", reject);
    child.on("exit", (status) => {
      const ms = performance.now() - started;
      child.on("close", () => resolve({ status, stdout, stderr, ms }));
    });
  });
}

/** Runs and checks it exited 0 (a failing command is not a start-up figure). */
async function ok(command: string, args: readonly string[], env: NodeJS.ProcessEnv) {
  const result = await timed(command, args, env);
  if (result.status !== 0) {
    throw new Error(`${command} ${args.join(" ")} exited ${result.status}: ${result.stderr}`);
  }
  return result;
}

/** Runs the bench (see the module documentation). */
export async function run(): Promise<void> {
  const install = await installPackedPackages();
  const service = await startLocalService({
    root: WORKSPACE_ROOT,
    db: await benchDatabase("svcstartup"),
    tempPrefix: "svc-local-service-",
  });
  const home = join(install.dir, "home");
  try {
    await mkdir(home, { recursive: true });
    const key = newSolanaKeypair();
    const keypairPath = join(home, "id.json");
    await writeFile(keypairPath, JSON.stringify([...key.secretKey]));
    const env = {
      PATH: process.env.PATH ?? "",
      HOME: home,
      XDG_CONFIG_HOME: join(home, "xdg"),
      SVC_URL: service.apiUrl,
    };
    const dist = install.bin("svc");
    await ok(dist, ["login", "--keypair", keypairPath], env);
    for (let i = 0; i < MEMORIES; i++) {
      await ok(dist, ["remember", `Bench memory ${i}: the parcel leaves at ${i} o'clock.`], env);
    }
    const fetchOnce = [
      "-e",
      `const { token } = JSON.parse(require("node:fs").readFileSync(${JSON.stringify(
        join(home, "xdg", "svc", "credentials.json"),
      )}, "utf8"));
      fetch(${JSON.stringify(`${service.apiUrl}/memories/search`)}, { method: "POST",
        headers: { authorization: "Bearer " + token, "content-type": "application/json" },
        body: JSON.stringify({ query: "parcel" }) }).then((res) => res.text());`,
    ];
    const cases = [
      {
        name: "svc --version",
        args: ["--version"],
        floors: [{ name: "node -e 0", args: ["-e", "0"] }],
      },
      {
        name: `svc recall parcel (${MEMORIES} memories)`,
        args: ["recall", "parcel"],
        floors: [
          { name: "plain node, one fetch of the search", args: fetchOnce },
          {
            name: "plain node --liftoff-only, one fetch",
            args: ["--liftoff-only", ...fetchOnce],
          },
        ],
      },
    ];
    const figures: Figure[] = [];
    const floors: Figure[] = [];
    for (const c of cases) {
      // One unmeasured run of each warms the file cache.
      await ok(dist, c.args, env);
      await ok(process.execPath, [TSX_BIN, ...c.args], env);
      const ours: number[] = [];
      const baseline: number[] = [];
      const floorRuns = c.floors.map(() => [] as number[]);
      for (let i = 0; i < RUNS; i++) {
        const first = i % 2 === 0;
        const a = await ok(
          first ? dist : process.execPath,
          first ? c.args : [TSX_BIN, ...c.args],
          env,
        );
        const b = await ok(
          first ? process.execPath : dist,
          first ? [TSX_BIN, ...c.args] : c.args,
          env,
        );
        (first ? ours : baseline).push(a.ms);
        (first ? baseline : ours).push(b.ms);
        for (const [k, f] of c.floors.entries()) {
          floorRuns[k]?.push((await ok(process.execPath, f.args, env)).ms);
        }
      }
      figures.push({
        name: c.name,
        value: median(ours),
        baseline: median(baseline),
        unit: "ms",
        baselineName: "workspace bin through tsx",
        target: "≤ 300 ms",
      });
      for (const [k, f] of c.floors.entries()) {
        floors.push({
          name: c.name,
          value: median(ours),
          baseline: median(floorRuns[k] ?? []),
          unit: "ms",
          baselineName: f.name,
        });
      }
    }
    printFigures(
      `svc start-up: spawn → exit, median of ${RUNS} runs; ours = packed package, plain node from dist/`,
      figures,
    );
    printFigures("svc start-up beside its floor (same runs)", floors);
  } finally {
    await service.close();
    await rm(install.dir, { recursive: true, force: true });
  }
}
