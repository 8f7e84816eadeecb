/**
 * Retries, against a small scripted upstream (node:http) that answers like core-api (error shape
 * of docs/protocol.md §1.3, `x-request-id` on every answer): 503/429 then 200 is retried for
 * idempotent calls only, honouring Retry-After; network errors are retried; POST never is.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  backoffMs,
  createClient,
  type RetryEvent,
  retryAfterMs,
  type SvcClient,
  SvcError,
} from "../src/index.js";

type Step = (req: IncomingMessage, res: ServerResponse) => void;

let server: Server;
let baseUrl: string;
let script: Step[] = [];
let seen: { method: string; url: string; authorization: string | undefined; body: string }[] = [];

/** An answer in the API's error shape. */
function error(status: number, code: string, headers: Record<string, string> = {}): Step {
  return (_req, res) => {
    res.writeHead(status, {
      "content-type": "application/json",
      "x-request-id": `req-${seen.length}`,
      ...headers,
    });
    res.end(JSON.stringify({ error: { code, message: `${code} (scripted)`, details: { n: 1 } } }));
  };
}

function ok(body: unknown, status = 200): Step {
  return (_req, res) => {
    if (status === 204) {
      res.writeHead(204, { "x-request-id": `req-${seen.length}` });
      res.end();
      return;
    }
    res.writeHead(status, {
      "content-type": "application/json",
      "x-request-id": `req-${seen.length}`,
    });
    res.end(JSON.stringify(body));
  };
}

/** Drops the connection without an answer. */
const hangUp: Step = (req) => req.socket.destroy();

