/**
 * `pnpm start`: the whole service on embedded defaults (README quick start).
 * 0. Builds the apps (scripts/lib/build.ts) when a bundle is missing or stale, and says so; the apps
 *    then run as plain `node` on their bundles (`apps/<app>/dist/main.js`,
 *    `scripts/dist/postgres-host.js`). This launcher itself runs through tsx.
 * 1. First run: writes `.env` with fresh secrets and a local authority keypair (and says so); a
 *    settings file without LOG_SIGNING_KEY_PATH gets a log key and LOG_ORIGIN pinned (new or
 *    upgraded). `ENV_FILE` names another settings file (default `<root>/.env`); relative DATA_DIR,
 *    AUTHORITY_KEYPAIR_PATH and LOG_SIGNING_KEY_PATH resolve against that file's directory.
 *    Variables already set in the environment override the file.
 * 2. DATABASE_URL unset → the embedded PostgreSQL in DATA_DIR, shared by the apps, hosted by
 *    ./lib/postgres-host.ts in a process group of its own so that Ctrl-C reaches it only through
 *    this launcher, after the apps have drained.
 * 3. CHAIN_RPC_URL unset → the local chain (litesvm + our program) on LOCAL_CHAIN_PORT; the local
 *    authority is funded there by airdrop.
 * 4. core-api, extension-api and anchor-service; prints the URLs.
 * Every child runs under the supervisor of @verifiable-memory/runtime (docs/operations.md
 * "Restarts under pnpm start"): one that exits unexpectedly is restarted after a backoff (250 ms
 * doubling to 8 s), PostgreSQL before the chain before the apps, which stay up and reconnect when
 * only PostgreSQL died; a sixth restart of one child within 60 s stops everything with exit 1.
 * Ctrl-C / SIGTERM (or SIGHUP) stops the apps (each drains in-flight work), then the chain, then
 * PostgreSQL, and exits 0.
 * @module
 */

import { once } from "node:events";
import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseEnv } from "node:util";
import { requestAirdrop } from "@verifiable-memory/litesvm-rpc";
import {
  createLogger,
  describeSupervisorEvent,
  ShutdownCoordinator,
  type SupervisedChild,
  Supervisor,
} from "@verifiable-memory/runtime";
import bs58 from "bs58";
import { bundlePath, ensureBuilt, targetNamed } from "./lib/build.js";
import { authorityKeypairProblem, ensureLocalEnv, ensureLogKey } from "./lib/first-run.js";
import type { PostgresHostMessage } from "./lib/postgres-host.js";
import {
  type AppProcess,
  type StartOptions,
  startApp,
  stopApp,
  waitHealthy,
} from "./lib/processes.js";

const LAMPORTS_PER_SOL = 1_000_000_000;
const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");

const envFile = resolve(root, process.env.ENV_FILE || ".env");
const base = dirname(envFile);

for (const line of [
  ...(await ensureLocalEnv(envFile, process.env)),
  ...(await ensureLogKey(envFile, process.env)),
]) {
  console.log(`[start] ${line}`);
}
const env: NodeJS.ProcessEnv = {
  ...(parseEnv(readFileSync(envFile, "utf8")) as NodeJS.ProcessEnv),
  ...process.env,
};
const dataDir = resolve(base, env.DATA_DIR ?? "./.data");
env.DATA_DIR = dataDir;
const authoritySetting = env.AUTHORITY_KEYPAIR_PATH;
for (const name of ["AUTHORITY_KEYPAIR_PATH", "LOG_SIGNING_KEY_PATH"] as const) {
  const path = env[name];
  if (path) {
    env[name] = resolve(base, path);
  }
}
if (authoritySetting && env.AUTHORITY_KEYPAIR_PATH) {
  const problem = authorityKeypairProblem(authoritySetting, env.AUTHORITY_KEYPAIR_PATH, envFile);
  if (problem !== null) {
    console.error(`[start] ${problem}`);
    process.exit(1);
  }
}

const supervisor = new Supervisor({
  onEvent: (event) => {
    const line = `[start] ${describeSupervisorEvent(event)}`;
    if (event.type === "restarted") {
      console.log(line);
    } else {
      console.error(line);
    }
  },
});
// SIGINT/SIGTERM/SIGHUP stop the supervisor: the apps drain first, then the chain, then
// PostgreSQL. Its children (the PostgreSQL host above all) stop only through it, so a second
// signal is ignored and there is no time limit.
const shutdown = new ShutdownCoordinator({
  name: "start",
  logger: createLogger({ service: "start", output: process.stderr }),
  timeoutMs: null,
  secondSignal: "ignore",
  onStopping: () => console.log("[start] stopping…"),
  onStopped: () => console.log("[start] stopped"),
});
shutdown.listen();
shutdown.onShutdown("supervisor", () => supervisor.stop());
void supervisor.gaveUp.then(() => shutdown.stop("the supervisor gave up", 1));

/** The bundle of the build target named `name` (made current by ensureBuilt below). */
function built(name: string): string {
  return bundlePath(targetNamed(name), root);
}

