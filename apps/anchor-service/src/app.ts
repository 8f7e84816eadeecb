/**
 * The anchor service's HTTP surface (hono): `GET /metrics` (Prometheus text exposition of the
 * service's own registry; docs/protocol.md §7), `GET /healthz` (the process is up) and `GET /readyz` (the
 * database answers and every committed migration is applied: http-kit's registerHealthRoutes with
 * @verifiable-memory/runtime's databaseReadiness as its `ready()`, as the two APIs have). Nothing here changes state.
 * Every response carries `x-request-id` (docs/protocol.md §1) and every request is logged as one JSON line
 * with it (method, path, status, duration; never a header or a body).
 * @module
 */
import { OpenAPIHono } from "@hono/zod-openapi";
import type { Executor } from "@verifiable-memory/db-schema";
import {
  loggableError,
  registerHealthRoutes,
  requestLogLevel,
  validationHook,
} from "@verifiable-memory/http-kit";
import { databaseReadiness } from "@verifiable-memory/runtime";
import { requestId } from "hono/request-id";
import { type Logger, pino } from "pino";
import type { AnchorMetrics } from "./metrics.js";

/** Dependencies of {@link createApp}. */
export interface AppDeps {
  /** Database checked by `/readyz`. */
  readonly db: Executor;
  /** Metrics served by `/metrics`. */
  readonly metrics: AnchorMetrics;
  /**
   * Where the request lines (level info) and unexpected errors go; default: a pino logger on
   * stdout with `service: "anchor-service"`.
   */
  readonly logger?: Logger;
}

/** Hono environment: the request id of hono/request-id. */
interface AppEnv {
  Variables: { requestId: string };
}

/** An incoming x-request-id is kept only when it is short and plain (as in core-api). */
const SAFE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * Builds the hono app.
 * - `GET /metrics` → 200, `text/plain; version=0.0.4` exposition of `metrics.registry`.
 * - `GET /healthz` → 200 `{ status: "ok" }`.
 * - `GET /readyz` → 200 `{ status: "ready" }`, or 503
 *   `{ error: { code: "database_unavailable" | "migrations_pending", message } }` (with
 *   `pending` for migrations_pending). An unknown query parameter on either is 400
 *   `invalid_request`, as on the APIs.
 * Unknown paths are 404 `{ error: { code: "not_found", message } }`; an unexpected failure is 500
 * `{ error: { code: "internal", message } }` naming the request id (docs/protocol.md §1 error shape).
 * @example serve({ fetch: createApp({ db, metrics, logger }).fetch, port: 8789 })
 */
export function createApp(deps: AppDeps): OpenAPIHono<AppEnv> {
  const logger = deps.logger ?? pino({ base: { service: "anchor-service", pid: process.pid } });
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });

  app.use(requestId({ generator: () => crypto.randomUUID(), limitLength: 128 }));
  app.use(async (c, next) => {
    const incoming = c.req.header("x-request-id");
    if (incoming !== undefined && !SAFE_REQUEST_ID.test(incoming)) {
      c.set("requestId", crypto.randomUUID());
    }
    const started = performance.now();
    await next();
    c.header("x-request-id", c.var.requestId);
    logger[requestLogLevel(c.req.path)](
      {
        requestId: c.var.requestId,
        method: c.req.method,
        path: c.req.path,
        status: c.res.status,
        ms: Math.round((performance.now() - started) * 10) / 10,
      },
      "request",
    );
  });

  app.get("/metrics", async (c) => {
    const body = await deps.metrics.registry.metrics();
    return c.body(body, 200, { "content-type": deps.metrics.registry.contentType });
  });

  registerHealthRoutes(app, { ready: () => databaseReadiness(deps.db), logger });

  app.notFound((c) => c.json({ error: { code: "not_found", message: "no such route" } }, 404));
  app.onError((error, c) => {
    const id = c.var.requestId;
    logger.error({ requestId: id, err: loggableError(error) }, "unhandled error");
    return c.json(
      { error: { code: "internal", message: `internal error (request id ${id ?? "unknown"})` } },
      500,
    );
  });

  return app;
}
