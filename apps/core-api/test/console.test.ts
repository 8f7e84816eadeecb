/**
 * `/console` (apps/core-api/src/console/serve-console.ts) over real HTTP, on a small build made
 * here: every `/console` path that is not a file answers the page with the
 * Content-Security-Policy naming CONSOLE_CHAIN_RPC_URL's origin and absolute asset paths; files
 * come with their type, caching and gzip; `config.json` names the API and the chain RPC; without a
 * build the answer is 404 in the error shape, and a build made later is found.
 * The console's own build runs in Chromium in apps/console/test.
 */
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { absolutePage, consolePolicy } from "../src/console/serve-console.js";
import { startTestApp, type TestApp } from "./helpers.js";

const PAGE = `<!doctype html>
<html lang="en"><head>
<link rel="icon" href="./favicon.svg" type="image/svg+xml" />
<script type="module" crossorigin src="./assets/index-abc.js"></script>
<link rel="stylesheet" crossorigin href="./assets/index-abc.css">
</head><body><div id="root"></div></body></html>`;

let dir: string;
let t: TestApp;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "console-build-"));
  t = await startTestApp({
    env: {
      CONSOLE_DIR: dir,
      CONSOLE_CHAIN_RPC_URL: "https://rpc.example.com:8443/key-123",
      SIWS_CHAIN_ID: "devnet",
    },
  });
});
afterAll(async () => {
  await t?.close();
  await rm(dir, { recursive: true, force: true });
});

describe("/console", () => {
  it("answers 404 in the error shape while the console is not built, then serves a build made later", async () => {
    const missing = await fetch(`${t.url}/console/`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({
      error: { code: "not_found", message: expect.stringContaining("pnpm build") },
    });
    await mkdir(join(dir, "assets"));
    await writeFile(join(dir, "index.html"), PAGE);
    await writeFile(
      join(dir, "assets/index-abc.js"),
      `console.log(${JSON.stringify("x".repeat(4000))});`,
    );
    await writeFile(join(dir, "assets/index-abc.css"), "body{color:red}");
    await writeFile(join(dir, "favicon.svg"), "<svg/>");
    expect((await fetch(`${t.url}/console/`)).status).toBe(200);
  });

  it("serves the page on every other /console path, whatever the query, with the CSP and absolute asset paths", async () => {
    const policy =
      "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
      "connect-src 'self' https://rpc.example.com:8443; frame-ancestors 'none'";
    for (const path of [
      "/console",
      "/console/",
      "/console/memories/x/proof?a=1&b",
      "/console/?api=y#z",
    ]) {
      const res = await fetch(`${t.url}${path}`);
      expect([path, res.status]).toEqual([path, 200]);
      expect(res.headers.get("content-security-policy")).toBe(policy);
      expect(res.headers.get("content-type")).toBe("text/html; charset=utf-8");
      const html = await res.text();
      expect(html).toContain(
        '<script type="module" crossorigin src="/console/assets/index-abc.js">',
      );
      expect(html).toContain('href="/console/assets/index-abc.css"');
      expect(html).toContain('href="/console/favicon.svg"');
    }
    expect((await fetch(`${t.url}/consoles`)).status).toBe(404);
  });

  it("serves the build's files with their type, caching and gzip; config.json names the API and the chain RPC", async () => {
    const script = await fetch(`${t.url}/console/assets/index-abc.js`, {
      headers: { "accept-encoding": "gzip" },
    });
    expect(script.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    expect(script.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    expect(script.headers.get("content-security-policy")).toBeNull();
    expect((await script.text()).startsWith("console.log(")).toBe(true);
    const etag = script.headers.get("etag") as string;
    const again = await fetch(`${t.url}/console/assets/index-abc.js`, {
      headers: { "if-none-match": etag },
    });
    expect(again.status).toBe(304);
    const icon = await fetch(`${t.url}/console/favicon.svg`);
    expect([icon.headers.get("content-type"), icon.headers.get("cache-control")]).toEqual([
      "image/svg+xml",
      "no-cache",
    ]);
    const config = await fetch(`${t.url}/console/config.json`);
    expect(await config.json()).toEqual({
      apiUrl: "../",
      chainRpcUrl: "https://rpc.example.com:8443/key-123",
    });
  });

  it("builds the policy from the RPC's origin and rewrites only relative asset paths", () => {
    expect(consolePolicy("http://127.0.0.1:8899")).toContain(
      "connect-src 'self' http://127.0.0.1:8899;",
    );
    expect(
      absolutePage('<a href="./x">x</a><img src="https://cdn/x"><a href="#/y">', "/p/console/"),
    ).toBe('<a href="/p/console/x">x</a><img src="https://cdn/x"><a href="#/y">');
  });

  it("defaults the console's chain RPC to the cluster's public endpoint, and to the chain RPC on localnet", async () => {
    const { loadConfig } = await import("../src/env.js");
    const base = { ...t.deps.config };
    expect(base.consoleChainRpcUrl).toBe("https://rpc.example.com:8443/key-123");
    const env = {
      JWT_SECRET: "x".repeat(40),
      MASTER_ENCRYPTION_KEY: Buffer.alloc(32, 1).toString("base64"),
      SIWS_DOMAIN: "localhost:8787",
      SIWS_URI: "http://localhost:8787",
      SERVICE_NAME: "Verifiable Memory",
      PUBLIC_BASE_URL: "http://localhost:8787",
    };
    expect(loadConfig({ ...env, SIWS_CHAIN_ID: "devnet" }).consoleChainRpcUrl).toBe(
      "https://api.devnet.solana.com",
    );
    expect(loadConfig({ ...env, SIWS_CHAIN_ID: "mainnet" }).consoleChainRpcUrl).toBe(
      "https://api.mainnet-beta.solana.com",
    );
    expect(
      loadConfig({ ...env, SIWS_CHAIN_ID: "localnet", LOCAL_CHAIN_PORT: "9001" })
        .consoleChainRpcUrl,
    ).toBe("http://127.0.0.1:9001");
    expect(
      loadConfig({ ...env, SIWS_CHAIN_ID: "localnet", CHAIN_RPC_URL: "http://chain:8899" })
        .consoleChainRpcUrl,
    ).toBe("http://chain:8899");
    expect(() =>
      loadConfig({ ...env, SIWS_CHAIN_ID: "devnet", CONSOLE_CHAIN_RPC_URL: "ftp://x" }),
    ).toThrow(/CONSOLE_CHAIN_RPC_URL/);
  });
});

describe("gzip", () => {
  it("sends the gzip form of large text files to clients that accept it", async () => {
    const res = await fetch(`${t.url}/console/assets/index-abc.js`, {
      headers: { "accept-encoding": "gzip" },
    });
    // fetch decodes transparently; read the raw encoding from the header.
    expect(res.headers.get("content-encoding")).toBe("gzip");
    expect(res.headers.get("vary")).toContain("Accept-Encoding");
  });
});
