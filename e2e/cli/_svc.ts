/**
 * Running `svc` as a user runs it, for the CLI's tests: the bin (bin/svc.js) in a child process
 * with the user's own HOME and XDG_CONFIG_HOME, its output collected, `--json` answers parsed.
 * @module
 */
import { spawn } from "node:child_process";
import { mkdir, mkdtemp, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Keypair } from "@solana/web3.js";
import { expect } from "vitest";

/** The `svc` bin. */
export const BIN = join(
  dirname(fileURLToPath(import.meta.url)),
  "..",
  "..",
  "packages",
  "cli",
  "bin",
  "svc.js",
);

/** A user of the CLI: a home directory, a config directory and a Solana CLI keypair file. */
export interface CliUser {
  readonly home: string;
  readonly config: string;
  readonly keypair: Keypair;
  readonly keypairPath: string;
}

/**
 * A fresh user under `scratch`, its keypair written where the Solana CLI keeps it
 * (~/.config/solana/id.json).
 */
export async function newCliUser(scratch: string): Promise<CliUser> {
  const home = await mkdtemp(join(scratch, "home-"));
  const keypair = Keypair.generate();
  const keypairPath = join(home, ".config", "solana", "id.json");
  await mkdir(dirname(keypairPath), { recursive: true });
  await writeFile(keypairPath, JSON.stringify(Array.from(keypair.secretKey)));
  return { home, config: join(home, "xdg"), keypair, keypairPath };
}

/** The outcome of one `svc` run. */
export interface Run {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** What a run takes besides its arguments: more environment, and stdin's contents. */
export interface RunOptions {
  readonly env?: Record<string, string>;
  readonly stdin?: string;
}

/** Runs `svc args…` as `user` (its HOME and XDG_CONFIG_HOME; SVC_URL = `apiUrl`). */
export function runSvc(
  apiUrl: string,
  user: CliUser,
  args: readonly string[],
  options: RunOptions = {},
): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      env: {
        PATH: process.env.PATH ?? "",
        HOME: user.home,
        XDG_CONFIG_HOME: user.config,
        SVC_URL: apiUrl,
        ...options.env,
      },
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
    });
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(options.stdin ?? "");
  });
}

/** Runs `svc … --json`, expects exit 0 and returns the parsed stdout. */
export async function runSvcJson<T = Record<string, unknown>>(
  apiUrl: string,
  user: CliUser,
  args: readonly string[],
  options: RunOptions = {},
): Promise<T> {
  const run = await runSvc(apiUrl, user, [...args, "--json"], options);
  expect(run.code, `svc ${args.join(" ")}: ${run.stderr}`).toBe(0);
  return JSON.parse(run.stdout) as T;
}

/** The `{ error }` object a failed `--json` run prints on stderr. */
export function jsonError(run: Run): { code: string; message: string; status?: number } {
  const parsed = JSON.parse(run.stderr.trim()) as {
    error: { code: string; message: string; status?: number };
  };
  return parsed.error;
}
