/**
 * @verifiable-memory/http-kit on its own, with an app's own closed code union (not core-api's): the app frame
 * (createApiApp, publishApiApp: JSON 404 included), the error handler (codes mapped by the app's
 * codeToStatus, typed domain errors translated, a generic 500 whose log keeps name, message and
 * stack only), the validation hook, the body rules, request ids with a redacted path in the access
 * log, the health routes and the in-flight count.
 * @module
 */
import { Writable } from "node:stream";
import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import pino from "pino";
import { describe, expect, it } from "vitest";
import {
  ApiError,
  type BaseErrorCode,
  createApiApp,
  createErrorHandler,
  errorBody,
  type NodeEnv,
  publishApiApp,
  type RateLimitEnv,
  RateLimits,
  type Readiness,
  type RequestIdEnv,
  registerHealthRoutes,
  trackInFlight,
} from "../src/index.js";

/** A second app's own codes. */
type AppCode = BaseErrorCode | "quota_exceeded" | "not_found";

/** The app's one status mapping (a record here: exhaustive over AppCode). */
const STATUS: Readonly<Record<AppCode, ContentfulStatusCode>> = {
  invalid_request: 400,
  not_found: 404,
  payload_too_large: 413,
  unsupported_media_type: 415,
  quota_exceeded: 429,
  rate_limited: 429,
  database_unavailable: 503,
  migrations_pending: 503,
  internal: 500,
};
const codeToStatus = (code: AppCode) => STATUS[code];

/** The `error.code` of an error response. */
async function codeOf(res: Response): Promise<string> {
  return ((await res.json()) as { error: { code: string } }).error.code;
}

/** A domain error the app translates (as apps translate @verifiable-memory/memory's). */
class ShelfMissingError extends Error {
  readonly shelf = "b-12";
}

type Env = RequestIdEnv & NodeEnv & RateLimitEnv;

/** A test app logging into `lines`, with the kit's middleware and handler. */
function testApp(level: "info" | "debug" = "info") {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk: Buffer | string, _encoding, done) {
      for (const line of String(chunk).split("\n").filter(Boolean)) {
        lines.push(JSON.parse(line) as Record<string, unknown>);
      }
      done();
    },
  });
  const logger = pino({ level }, sink);
  const app = createApiApp<Env>({
    logger,
    cors: (_c, next) => next(),
    rateLimits: new RateLimits({
      anonymousPerMinute: 0,
      authenticatedPerMinute: 0,
      trustProxy: false,
    }),
    loggablePath: (_method, path) => path.replace(/^\/secret\/.*/, "/secret/:token"),
  });
  app.openapi(
    createRoute({
      method: "post",
      path: "/items",
      request: {
        body: {
          content: { "application/json": { schema: z.object({ name: z.string().min(1) }) } },
        },
      },
      responses: { 201: { description: "Created" } },
    }),
    (c) => c.json({ name: c.req.valid("json").name }, 201),
  );
  app.get("/quota", () => {
    throw new ApiError<AppCode>("quota_exceeded", "too many items", { limit: 3 });
  });
  app.get("/shelf", () => {
    throw new ShelfMissingError("no such shelf");
  });
  app.get("/boom", () => {
    throw Object.assign(new Error("driver failed"), { parameters: ["token-abc"] });
  });
  app.get("/secret/:token", (c) => c.json({ ok: true }));
  publishApiApp(app, {
    title: "Shelf API",
    description: "a second app",
    securityScheme: { name: "bearer", description: "a token" },
    serverUrl: "http://localhost:1",
    onError: createErrorHandler<AppCode>({
      logger,
      codeToStatus,
      translate: (err) =>
        err instanceof ShelfMissingError
          ? new ApiError<AppCode>("not_found", err.message, { shelf: err.shelf })
          : undefined,
    }),
  });
  return { app, lines };
}

const json = (body: string) => ({
  method: "POST",
  headers: { "content-type": "application/json" },
  body,
});

