/**
 * Cross-cutting HTTP behaviour (docs/protocol.md §1): error shape, x-request-id, 404/413/415, malformed
 * JSON, CORS, health, and the OpenAPI document covering every route.
 */
import { request } from "node:http";
import { connect } from "node:net";
import { createDatabase } from "@verifiable-memory/db-schema";
import { createTestDatabase } from "@verifiable-memory/db-schema/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../src/app.js";
import { startTestApp, type TestApp } from "./helpers.js";

let t: TestApp;
let restricted: TestApp;
beforeAll(async () => {
  t = await startTestApp();
  restricted = await startTestApp({ env: { CORS_ORIGINS: "https://app.example" } });
});
afterAll(async () => {
  await t.close();
  await restricted.close();
});

/**
 * POST on a connection of its own (the server may close it after refusing a large body): one
 * string is sent with its Content-Length; a list of chunks is sent chunked (no Content-Length).
 */
function postOnOwnConnection(
  url: string,
  body: string | readonly string[],
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method: "POST", agent: false, headers: { "content-type": "application/json" } },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => {
          text += chunk;
        });
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.on("error", reject);
    if (typeof body === "string") {
      req.end(body);
      return;
    }
    for (const chunk of body) {
      req.write(chunk);
    }
    req.end();
  });
}

