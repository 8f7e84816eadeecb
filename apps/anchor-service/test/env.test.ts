/**
 * Configuration (docs/protocol.md §10 "Configuration"; docs/protocol.md §10): defaults, every
 * offending variable named, and main.ts exiting 1 before touching anything.
 */
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { ConfigError } from "@verifiable-memory/app-config";
import { generateCosigner, generateSigner } from "@verifiable-memory/signed-note";
import { describe, expect, it } from "vitest";
import { parseEnv } from "../src/env.js";

const valid = {
  CHAIN_RPC_URL: "http://127.0.0.1:8899",
  SERVICE_PROGRAM_ID: "J51ibhpr3HHMXSvELsAC5jeB6R9ik3KR4fCYTEZdGYvz",
  AUTHORITY_KEYPAIR_PATH: "/tmp/authority.json",
};

function issues(source: Record<string, string | undefined>): Record<string, string> {
  try {
    parseEnv(source);
  } catch (error) {
    if (error instanceof ConfigError) {
      return Object.fromEntries(error.issues.map((i) => [i.variable, i.message]));
    }
    throw error;
  }
  return {};
}

describe("parseEnv", () => {
  it("applies the documented defaults", () => {
    expect(parseEnv(valid)).toEqual({
      ...valid,
      DATA_DIR: "./.data",
      ANCHOR_PORT: 8789,
      ANCHOR_INTERVAL_MS: 30_000,
      SEAL_MAX_PENDING: 256,
      SEAL_MAX_AGE_MS: 300_000,
      ANCHOR_MAX_IN_FLIGHT: 8,
      USER_ANCHOR_INTERVAL_MS: 3_600_000,
      MAINTENANCE_INTERVAL_MS: 60_000,
      UNKNOWN_GRANT_AUDIT_RETENTION_MS: 604_800_000,
      WITNESS_URLS: [],
      WITNESS_POLICY: 0,
      LOG_LEVEL: "info",
    });
  });

  it("reads WITNESS_URLS as <witness vkey>@<url> and keeps WITNESS_POLICY within them", () => {
    const w1 = generateCosigner("witness.example/w1");
    const w2 = generateCosigner("witness.example/w2");
    const env = parseEnv({
      ...valid,
      WITNESS_URLS: `${w1.vkey}@https://w1.example/sub/, ${w2.vkey}@http://127.0.0.1:8790`,
      WITNESS_POLICY: "2",
    });
    expect(env.WITNESS_URLS.map((w) => [w.verifier.vkey, w.url])).toEqual([
      [w1.vkey, "https://w1.example/sub"],
      [w2.vkey, "http://127.0.0.1:8790"],
    ]);
    expect(env.WITNESS_POLICY).toBe(2);
    expect(
      issues({ ...valid, WITNESS_URLS: `${w1.vkey}@https://w1.example`, WITNESS_POLICY: "2" }),
    ).toEqual({
      WITNESS_POLICY: "is 2, above the 1 witness(es) of WITNESS_URLS",
    });
    expect(issues({ ...valid, WITNESS_URLS: "https://w1.example" }).WITNESS_URLS).toMatch(
      /entry 1/,
    );
    const logKey = generateSigner("log.example/tlog").vkey;
    expect(issues({ ...valid, WITNESS_URLS: `${logKey}@https://w1.example` }).WITNESS_URLS).toMatch(
      /entry 1: .*0x04/,
    );
    expect(issues({ ...valid, WITNESS_URLS: `${w1.vkey}@ftp://w1.example` }).WITNESS_URLS).toMatch(
      /entry 1/,
    );
  });

  it("treats an empty value as unset", () => {
    expect(parseEnv({ ...valid, DATABASE_URL: "", SEAL_MAX_PENDING: "" }).SEAL_MAX_PENDING).toBe(
      256,
    );
  });

  it("names every missing required variable", () => {
    expect(issues({})).toEqual({
      AUTHORITY_KEYPAIR_PATH: "is required",
      CHAIN_RPC_URL: "is required",
      SERVICE_PROGRAM_ID: "is required",
    });
  });

  it.each([
    ["DATABASE_URL", "mysql://x"],
    ["CHAIN_RPC_URL", "ftp://x"],
    ["CHAIN_RPC_URL", "not a url"],
    ["SERVICE_PROGRAM_ID", "0OIl"],
    ["ANCHOR_PORT", "70000"],
    ["ANCHOR_INTERVAL_MS", "10"],
    ["ANCHOR_INTERVAL_MS", "1e3"],
    ["SEAL_MAX_PENDING", "0"],
    ["SEAL_MAX_AGE_MS", "-5"],
    ["ANCHOR_MAX_IN_FLIGHT", "3.5"],
    ["USER_ANCHOR_INTERVAL_MS", "604800001"],
    ["LOG_LEVEL", "loud"],
  ])("rejects %s=%s naming it", (variable, value) => {
    expect(Object.keys(issues({ ...valid, [variable]: value }))).toEqual([variable]);
  });
});

describe("main.ts", () => {
  const main = fileURLToPath(new URL("../src/main.ts", import.meta.url));
  const start = (env: Record<string, string>) =>
    spawnSync(process.execPath, ["--import", "tsx", main], {
      env: { PATH: process.env.PATH, ...env },
      encoding: "utf8",
      timeout: 30_000,
    });

  it("exits 1 naming the malformed variable, before opening any connection", () => {
    const run = start({ ...valid, SEAL_MAX_PENDING: "many" });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain("SEAL_MAX_PENDING");
  });

  it("exits 1 naming AUTHORITY_KEYPAIR_PATH when the keypair file is unreadable", () => {
    const run = start({ ...valid, AUTHORITY_KEYPAIR_PATH: "/nonexistent/authority.json" });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain("AUTHORITY_KEYPAIR_PATH");
  });
});
