/**
 * `pnpm svc` (scripts/svc.mjs) agrees with `pnpm start` on the ports the settings file records:
 * the API at `http://localhost:$PORT` and the chain at `http://127.0.0.1:$LOCAL_CHAIN_PORT` (or
 * `CHAIN_RPC_URL`), unless the environment says otherwise. Read back from `svc verify --bundle
 * --json`, which reports both URLs without contacting either for a malformed bundle.
 */
import { spawnSync } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../..", import.meta.url));
let dir: string;
let bundle: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "svc-settings-"));
  bundle = join(dir, "bundle.json");
  await writeFile(bundle, '{"memoryId": "m"}');
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** The URLs `pnpm svc` uses with the settings file `settings` and the extra environment `env`. */
async function urlsWith(settings: string, env: Record<string, string> = {}) {
  const envFile = join(dir, `${Math.random().toString(36).slice(2)}.env`);
  await writeFile(envFile, settings);
  const run = spawnSync("pnpm", ["-s", "svc", "verify", "--bundle", bundle, "--json"], {
    cwd: root,
    encoding: "utf8",
    timeout: 60_000,
    env: {
      PATH: process.env.PATH ?? "",
      HOME: dir,
      XDG_CONFIG_HOME: dir,
      ENV_FILE: envFile,
      ...env,
    },
  });
  expect(run.status, run.stderr).toBe(1);
  return JSON.parse(run.stdout) as { apiUrl: string; rpcUrl: string };
}

describe("pnpm svc", () => {
  it("uses the ports the first pnpm start recorded", async () => {
    expect(await urlsWith("PORT=38787\nLOCAL_CHAIN_PORT=38899\n")).toMatchObject({
      apiUrl: "http://localhost:38787",
      rpcUrl: "http://127.0.0.1:38899",
    });
  });

  it("prefers CHAIN_RPC_URL, and lets the environment override the file", async () => {
    expect(
      await urlsWith("PORT=38787\nCHAIN_RPC_URL=http://chain.test:1234\nLOCAL_CHAIN_PORT=1\n", {
        SVC_URL: "http://api.test:9",
      }),
    ).toMatchObject({ apiUrl: "http://api.test:9", rpcUrl: "http://chain.test:1234" });
    expect(await urlsWith("PORT=38787\n", { PORT: "48787" })).toMatchObject({
      apiUrl: "http://localhost:48787",
      rpcUrl: "http://127.0.0.1:8899",
    });
  });
});
