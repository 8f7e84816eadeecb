/**
 * CORS of the extension API (docs/protocol.md §9): chrome-extension origins and the allowlist get
 * CORS headers, preflights included, never with credentials; every other origin gets none.
 * @module
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EXTENSION_ORIGIN, startExtensionApp, type TestExtensionApp } from "./helpers.js";

let t: TestExtensionApp;

beforeAll(async () => {
  t = await startExtensionApp({ env: { EXTENSION_ALLOWED_ORIGINS: "https://app.example.com" } });
});
afterAll(async () => {
  await t.close();
});

function preflight(origin: string) {
  return fetch(`${t.url}/memories/search`, {
    method: "OPTIONS",
    headers: {
      origin,
      "access-control-request-method": "POST",
      "access-control-request-headers": "authorization,content-type",
    },
  });
}

describe("CORS", () => {
  it.each([EXTENSION_ORIGIN, "https://app.example.com"])(
    "allows %s, preflight included",
    async (origin) => {
      const pre = await preflight(origin);
      expect(pre.status).toBe(204);
      expect(pre.headers.get("access-control-allow-origin")).toBe(origin);
      expect(pre.headers.get("access-control-allow-methods")).toContain("POST");
      expect(pre.headers.get("access-control-allow-headers")?.toLowerCase()).toContain(
        "authorization",
      );
      expect(pre.headers.get("access-control-allow-credentials")).toBeNull();

      const res = await fetch(`${t.url}/me`, { headers: { origin } });
      expect(res.status).toBe(401);
      expect(res.headers.get("access-control-allow-origin")).toBe(origin);
      expect(res.headers.get("access-control-expose-headers")?.toLowerCase()).toContain(
        "x-request-id",
      );
      expect(res.headers.get("access-control-allow-credentials")).toBeNull();
    },
  );

  it.each([
    "https://evil.example",
    "https://app.example.com.evil.example",
    "http://app.example.com",
    "chrome-extension://abcdefghijklmnopabcdefghijklmnoz",
    "moz-extension://abcdefghijklmnopabcdefghijklmnop",
    "null",
  ])("gives %s no CORS headers", async (origin) => {
    const pre = await preflight(origin);
    expect(pre.headers.get("access-control-allow-origin")).toBeNull();
    expect(pre.headers.get("access-control-allow-methods")).toBeNull();
    const res = await fetch(`${t.url}/me`, { headers: { origin } });
    expect(res.headers.get("access-control-allow-origin")).toBeNull();
    expect(res.headers.get("vary")).toContain("Origin");
  });
});
