/**
 * Request ids and the access log (docs/protocol.md §1.5 "Request ids"): an incoming
 * `x-request-id` is kept when short and plain, otherwise a UUID is made; one log line per request
 * with method, path, status and milliseconds, never headers, bodies or query strings; health
 * probes and metrics scrapes at `debug`, every other request at `info`.
 * @module
 */
import { randomUUID } from "node:crypto";
import type { MiddlewareHandler } from "hono";
import type { Logger } from "pino";

/** The hono environment of an app with request ids. */
export interface RequestIdEnv {
  Variables: { requestId: string };
}

/** An incoming x-request-id is kept only when it is short and plain. */
const SAFE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Paths that orchestrators and scrapers request every few seconds: health probes and metrics. */
export const PROBE_PATHS: ReadonlySet<string> = new Set(["/healthz", "/readyz", "/metrics"]);

/**
 * The level of a request's access-log line: `debug` for {@link PROBE_PATHS} (a probe every few
 * seconds would drown the log at `info`), `info` for everything else.
 */
export function requestLogLevel(path: string): "debug" | "info" {
  return PROBE_PATHS.has(path) ? "debug" : "info";
}

/**
 * Sets `c.var.requestId` and the `x-request-id` header before the route runs (a header set on a
 * finished response makes hono copy the response), then logs the request.
 * @param options.loggablePath the path as logged; lets an app redact credentials that travel in
 *   a path (default: the path itself).
 */
export function requestLog<E extends RequestIdEnv>(options: {
  readonly logger: Logger;
  readonly loggablePath?: (method: string, path: string) => string;
}): MiddlewareHandler<E> {
  const loggablePath = options.loggablePath ?? ((_method: string, path: string) => path);
  return async (c, next) => {
    const incoming = c.req.header("x-request-id");
    const id = incoming !== undefined && SAFE_REQUEST_ID.test(incoming) ? incoming : randomUUID();
    c.set("requestId", id);
    c.header("x-request-id", id);
    const started = performance.now();
    await next();
    options.logger[requestLogLevel(c.req.path)](
      {
        requestId: id,
        method: c.req.method,
        path: loggablePath(c.req.method, c.req.path),
        status: c.res.status,
        ms: Math.round((performance.now() - started) * 10) / 10,
      },
      "request",
    );
  };
}
