/**
 * @verifiable-memory/http-kit's rate limits (docs/protocol.md §12) on a kit app of its own, through `app.request` with
 * the Node bindings @hono/node-server would pass (the socket's peer address): the client IP rule
 * with and without TRUST_PROXY, 429 `rate_limited` with `Retry-After` and the request id, the
 * per-IP and per-credential counts, a limit of 0, and a new window admitting the client again.
 * The apps' own tests drive the same over real sockets.
 * @module
 */
import type { IncomingMessage } from "node:http";
import { OpenAPIHono } from "@hono/zod-openapi";
import pino from "pino";
import { afterEach, describe, expect, it, vi } from "vitest";
import {
  type BaseErrorCode,
  clientIp,
  createApiApp,
  createErrorHandler,
  limitPerClientIp,
  type NodeEnv,
  publishApiApp,
  type RateLimitConfig,
  type RateLimitEnv,
  RateLimits,
  type RequestIdEnv,
} from "../src/index.js";

type Env = RequestIdEnv & NodeEnv & RateLimitEnv;

const STATUS: Readonly<
  Record<BaseErrorCode | "not_found", 400 | 404 | 413 | 415 | 429 | 500 | 503>
> = {
  invalid_request: 400,
  not_found: 404,
  payload_too_large: 413,
  unsupported_media_type: 415,
  rate_limited: 429,
  database_unavailable: 503,
  migrations_pending: 503,
  internal: 500,
};

/** A kit app with one route per kind: `/public` limited per client IP, `/private` per credential
 * (named by the `x-credential` header, as an app's auth middleware would name it). */
function limitedApp(config: Partial<RateLimitConfig>) {
  const logger = pino({ level: "silent" });
  const app = createApiApp<Env>({
    logger,
    cors: (_c, next) => next(),
    rateLimits: new RateLimits({
      anonymousPerMinute: 0,
      authenticatedPerMinute: 0,
      trustProxy: false,
      ...config,
    }),
  });
  app.get("/public", limitPerClientIp<Env>(), (c) => c.json({ ok: true }, 200));
  app.get("/private", async (c) => {
    await c.var.rateLimits.chargeCredential(c, c.req.header("x-credential") ?? "none");
    return c.json({ ok: true }, 200);
  });
  publishApiApp(app, {
    title: "Limited API",
    description: "rate limits",
    securityScheme: { name: "bearer", description: "a token" },
    serverUrl: "http://localhost:1",
    onError: createErrorHandler<BaseErrorCode | "not_found">({
      logger,
      codeToStatus: (code) => STATUS[code],
    }),
  });
  return app;
}

/** A request to `app` as if from a socket whose peer is `ip`. */
function from(
  app: OpenAPIHono<Env>,
  ip: string,
  path: string,
  headers: Record<string, string> = {},
): Promise<Response> {
  const incoming = { socket: { remoteAddress: ip } } as unknown as IncomingMessage;
  return Promise.resolve(app.request(path, { headers }, { incoming }));
}

afterEach(() => {
  vi.useRealTimers();
});

describe("clientIp", () => {
  const seen = (trustProxy: boolean) => {
    const app = new OpenAPIHono<Env>();
    app.get("/", (c) => c.json({ ip: clientIp(c, trustProxy) }));
    return async (headers: Record<string, string>, ip?: string) => {
      const incoming = { socket: { remoteAddress: ip } } as unknown as IncomingMessage;
      const res = await app.request("/", { headers }, ip === undefined ? {} : { incoming });
      return ((await res.json()) as { ip: string | null }).ip;
    };
  };

  it("is the socket's address without TRUST_PROXY, whatever X-Forwarded-For says", async () => {
    const ip = seen(false);
    expect(await ip({}, "10.0.0.1")).toBe("10.0.0.1");
    expect(await ip({ "x-forwarded-for": "203.0.113.9" }, "10.0.0.1")).toBe("10.0.0.1");
  });

  it("is the first X-Forwarded-For address with TRUST_PROXY", async () => {
    const ip = seen(true);
    expect(await ip({ "x-forwarded-for": "203.0.113.9, 10.0.0.7" }, "10.0.0.1")).toBe(
      "203.0.113.9",
    );
    expect(await ip({ "x-forwarded-for": " 2001:db8::1 " }, "10.0.0.1")).toBe("2001:db8::1");
    expect(await ip({}, "10.0.0.1")).toBe("10.0.0.1");
    // Not an address: the socket's address is used instead.
    expect(await ip({ "x-forwarded-for": "evil, 203.0.113.9" }, "10.0.0.1")).toBe("10.0.0.1");
  });

  it("is null for an in-process request with no socket", async () => {
    expect(await seen(false)({})).toBeNull();
  });
});

describe("RateLimits", () => {
  it("answers 429 rate_limited with Retry-After and the request id past the per-IP limit", async () => {
    const app = limitedApp({ anonymousPerMinute: 3 });
    for (let i = 0; i < 3; i++) {
      expect((await from(app, "10.0.0.1", "/public")).status).toBe(200);
    }
    const res = await from(app, "10.0.0.1", "/public", { "x-request-id": "req-429" });
    expect(res.status).toBe(429);
    expect(res.headers.get("x-request-id")).toBe("req-429");
    const retryAfter = res.headers.get("retry-after");
    expect(retryAfter).toMatch(/^\d+$/);
    expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
    expect(Number(retryAfter)).toBeLessThanOrEqual(60);
    expect(await res.json()).toEqual({
      error: {
        code: "rate_limited",
        message: expect.stringContaining("at most 3 a minute per client address"),
        details: { limit: 3, windowSeconds: 60, retryAfterSeconds: Number(retryAfter) },
      },
    });
    // Another address has its own count.
    expect((await from(app, "10.0.0.2", "/public")).status).toBe(200);
  });

  it("counts each credential on its own", async () => {
    const app = limitedApp({ authenticatedPerMinute: 2 });
    const as = (credential: string) =>
      from(app, "10.0.0.1", "/private", { "x-credential": credential });
    expect((await as("key-a")).status).toBe(200);
    expect((await as("key-a")).status).toBe(200);
    expect((await as("key-a")).status).toBe(429);
    expect((await as("key-b")).status).toBe(200);
    // The per-IP limit (0 here) is a separate count.
    expect((await from(app, "10.0.0.1", "/public")).status).toBe(200);
  });

  it("limits nothing when a limit is 0", async () => {
    const app = limitedApp({ anonymousPerMinute: 0, authenticatedPerMinute: 0 });
    for (let i = 0; i < 200; i++) {
      expect((await from(app, "10.0.0.1", "/public")).status).toBe(200);
      expect((await from(app, "10.0.0.1", "/private", { "x-credential": "k" })).status).toBe(200);
    }
  });

  it("admits the client again once the window has passed", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const app = limitedApp({ anonymousPerMinute: 1 });
    expect((await from(app, "10.0.0.1", "/public")).status).toBe(200);
    vi.setSystemTime(Date.now() + 30_000);
    const limited = await from(app, "10.0.0.1", "/public");
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get("retry-after"))).toBe(30);
    vi.setSystemTime(Date.now() + 30_001);
    expect((await from(app, "10.0.0.1", "/public")).status).toBe(200);
  });

  it("refuses a limit that is not a whole number ≥ 0", () => {
    const config = { anonymousPerMinute: 1, authenticatedPerMinute: 1, trustProxy: false };
    expect(() => new RateLimits({ ...config, anonymousPerMinute: -1 })).toThrow(RangeError);
    expect(() => new RateLimits({ ...config, authenticatedPerMinute: 1.5 })).toThrow(RangeError);
  });
});
