/**
 * `pnpm svc`: the `svc` CLI (packages/cli) pointed at the deployment this checkout's settings file
 * describes, so that it agrees with `pnpm start` and `pnpm demo` on custom ports. From `ENV_FILE`
 * (default `./.env`, the file the first `pnpm start` writes with the ports it was started with):
 * `SVC_URL` defaults to `http://localhost:$PORT` and `SVC_RPC_URL` to `CHAIN_RPC_URL`, else
 * `http://127.0.0.1:$LOCAL_CHAIN_PORT`. Variables already set in the environment win, and so do
 * `--url` and `--rpc`; without a settings file the CLI's own defaults apply. Plain JavaScript, so
 * that it adds no compile step to every command. For another deployment, run the published CLI:
 * `npx -y @verifiable-memory/cli …`.
 */
import { existsSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseEnv } from "node:util";

const root = fileURLToPath(new URL("..", import.meta.url));
const envFile = resolve(root, process.env.ENV_FILE || ".env");
if (existsSync(envFile)) {
  const settings = { ...parseEnv(readFileSync(envFile, "utf8")), ...process.env };
  if (!process.env.SVC_URL && settings.PORT) {
    process.env.SVC_URL = `http://localhost:${settings.PORT}`;
  }
  if (!process.env.SVC_RPC_URL && (settings.CHAIN_RPC_URL || settings.LOCAL_CHAIN_PORT)) {
    process.env.SVC_RPC_URL =
      settings.CHAIN_RPC_URL || `http://127.0.0.1:${settings.LOCAL_CHAIN_PORT}`;
  }
}
await import("../packages/cli/bin/svc.js");