const memory = {
  id: "m1",
  leafIndex: 0,
  leafHash: "0".repeat(64),
  content: "hello",
  metadata: {},
  namespace: null,
  writtenBy: { kind: "session" },
  supersedes: null,
  supersededBy: null,
  createdAt: "2026-11-22T10:00:00.000Z",
  anchored: false,
};

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (chunk: string) => {
      body += chunk;
    });
    req.on("end", () => {
      seen.push({
        method: req.method ?? "",
        url: req.url ?? "",
        authorization: req.headers.authorization,
        body,
      });
      const step = script.shift() ?? error(500, "internal");
      step(req, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});
afterEach(() => {
  script = [];
  seen = [];
});

function client(events: RetryEvent[] = [], retry = {}): SvcClient {
  return createClient({
    baseUrl,
    apiKey: "svc_test",
    retry: { baseDelayMs: 5, maxDelayMs: 20, onRetry: (e) => events.push(e), ...retry },
  });
}

describe("retries", () => {
  it("retries a GET answered 503 then 200, waiting what Retry-After asks", async () => {
    script = [error(503, "database_unavailable", { "retry-after": "1" }), ok(memory)];
    const events: RetryEvent[] = [];
    const started = Date.now();
    const got = await client(events).get("m1");
    expect(got).toEqual(memory);
    expect(Date.now() - started).toBeGreaterThanOrEqual(990);
    expect(seen.map((r) => `${r.method} ${r.url}`)).toEqual([
      "GET /memories/m1",
      "GET /memories/m1",
    ]);
    expect(seen.every((r) => r.authorization === "Bearer svc_test")).toBe(true);
    expect(events).toEqual([
      expect.objectContaining({ attempt: 1, status: 503, method: "GET", delayMs: 1000 }),
    ]);
  });

  it("retries 429 rate_limited with exponential backoff, then succeeds", async () => {
    script = [error(429, "rate_limited"), error(429, "rate_limited"), ok({ treeSize: 1 })];
    const events: RetryEvent[] = [];
    expect(await client(events, { baseDelayMs: 10, maxDelayMs: 1000 }).log.get()).toEqual({
      treeSize: 1,
    });
    expect(seen).toHaveLength(3);
    expect(events.map((e) => e.attempt)).toEqual([1, 2]);
    // Equal jitter: attempt n waits between half and all of base · 2^(n-1).
    expect(events[0]?.delayMs).toBeGreaterThanOrEqual(5);
    expect(events[0]?.delayMs).toBeLessThanOrEqual(10);
    expect(events[1]?.delayMs).toBeGreaterThanOrEqual(10);
    expect(events[1]?.delayMs).toBeLessThanOrEqual(20);
  });

  it("retries DELETE and PUT (idempotent), resending the body", async () => {
    script = [error(503, "database_unavailable"), ok(null, 204)];
    await client().forget("m1");
    expect(seen.map((r) => r.method)).toEqual(["DELETE", "DELETE"]);
    seen = [];
    script = [
      error(503, "database_unavailable"),
      ok({ ...memory, id: "m2", supersedes: "m1" }, 201),
    ];
    const updated = await client().update("m1", "new text", { k: 1 });
    expect(updated.supersedes).toBe("m1");
    expect(seen.map((r) => r.method)).toEqual(["PUT", "PUT"]);
    expect(seen.map((r) => JSON.parse(r.body))).toEqual([
      { content: "new text", metadata: { k: 1 } },
      { content: "new text", metadata: { k: 1 } },
    ]);
  });

  it("never retries a POST: the 503 is thrown at once", async () => {
    script = [error(503, "database_unavailable"), ok(memory, 201)];
    const events: RetryEvent[] = [];
    const thrown = await client(events)
      .remember("hello")
      .catch((e: unknown) => e);
    expect(thrown).toBeInstanceOf(SvcError);
    expect(thrown).toMatchObject({
      code: "database_unavailable",
      status: 503,
      requestId: "req-1",
      details: { n: 1 },
      message: "database_unavailable (scripted)",
    });
    expect(seen).toHaveLength(1);
    expect(events).toEqual([]);
  });

  it("gives up after the configured retries and throws the last answer", async () => {
    script = [
      error(503, "chain_unavailable"),
      error(503, "chain_unavailable"),
      error(503, "chain_unavailable"),
    ];
    const thrown = await client([], { retries: 2 })
      .verifyOnServer("m1")
      .catch((e: unknown) => e);
    expect(thrown).toMatchObject({ code: "chain_unavailable", status: 503, requestId: "req-3" });
    expect(seen).toHaveLength(3);
  });

  it("does not wait out a Retry-After longer than maxRetryAfterMs", async () => {
    script = [error(429, "rate_limited", { "retry-after": "120" }), ok(memory)];
    const started = Date.now();
    const thrown = await client()
      .get("m1")
      .catch((e: unknown) => e);
    expect(thrown).toMatchObject({ code: "rate_limited", status: 429 });
    expect(Date.now() - started).toBeLessThan(1000);
    expect(seen).toHaveLength(1);
  });

  it("does not retry other errors (4xx, 500)", async () => {
    script = [error(404, "not_found"), ok(memory)];
    expect(
      await client()
        .get("m1")
        .catch((e: unknown) => e),
    ).toMatchObject({ status: 404 });
    script = [error(500, "internal"), ok(memory)];
    expect(
      await client()
        .get("m1")
        .catch((e: unknown) => e),
    ).toMatchObject({ status: 500 });
    expect(seen).toHaveLength(2);
  });

  it("retries a GET whose connection dropped; a dead server is network_error", async () => {
    script = [hangUp, ok(memory)];
    const events: RetryEvent[] = [];
    expect(await client(events).get("m1")).toEqual(memory);
    expect(events).toEqual([expect.objectContaining({ attempt: 1, status: null })]);

    const dead = createClient({
      baseUrl: "http://127.0.0.1:9",
      retry: { baseDelayMs: 1, retries: 2 },
    });
    const thrown = await dead.get("m1").catch((e: unknown) => e);
    expect(thrown).toBeInstanceOf(SvcError);
    expect(thrown).toMatchObject({ code: "network_error", status: 0, requestId: null });
    expect((thrown as SvcError).cause).toBeInstanceOf(Error);

    script = [hangUp];
    const post = await client()
      .remember("x")
      .catch((e: unknown) => e);
    expect(post).toMatchObject({ code: "network_error" }); // POST: not retried
    expect(seen).toHaveLength(3);
  });

  it("retry: false makes one attempt; a non-JSON error body is unexpected_response", async () => {
    script = [
      (_req, res) => {
        res.writeHead(503, { "content-type": "text/html", "x-request-id": "proxy-1" });
        res.end("<h1>Service Unavailable</h1>");
      },
    ];
    const once = createClient({ baseUrl, retry: false });
    const thrown = await once.info().catch((e: unknown) => e);
    expect(thrown).toMatchObject({
      code: "unexpected_response",
      status: 503,
      requestId: "proxy-1",
      details: { body: "<h1>Service Unavailable</h1>" },
    });
    expect(seen).toHaveLength(1);
    expect(seen[0]?.authorization).toBeUndefined(); // GET /info takes no credential
  });
});

describe("retry helpers", () => {
  it("reads Retry-After as seconds or an HTTP date", () => {
    expect(retryAfterMs(null)).toBeNull();
    expect(retryAfterMs("3")).toBe(3000);
    expect(retryAfterMs("soon")).toBeNull();
    const now = Date.parse("2026-11-22T10:00:00.000Z");
    expect(retryAfterMs("Sun, 22 Nov 2026 10:00:05 GMT", now)).toBe(5000);
    expect(retryAfterMs("Sun, 22 Nov 2026 09:00:00 GMT", now)).toBe(0);
  });

  it("backs off exponentially up to the cap, with jitter in the upper half", () => {
    expect(backoffMs(0, 100, 1000, () => 0)).toBe(50);
    expect(backoffMs(0, 100, 1000, () => 1)).toBe(100);
    expect(backoffMs(3, 100, 1000, () => 1)).toBe(800);
    expect(backoffMs(10, 100, 1000, () => 0.5)).toBe(750);
  });
});
