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
 * Ctrl-C / SIGTERM (or SIGHUP) stops the apps (each drains in-flight work), then the chain, then
 * PostgreSQL, and exits 0.
 * @module
 */

import { once } from "node:events";
import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseEnv } from "node:util";
import { handleShutdownSignals } from "@verifiable-memory/db-schema";
import { requestAirdrop } from "@verifiable-memory/local-chain";
import bs58 from "bs58";
import { bundlePath, ensureBuilt, targetNamed } from "./lib/build.js";
import { authorityKeypairProblem, ensureLocalEnv, ensureLogKey } from "./lib/first-run.js";
import type { PostgresHostMessage } from "./lib/postgres-host.js";
import { type AppProcess, startApp, stopApp, waitHealthy } from "./lib/processes.js";

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

const services: AppProcess[] = [];
let chainApp: AppProcess | null = null;
let postgresHost: AppProcess | null = null;
let stopping = false;

async function shutdown(code: number): Promise<never> {
  if (stopping) {
    return new Promise<never>(() => {});
  }
  stopping = true;
  console.log("[start] stopping…");
  await Promise.all(services.map((app) => stopApp(app)));
  if (chainApp) {
    await stopApp(chainApp);
  }
  if (postgresHost) {
    await stopApp(postgresHost);
  }
  console.log("[start] stopped");
  process.exit(code);
}

// shutdown() handles SIGINT/SIGTERM/SIGHUP: the apps drain first, then the chain, then PostgreSQL.
handleShutdownSignals(() => void shutdown(0));

/** The bundle of the build target named `name` (made current by ensureBuilt below). */
function built(name: string): string {
  return bundlePath(targetNamed(name), root);
}

function watch(app: AppProcess): void {
  void app.exited.then((code) => {
    if (!stopping) {
      console.error(`[start] ${app.name} exited unexpectedly (${code}); stopping everything`);
      void shutdown(1);
    }
  });
}

try {
  const build = await ensureBuilt({ root });
  if (build.rebuilt.length > 0) {
    const what = build.rebuilt.map(({ target, reason }) => `${target.name} (${reason})`);
    console.log(`[start] built ${what.join(", ")} in ${Math.round(build.ms)} ms`);
  }

  if (!env.DATABASE_URL) {
    postgresHost = startApp("postgres", built("postgres-host"), env, root, {
      args: [dataDir],
      ownGroup: true,
    });
    watch(postgresHost);
    const hosted = await hostedPostgres(postgresHost);
    env.DATABASE_URL = hosted.url;
    console.log(`[start] embedded PostgreSQL in ${dataDir}/postgres on port ${hosted.port}`);
  }

  if (!env.CHAIN_RPC_URL) {
    const port = Number(env.LOCAL_CHAIN_PORT ?? 8899);
    chainApp = startApp("local-chain", built("local-chain"), env, root);
    watch(chainApp);
    const url = `http://127.0.0.1:${port}`;
    await waitHealthy(chainApp, `${url}/healthz`);
    env.CHAIN_RPC_URL = url;
    await fundAuthority(url, env.AUTHORITY_KEYPAIR_PATH);
  }

  const core = startApp("core-api", built("core-api"), env, root);
  const extension = startApp("extension-api", built("extension-api"), env, root);
  const anchor = startApp("anchor-service", built("anchor-service"), env, root);
  services.push(core, extension, anchor);
  watch(core);
  watch(extension);
  watch(anchor);
  const corePort = Number(env.PORT ?? 8787);
  const extensionPort = Number(env.EXTENSION_PORT ?? 8788);
  const anchorPort = Number(env.ANCHOR_PORT ?? 8789);
  await waitHealthy(core, `http://127.0.0.1:${corePort}/healthz`);
  await waitHealthy(extension, `http://127.0.0.1:${extensionPort}/healthz`);
  await waitHealthy(anchor, `http://127.0.0.1:${anchorPort}/healthz`);

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
  await shutdown(1);
}

/**
 * The URL of the embedded PostgreSQL once its host process reports it.
 * @throws Error with the host's reason when it fails or exits first.
 */
async function hostedPostgres(host: AppProcess): Promise<{ url: string; port: number }> {
  const reported = once(host.child, "message").then(([message]) => message as PostgresHostMessage);
  const exited = host.exited.then((code) => {
    throw new Error(`the embedded PostgreSQL host exited (${code}) before it was ready`);
  });
  const message = await Promise.race([reported, exited]);
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
