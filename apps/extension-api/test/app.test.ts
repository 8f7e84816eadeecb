/**
 * The extension API as an app: configuration validated at start (a bad value names its variable
 * and the process exits non-zero), health and readiness, request ids, the error shape for unknown
 * routes, and an OpenAPI document that lists every route.
 * @module
 */
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { ConfigError } from "@verifiable-memory/app-config";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../src/env.js";
import {
  connect,
  EXTENSION_TEST_ENV,
  newWallet,
  startExtensionApp,
  type TestExtensionApp,
} from "./helpers.js";

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
  it("applies the defaults", () => {
    const config = loadConfig({ ...EXTENSION_TEST_ENV, EXTENSION_PUBLIC_URL: undefined });
    expect(config.port).toBe(8788);
    expect(config.tokenTtlSeconds).toBe(2_592_000);
    expect(config.allowedOrigins).toEqual([]);
    expect(config.siws.domain).toBe("localhost:8788");
    expect(config.siws.uri).toBe("http://localhost:8788");
  });

  it("takes the public URL, the origins and the token lifetime", () => {
    const config = loadConfig({
      ...EXTENSION_TEST_ENV,
      EXTENSION_PUBLIC_URL: "https://ext.example.com",
      EXTENSION_ALLOWED_ORIGINS: "https://a.example, https://b.example:8443/",
      EXTENSION_TOKEN_TTL_S: "3600",
    });
    expect(config.siws.domain).toBe("ext.example.com");
    expect(config.siws.uri).toBe("https://ext.example.com");
    expect(config.allowedOrigins).toEqual(["https://a.example", "https://b.example:8443"]);
    expect(config.tokenTtlSeconds).toBe(3600);
  });

  it.each([
    ["MASTER_ENCRYPTION_KEY", { MASTER_ENCRYPTION_KEY: "nope" }],
    ["MASTER_ENCRYPTION_KEY", { MASTER_ENCRYPTION_KEY: undefined }],
    ["SIWS_CHAIN_ID", { SIWS_CHAIN_ID: "moonnet" }],
    ["EXTENSION_PORT", { EXTENSION_PORT: "http" }],
    ["EXTENSION_PUBLIC_URL", { EXTENSION_PUBLIC_URL: "ftp://x" }],
    ["EXTENSION_ALLOWED_ORIGINS", { EXTENSION_ALLOWED_ORIGINS: "https://a.example/path" }],
    ["EXTENSION_TOKEN_TTL_S", { EXTENSION_TOKEN_TTL_S: "0" }],
    ["EXTENSION_TOKEN_TTL_S", { EXTENSION_TOKEN_TTL_S: "1.5" }],
  ])("rejects a bad %s", (variable, override) => {
    expect(variablesOf({ ...EXTENSION_TEST_ENV, ...override })).toContain(variable);
  });

  it("makes the process exit non-zero naming the variable", () => {
    const main = fileURLToPath(new URL("../src/main.ts", import.meta.url));
    const result = spawnSync(process.execPath, ["--import", "tsx", main], {
      env: { PATH: process.env.PATH, ...EXTENSION_TEST_ENV, EXTENSION_TOKEN_TTL_S: "-1" },
      encoding: "utf8",
      timeout: 30_000,
    });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain("EXTENSION_TOKEN_TTL_S");
  });
});

describe("the app", () => {
  let t: TestExtensionApp;
  beforeAll(async () => {
    t = await startExtensionApp();
  });
  afterAll(async () => {
    await t.close();
  });

  it("answers health and readiness with a request id", async () => {
    const live = await fetch(`${t.url}/healthz`);
    expect(live.status).toBe(200);
    expect(live.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    const ready = await fetch(`${t.url}/readyz`, { headers: { "x-request-id": "ready-1" } });
    expect(await ready.json()).toEqual({ status: "ready" });
    expect(ready.headers.get("x-request-id")).toBe("ready-1");
  });

  it("refuses unknown body fields and query parameters, naming them", async () => {
    const body = await fetch(`${t.url}/connect/challenge`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ publicKey: "x", redirectUri: "y", scope: "all" }),
    });
    expect(body.status).toBe(400);
    expect(JSON.stringify(await body.json())).toContain("scope");
    const { token } = await connect(t.url, newWallet());
    const query = await fetch(`${t.url}/me?verbose=1`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(query.status).toBe(400);
    expect(JSON.stringify(await query.json())).toContain("verbose");
  });

  it("answers an unknown route with the error shape", async () => {
    const res = await fetch(`${t.url}/nope`);
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ error: { code: "not_found", message: "no such route" } });
  });

  it("documents every registered route in /openapi.json and serves /docs", async () => {
    const doc = (await (await fetch(`${t.url}/openapi.json`)).json()) as {
      info: { title: string };
      paths: Record<string, Record<string, unknown>>;
    };
    expect(doc.info.title).toContain("extension API");
    const documented = new Set(
      Object.entries(doc.paths).flatMap(([path, ops]) =>
        Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`),
      ),
    );
    const undocumented = new Set([
      "GET /openapi.json",
      "GET /docs",
      "GET /docs/scalar.js",
      "GET /docs/init.js",
      "GET /connect/app.js",
    ]);
    const registered = t.app.routes
      .filter((r) => r.method !== "ALL")
      .map((r) => `${r.method} ${r.path}`)
      .filter((r) => !undocumented.has(r));
    expect(registered).toEqual(
      expect.arrayContaining([
        "POST /connect/challenge",
        "POST /connect/verify",
        "GET /connect",
        "GET /me",
        "POST /memories",
        "POST /memories/search",
        "POST /auth/logout",
      ]),
    );
    for (const route of registered) {
      expect(documented, route).toContain(route);
    }
    const docs = await fetch(`${t.url}/docs`);
    expect(docs.status).toBe(200);
    expect(await docs.text()).toContain("openapi.json");
  });
});
