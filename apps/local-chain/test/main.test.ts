/**
 * The process entry (src/main.ts) as `pnpm start` runs it: a malformed variable stops it with
 * exit 1 naming the variable; a good configuration serves /healthz and /readyz, logs pino JSON
 * lines (one per JSON-RPC call at LOG_LEVEL=debug, with the request id), and SIGTERM stops it
 * with exit 0 after the ledger is flushed, also when it arrives during start-up (the handler is
 * in place before the chain starts). Also the env schema's defaults.
 * Source: docs/protocol.md §10 ("a missing or malformed value stops the process").
 * @module
 */

import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { ConfigError } from "@verifiable-memory/app-config";
import { LOCAL_PROGRAM_ID } from "@verifiable-memory/commitment-program";
import { afterAll, describe, expect, it } from "vitest";
import { parseEnv } from "../src/env.js";

const here = dirname(fileURLToPath(import.meta.url));
const main = resolve(here, "../src/main.ts");
const dirs: string[] = [];

afterAll(() => {
  for (const dir of dirs) {
    rmSync(dir, { recursive: true, force: true });
  }
});

/**
 * Runs main.ts in plain node with tsx's loader: no tsx CLI in between, whose signal relay
 * SIGKILLs a child that does not acknowledge a signal within 30 ms (the chain's start-up keeps
 * the event loop busy for longer), which is not how `pnpm start` runs the bundle.
 */
function run(env: Record<string, string>): { child: ChildProcess; output: () => string } {
  let output = "";
  const child = spawn(process.execPath, ["--import", "tsx", main], {
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

/** Every output line parsed as JSON (fails the test on a line that is not). */
function jsonLines(text: string): Record<string, unknown>[] {
  return text
    .split("\n")
    .filter((line) => line.trim().length > 0)
    .map((line) => {
      try {
        return JSON.parse(line) as Record<string, unknown>;
      } catch {
        throw new Error(`not a JSON log line: ${line}`);
      }
    });
}

function exitCode(child: ChildProcess): Promise<number | null> {
  return new Promise((done) => child.once("exit", (code) => done(code)));
}

describe("environment", () => {
  it("applies the defaults of docs/protocol.md §10", () => {
    expect(parseEnv({})).toEqual({
      LOCAL_CHAIN_PORT: 8899,
      LOCAL_CHAIN_HOST: "127.0.0.1",
      DATA_DIR: "./.data",
      SERVICE_PROGRAM_ID: LOCAL_PROGRAM_ID,
      STAKE_LOCK_SECONDS: 604_800,
      LOG_LEVEL: "info",
    });
  });

  it("names every malformed variable", () => {
    let error: unknown;
    try {
      parseEnv({
        LOCAL_CHAIN_PORT: "88a",
        SERVICE_PROGRAM_ID: "not-a-key",
        STAKE_LOCK_SECONDS: "0",
      });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).issues.map((i) => i.variable).sort()).toEqual([
      "LOCAL_CHAIN_PORT",
      "SERVICE_PROGRAM_ID",
      "STAKE_LOCK_SECONDS",
    ]);
  });
});

describe("src/main.ts", () => {
  it("exits 1 naming the variable when the configuration is malformed", async () => {
    const { child, output } = run({ LOCAL_CHAIN_PORT: "99999" });
    expect(await exitCode(child)).toBe(1);
    expect(output()).toContain("LOCAL_CHAIN_PORT");
    const [line] = jsonLines(output());
    expect(line).toMatchObject({ level: 60, service: "local-chain" });
  });

  it("serves /healthz and /readyz, logs JSON lines, and stops cleanly on SIGTERM", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "local-chain-main-"));
    dirs.push(dataDir);
    const { child, output } = run({ LOCAL_CHAIN_PORT: "0", DATA_DIR: dataDir, LOG_LEVEL: "debug" });
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
    const ready = await fetch(`${url}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: "ready" });
    const slot = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", "x-request-id": "main-test-1" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "getSlot" }),
    });
    expect(slot.headers.get("x-request-id")).toBe("main-test-1");
    child.kill("SIGTERM");
    expect(await exited).toBe(0);
    const lines = jsonLines(output());
    expect(lines.every((line) => line.service === "local-chain")).toBe(true);
    expect(
      lines.find((line) => String(line.msg).startsWith("local chain listening")),
    ).toMatchObject({ level: 30, url });
    expect(lines.find((line) => line.msg === "rpc")).toMatchObject({
      level: 20,
      requestId: "main-test-1",
      method: "getSlot",
    });
    expect(lines.slice(-2)).toMatchObject([
      { level: 30, msg: "ledger flushed" },
      { level: 30, msg: "local-chain stopped" },
    ]);
    expect(existsSync(join(dataDir, "chain", "genesis.json"))).toBe(true);
  });

  it("stops with exit 0 once started when SIGTERM arrives during start-up", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "local-chain-main-"));
    dirs.push(dataDir);
    const { child, output } = run({ LOCAL_CHAIN_PORT: "0", DATA_DIR: dataDir });
    const exited = exitCode(child);
    await new Promise<void>((done, fail) => {
      const timer = setInterval(() => {
        if (output().includes("local chain starting")) {
          clearInterval(timer);
          done();
        }
      }, 20);
      void exited.then((code) => {
        clearInterval(timer);
        fail(new Error(`exited early (${code}): ${output()}`));
      });
    });
    child.kill("SIGTERM");
    expect(await exited, output()).toBe(0);
    const messages = jsonLines(output()).map((line) => String(line.msg));
    expect(messages.some((msg) => msg.startsWith("local chain listening"))).toBe(true);
    expect(messages.slice(-2)).toEqual(["ledger flushed", "local-chain stopped"]);
  });
});
