/**
 * The process entry (src/main.ts) as `pnpm start` runs it: a malformed variable stops it with
 * exit 1 naming the variable; a good configuration serves /healthz, and SIGTERM stops it with
 * exit 0 after the ledger is flushed. Also the env schema's defaults.
 * Source: CONTRACT.md §9 ("a missing or malformed value stops the process").
 * @module
 */

import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { LOCAL_PROGRAM_ID } from "@svc/commitment-program";
import { afterAll, describe, expect, it } from "vitest";
import { InvalidEnvError, parseEnv } from "../src/index.js";
import { removeDir, tempDir } from "./helpers.js";

const here = dirname(fileURLToPath(import.meta.url));
const tsx = resolve(here, "../../../node_modules/.bin/tsx");
const main = resolve(here, "../src/main.ts");
const dirs: string[] = [];

afterAll(() => {
  for (const dir of dirs) {
    removeDir(dir);
  }
});

function run(env: Record<string, string>): { child: ChildProcess; output: () => string } {
  let output = "";
  const child = spawn(tsx, [main], {
    env: { PATH: process.env.PATH ?? "", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout?.on("data", (d) => {
    output += String(d);
  });
  child.stderr?.on("data", (d) => {
    output += String(d);
  });
  return { child, output: () => output };
}

function exitCode(child: ChildProcess): Promise<number | null> {
  return new Promise((done) => child.once("exit", (code) => done(code)));
}

describe("environment", () => {
  it("applies the defaults of CONTRACT §9", () => {
    expect(parseEnv({})).toEqual({
      LOCAL_CHAIN_PORT: 8899,
      LOCAL_CHAIN_HOST: "127.0.0.1",
      DATA_DIR: "./.data",
      SERVICE_PROGRAM_ID: LOCAL_PROGRAM_ID,
    });
  });

  it("names every malformed variable", () => {
    let error: unknown;
    try {
      parseEnv({ LOCAL_CHAIN_PORT: "88a", SERVICE_PROGRAM_ID: "not-a-key" });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(InvalidEnvError);
    expect((error as InvalidEnvError).issues.map((i) => i.variable).sort()).toEqual([
      "LOCAL_CHAIN_PORT",
      "SERVICE_PROGRAM_ID",
    ]);
  });
});

describe("src/main.ts", () => {
  it("exits 1 naming the variable when the configuration is malformed", async () => {
    const { child, output } = run({ LOCAL_CHAIN_PORT: "99999" });
    expect(await exitCode(child)).toBe(1);
    expect(output()).toContain("LOCAL_CHAIN_PORT");
  });

  it("serves /healthz and stops cleanly with exit 0 on SIGTERM", async () => {
    const dataDir = tempDir();
    dirs.push(dataDir);
    const { child, output } = run({ LOCAL_CHAIN_PORT: "0", DATA_DIR: dataDir });
    const exited = exitCode(child);
    const url = await new Promise<string>((done, fail) => {
      const timer = setInterval(() => {
        const match = /JSON-RPC (http:\/\/\S+)/.exec(output());
        if (match?.[1]) {
          clearInterval(timer);
          done(match[1]);
        }
      }, 50);
      void exited.then((code) => {
        clearInterval(timer);
        fail(new Error(`exited early (${code}): ${output()}`));
      });
    });
    const health = await fetch(`${url}/healthz`);
    expect(health.status).toBe(200);
    child.kill("SIGTERM");
    expect(await exited).toBe(0);
    expect(output()).toContain("ledger flushed");
    expect(existsSync(join(dataDir, "chain", "genesis.json"))).toBe(true);
  });
});