describe("createErrorHandler", () => {
  it("renders ApiErrors with the app's own codes and statuses, and translated domain errors", async () => {
    const { app } = testApp();
    const quota = await app.request("/quota");
    expect(quota.status).toBe(429);
    expect(await quota.json()).toEqual(errorBody("quota_exceeded", "too many items", { limit: 3 }));
    expect(quota.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    const shelf = await app.request("/shelf");
    expect(shelf.status).toBe(404);
    const unknown = await app.request("/nowhere");
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toEqual(errorBody("not_found", "no such route"));
    expect(await shelf.json()).toEqual({
      error: { code: "not_found", message: "no such shelf", details: { shelf: "b-12" } },
    });
  });

  it("answers an unknown error with a generic 500 naming the request id; logs name, message, stack", async () => {
    const { app, lines } = testApp();
    const res = await app.request("/boom", { headers: { "x-request-id": "req-42" } });
    expect(res.status).toBe(500);
    expect(await res.json()).toEqual(errorBody("internal", "internal error (request id req-42)"));
    const logged = lines.find((l) => l.msg === "unhandled error");
    expect(logged).toMatchObject({ requestId: "req-42", err: { name: "Error" } });
    // pino's serializer adds `type`; the error's own other properties never reach the log.
    expect(Object.keys(logged?.err as object).sort()).toEqual(["message", "name", "stack", "type"]);
    expect(JSON.stringify(lines)).not.toContain("token-abc");
  });
});

describe("validationHook and body rules", () => {
  it("400 invalid_request listing the failing fields; malformed JSON is a 400, never a 500", async () => {
    const { app } = testApp();
    expect((await app.request("/items", json('{"name":"a"}'))).status).toBe(201);
    const invalid = await app.request("/items", json('{"name":""}'));
    expect(invalid.status).toBe(400);
    expect(await invalid.json()).toEqual(
      errorBody("invalid_request", "the request is not valid", [
        { path: ["name"], message: expect.any(String) },
      ]),
    );
    const malformed = await app.request("/items", json('{"name":'));
    expect(malformed.status).toBe(400);
    expect(await malformed.json()).toEqual(errorBody("invalid_request", "malformed request body"));
  });

  it("415 for a body that is not JSON, 413 past 256 KiB", async () => {
    const { app } = testApp();
    const text = await app.request("/items", {
      method: "POST",
      headers: { "content-type": "text/plain" },
      body: "name=a",
    });
    expect([text.status, await codeOf(text)]).toEqual([415, "unsupported_media_type"]);
    const big = await app.request("/items", json(JSON.stringify({ name: "x".repeat(300_000) })));
    expect([big.status, await codeOf(big)]).toEqual([413, "payload_too_large"]);
  });
});

describe("requestLog", () => {
  it("keeps a plain incoming request id, replaces another, and logs the app's loggable path", async () => {
    const { app, lines } = testApp();
    const kept = await app.request("/secret/tok-123", { headers: { "x-request-id": "abc.1" } });
    expect(kept.headers.get("x-request-id")).toBe("abc.1");
    const replaced = await app.request("/quota", { headers: { "x-request-id": "a b\u00e9" } });
    expect(replaced.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    const requests = lines.filter((l) => l.msg === "request");
    expect(requests.map((l) => [l.requestId, l.method, l.path, l.status])).toEqual([
      ["abc.1", "GET", "/secret/:token", 200],
      [replaced.headers.get("x-request-id"), "GET", "/quota", 429],
    ]);
    expect(JSON.stringify(lines)).not.toContain("tok-123");
  });

  it("logs health probes at debug: absent at info, present with level 20 at debug", async () => {
    const atInfo = testApp();
    atInfo.app.get("/healthz", (c) => c.json({ status: "ok" }));
    expect((await atInfo.app.request("/healthz")).status).toBe(200);
    await atInfo.app.request("/quota");
    expect(atInfo.lines.filter((l) => l.msg === "request").map((l) => l.path)).toEqual(["/quota"]);

    const atDebug = testApp("debug");
    atDebug.app.get("/healthz", (c) => c.json({ status: "ok" }));
    await atDebug.app.request("/healthz");
    await atDebug.app.request("/quota");
    const requests = atDebug.lines.filter((l) => l.msg === "request");
    expect(requests.map((l) => [l.path, l.level])).toEqual([
      ["/healthz", 20],
      ["/quota", 30],
    ]);
  });
});

describe("registerHealthRoutes", () => {
  function healthApp(ready: () => Promise<Readiness>) {
    const app = new OpenAPIHono<RequestIdEnv>();
    registerHealthRoutes(app, { ready, logger: pino({ level: "silent" }) });
    return app;
  }

  it("answers /healthz, and /readyz as ready() finds it", async () => {
    const ready = healthApp(async () => ({ ready: true }));
    expect(await (await ready.request("/healthz")).json()).toEqual({ status: "ok" });
    const answer = await ready.request("/readyz");
    expect(answer.status).toBe(200);
    expect(await answer.json()).toEqual({ status: "ready" });

    const pending = await healthApp(async () => ({ ready: false, pending: 2 })).request("/readyz");
    expect(pending.status).toBe(503);
    const pendingBody = (await pending.json()) as { error: { code: string; details: unknown } };
    expect(pendingBody.error).toMatchObject({
      code: "migrations_pending",
      details: { pending: 2 },
    });
  });

  it("answers 503 database_unavailable when ready() throws", async () => {
    const down = healthApp(async () => {
      throw Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" });
    });
    expect((await down.request("/healthz")).status).toBe(200);
    const answer = await down.request("/readyz");
    expect(answer.status).toBe(503);
    expect(((await answer.json()) as { error: { code: string } }).error.code).toBe(
      "database_unavailable",
    );
  });
});

describe("trackInFlight", () => {
  it("counts the calls in progress and resolves idle when they end (false on timeout)", async () => {
    let release = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const tracked = trackInFlight(async (_request: Request) => {
      await gate;
      return new Response("done");
    });
    const pending = tracked.fetch(new Request("http://localhost/"));
    expect(tracked.count()).toBe(1);
    expect(await tracked.idle(10)).toBe(false);
    const idle = tracked.idle(5_000);
    release();
    expect(await (await pending).text()).toBe("done");
    expect(await idle).toBe(true);
    expect(tracked.count()).toBe(0);
  });
});
