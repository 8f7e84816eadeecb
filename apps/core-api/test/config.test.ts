/**
 * Config validation at start (docs/protocol.md §10 "Configuration"):
 * loadConfig names each bad variable, and the process exits non-zero naming it.
 */
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../src/env.js";
import { TEST_ENV } from "./helpers.js";

function variablesOf(env: Record<string, string | undefined>): readonly string[] {
  try {
    loadConfig(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).variables;
  }
  return [];
}

describe("loadConfig", () => {
  it("accepts the test environment with defaults", () => {
    const config = loadConfig(TEST_ENV);
    expect(config.port).toBe(8787);
    expect(config.masterKeys.current.key.length).toBe(32);
    expect(config.masterKeys.ids).toEqual([config.masterKeys.current.id]);
    expect(config.corsOrigins).toBeNull();
  });

  it.each([
    ["JWT_SECRET", { JWT_SECRET: "x".repeat(31) }],
    ["MASTER_ENCRYPTION_KEY", { MASTER_ENCRYPTION_KEY: Buffer.alloc(31).toString("base64") }],
    ["MASTER_ENCRYPTION_KEY", { MASTER_ENCRYPTION_KEY: "nope" }],
    ["SIWS_DOMAIN", { SIWS_DOMAIN: undefined }],
    ["SIWS_CHAIN_ID", { SIWS_CHAIN_ID: "moonnet" }],
    ["SIWS_URI", { SIWS_URI: "not a url" }],
    ["PORT", { PORT: "http" }],
  ])("rejects a bad %s", (variable, override) => {
    expect(variablesOf({ ...TEST_ENV, ...override })).toContain(variable);
  });

  it("names every bad variable at once", () => {
    expect(variablesOf({})).toEqual(
      expect.arrayContaining([
        "JWT_SECRET",
        "MASTER_ENCRYPTION_KEY",
        "SIWS_DOMAIN",
        "SIWS_URI",
        "SIWS_CHAIN_ID",
        "SERVICE_NAME",
        "PUBLIC_BASE_URL",
      ]),
    );
  });

  it("makes the process exit non-zero naming the variable", () => {
    const main = fileURLToPath(new URL("../src/main.ts", import.meta.url));
    const result = spawnSync(process.execPath, ["--import", "tsx", main], {
      env: { PATH: process.env.PATH, ...TEST_ENV, JWT_SECRET: "short" },
      encoding: "utf8",
      timeout: 30_000,
    });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain("JWT_SECRET");
  });
});