/**
 * A child of `pnpm start` under the supervisor: each instance runs the bundle of the build target
 * `target` (default `name`), is logged with its pid, is ready once `ready(app)` resolves, and is
 * stopped with stopApp.
 */
function child(
  name: string,
  tier: number,
  ready: (app: AppProcess) => Promise<void>,
  options: StartOptions & { target?: string } = {},
): SupervisedChild {
  return {
    name,
    tier,
    start: () => {
      const app = startApp(name, built(options.target ?? name), env, root, options);
      console.log(`[start] started ${name} (pid ${app.child.pid})`);
      return { exited: app.exited, ready: ready(app), stop: () => stopApp(app) };
    },
  };
}

try {
  const build = await ensureBuilt({ root });
  if (build.rebuilt.length > 0) {
    const what = build.rebuilt.map(({ target, reason }) => `${target.name} (${reason})`);
    console.log(`[start] built ${what.join(", ")} in ${Math.round(build.ms)} ms`);
  }

  if (!env.DATABASE_URL) {
    // Restarts must come back on the same port: the apps keep the URL and reconnect to it.
    let firstPort: number | null = null;
    await supervisor.add(
      child(
        "postgres",
        0,
        async (host) => {
          const hosted = await hostedPostgres(host);
          if (firstPort !== null && hosted.port !== firstPort) {
            throw new Error(`PostgreSQL came back on port ${hosted.port}, not ${firstPort}`);
          }
          if (firstPort === null) {
            firstPort = hosted.port;
            env.DATABASE_URL = hosted.url;
            console.log(
              `[start] embedded PostgreSQL in ${dataDir}/postgres on port ${hosted.port}`,
            );
          }
        },
        { target: "postgres-host", args: [dataDir], ownGroup: true },
      ),
    );
  }

  if (!env.CHAIN_RPC_URL) {
    const url = `http://127.0.0.1:${Number(env.LOCAL_CHAIN_PORT ?? 8899)}`;
    await supervisor.add(
      child("local-chain", 1, async (chain) => {
        await waitHealthy(chain, `${url}/healthz`);
        await fundAuthority(url, env.AUTHORITY_KEYPAIR_PATH);
      }),
    );
    env.CHAIN_RPC_URL = url;
  }

  const corePort = Number(env.PORT ?? 8787);
  const extensionPort = Number(env.EXTENSION_PORT ?? 8788);
  const anchorPort = Number(env.ANCHOR_PORT ?? 8789);
  await Promise.all(
    (
      [
        ["core-api", corePort],
        ["extension-api", extensionPort],
        ["anchor-service", anchorPort],
      ] as const
    ).map(([name, port]) =>
      supervisor.add(child(name, 2, (app) => waitHealthy(app, `http://127.0.0.1:${port}/healthz`))),
    ),
  );

  console.log("");
  console.log(`[start] core API        http://localhost:${corePort}  (reference: /docs)`);
  console.log(
    `[start] extension API   http://localhost:${extensionPort}  (reference: /docs; extension: apps/chrome-extension)`,
  );
  console.log(`[start] anchor metrics  http://localhost:${anchorPort}/metrics`);
  console.log(`[start] chain RPC       ${env.CHAIN_RPC_URL}`);
  console.log("[start] Ctrl-C stops everything");
} catch (error) {
  console.error(`[start] ${(error as Error).message}`);
  await shutdown.stop("start-up failed", 1);
}

/**
 * The URL of the embedded PostgreSQL once its host process reports it.
 * @throws Error with the host's reason when it fails or exits first.
 */
async function hostedPostgres(host: AppProcess): Promise<{ url: string; port: number }> {
  const reported = once(host.child, "message").then(([message]) => message as PostgresHostMessage);
  const message = await Promise.race([reported, host.exited]);
  if (typeof message !== "object") {
    throw new Error(`the embedded PostgreSQL host exited (${message}) before it was ready`);
  }
  if ("error" in message) {
    throw new Error(`embedded PostgreSQL: ${message.error}`);
  }
  return message;
}

/**
 * Tops up the local authority on the local chain (airdrop) so anchoring can pay fees.
 * Only used against the embedded local chain, never against a real cluster.
 */
async function fundAuthority(rpcUrl: string, keypairPath: string | undefined): Promise<void> {
  if (!keypairPath) {
    return;
  }
  const bytes = JSON.parse(readFileSync(keypairPath, "utf8")) as number[];
  const pubkey = bs58.encode(Uint8Array.from(bytes.slice(32, 64)));
  const rpc = async (method: string, params: unknown[]) => {
    const res = await fetch(rpcUrl, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
    });
    const body = (await res.json()) as { result?: unknown; error?: { message: string } };
    if (body.error) {
      throw new Error(`${method}: ${body.error.message}`);
    }
    return body.result;
  };
  const balance = (await rpc("getBalance", [pubkey])) as { value: number };
  if (balance.value < 10 * LAMPORTS_PER_SOL) {
    await requestAirdrop(rpcUrl, pubkey, 100 * LAMPORTS_PER_SOL);
    console.log(`[start] funded the local authority ${pubkey} with 100 SOL on the local chain`);
  }
}