describe("HTTP conventions", () => {
  it("answers unknown routes with the error shape and a request id", async () => {
    const res = await fetch(`${t.url}/nope`);
    expect(res.status).toBe(404);
    expect(res.headers.get("x-request-id")).toMatch(/.+/);
    expect(await res.json()).toEqual({ error: { code: "not_found", message: "no such route" } });
  });

  it("keeps a sane incoming x-request-id and replaces an unsafe one", async () => {
    const kept = await fetch(`${t.url}/healthz`, { headers: { "x-request-id": "abc-123" } });
    expect(kept.headers.get("x-request-id")).toBe("abc-123");
    const replaced = await fetch(`${t.url}/healthz`, {
      headers: { "x-request-id": "a b<script>" },
    });
    expect(replaced.headers.get("x-request-id")).not.toBe("a b<script>");
  });

  it("maps malformed JSON to 400, a non-JSON body to 415 and a 300 KiB body to 413", async () => {
    const malformed = await fetch(`${t.url}/auth/challenge`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{not json",
    });
    expect(malformed.status).toBe(400);
    expect(((await malformed.json()) as { error: { code: string } }).error.code).toBe(
      "invalid_request",
    );
    const text = await fetch(`${t.url}/auth/challenge`, {
      method: "POST",
      headers: { "content-type": "text/plain" },
      body: "hi",
    });
    expect(text.status).toBe(415);
    expect(((await text.json()) as { error: { code: string } }).error.code).toBe(
      "unsupported_media_type",
    );
    const big = await postOnOwnConnection(
      `${t.url}/auth/challenge`,
      JSON.stringify({ publicKey: "x".repeat(300 * 1024) }),
    );
    expect(big.status).toBe(413);
    expect((JSON.parse(big.body) as { error: { code: string } }).error.code).toBe(
      "payload_too_large",
    );
  });

  it("reads bodies from the Node request: chunked within and past the limit, a BOM, a client gone mid-body", async () => {
    const chunked = (chunks: readonly string[]) =>
      postOnOwnConnection(`${t.url}/auth/challenge`, chunks);
    const publicKey = "11111111111111111111111111111111";
    const body = JSON.stringify({ publicKey });
    const small = await chunked([body.slice(0, 5), body.slice(5)]);
    expect(small.status).toBe(200);
    const big = await chunked(Array.from({ length: 40 }, () => " ".repeat(8 * 1024)));
    expect(big.status).toBe(413);
    expect((JSON.parse(big.body) as { error: { code: string } }).error.code).toBe(
      "payload_too_large",
    );
    const bom = await fetch(`${t.url}/auth/challenge`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: `\uFEFF${body}`,
    });
    expect(bom.status).toBe(200);
    // A client that announces 1 000 bytes, sends 10 and goes away: the server carries on.
    await new Promise<void>((resolve) => {
      const socket = connect(Number(new URL(t.url).port), "127.0.0.1", () => {
        socket.write(
          "POST /auth/challenge HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n" +
            'Content-Length: 1000\r\n\r\n{"publicKe',
        );
        setTimeout(() => socket.destroy(), 50);
      });
      socket.on("close", () => resolve());
    });
    expect((await fetch(`${t.url}/healthz`)).status).toBe(200);
  });

  it("gives a request without Origin no CORS headers but Vary: Origin", async () => {
    const res = await fetch(`${t.url}/healthz`);
    expect(res.headers.get("vary")).toBe("Origin");
    expect([...res.headers.keys()].filter((k) => k.startsWith("access-control-"))).toEqual([]);
    const browser = await fetch(`${t.url}/healthz`, { headers: { origin: "https://a.example" } });
    expect(browser.headers.get("vary")).toBe("Origin");
    expect(browser.headers.get("access-control-expose-headers")).toBe("X-Request-Id");
  });

  it("reflects any origin by default, never with credentials", async () => {
    const res = await fetch(`${t.url}/healthz`, {
      headers: { origin: "https://anything.example" },
    });
    expect(res.headers.get("access-control-allow-origin")).toBe("https://anything.example");
    expect(res.headers.get("access-control-allow-credentials")).toBeNull();
  });

  it("restricts origins when CORS_ORIGINS is set", async () => {
    const allowed = await fetch(`${restricted.url}/healthz`, {
      headers: { origin: "https://app.example" },
    });
    expect(allowed.headers.get("access-control-allow-origin")).toBe("https://app.example");
    const other = await fetch(`${restricted.url}/healthz`, {
      headers: { origin: "https://evil.example" },
    });
    expect(other.headers.get("access-control-allow-origin")).not.toBe("https://evil.example");
  });

  it("is healthy and ready on a migrated database", async () => {
    const live = await fetch(`${t.url}/healthz`);
    expect(live.status).toBe(200);
    expect(await live.json()).toEqual({ status: "ok" });
    const ready = await fetch(`${t.url}/readyz`);
    expect(ready.status).toBe(200);
    expect(ready.headers.get("x-request-id")).toMatch(/.+/);
    expect(await ready.json()).toEqual({ status: "ready" });
  });

  it("is not ready (503 migrations_pending) on an unmigrated database, yet alive", async () => {
    const bare = await createTestDatabase({ empty: true, max: 1 });
    try {
      const app = createApp({ ...t.deps, db: bare.db });
      const res = await app.request("/readyz");
      expect(res.status).toBe(503);
      const body = (await res.json()) as { error: { code: string; details: { pending: number } } };
      expect(body.error.code).toBe("migrations_pending");
      expect(body.error.details.pending).toBeGreaterThan(0);
      expect((await app.request("/healthz")).status).toBe(200);
    } finally {
      await bare.close();
    }
  });

  it("is not ready (503 database_unavailable) when the database does not answer", async () => {
    const dead = createDatabase({ url: "postgres://postgres@127.0.0.1:1/none", max: 1 });
    try {
      const app = createApp({ ...t.deps, db: dead.db });
      const res = await app.request("/readyz");
      expect(res.status).toBe(503);
      expect(await res.json()).toEqual({
        error: { code: "database_unavailable", message: "the database does not answer" },
      });
      expect((await app.request("/healthz")).status).toBe(200);
    } finally {
      await dead.close();
    }
  });

  it("documents every registered route in /openapi.json and serves /docs", async () => {
    const doc = (await (await fetch(`${t.url}/openapi.json`)).json()) as {
      paths: Record<string, Record<string, unknown>>;
    };
    const documented = new Set(
      Object.entries(doc.paths).flatMap(([path, ops]) =>
        Object.keys(ops).map((m) => `${m.toUpperCase()} ${path.replace(/\{(\w+)\}/g, ":$1")}`),
      ),
    );
    const undocumented = new Set([
      "GET /openapi.json",
      "GET /docs",
      "GET /docs/scalar.js",
      "GET /docs/init.js",
      "GET /console",
      "GET /console/*",
      // The C2SP tlog-tiles static API, specified by that document and docs/protocol.md §13.5
      // "The checkpoint log" (§1.9 lists it as outside the OpenAPI document).
      "GET /tlog/checkpoint",
      "GET /tlog/tile/*",
    ]);
    const registered = t.app.routes
      .filter((r) => r.method !== "ALL")
      .map((r) => `${r.method} ${r.path}`)
      .filter((r) => !undocumented.has(r));
    expect(registered.length).toBeGreaterThan(5);
    for (const route of registered) {
      expect(documented, route).toContain(route);
    }
    const docs = await fetch(`${t.url}/docs`);
    expect(docs.status).toBe(200);
    expect(await docs.text()).toContain("openapi.json");
  });
});
