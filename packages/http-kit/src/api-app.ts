/**
 * The frame both APIs are built in: an OpenAPIHono app with the request log, the app's CORS, the
 * body rules, the app's rate limits (`c.var.rateLimits`) and the validation hook in that order,
 * and — once the routes are registered — its OpenAPI document at `/openapi.json`, the API
 * reference at `/docs` (served offline from the installed package: api-reference.ts), the JSON
 * 404 and the error handler.
 * @module
 */
import { OpenAPIHono } from "@hono/zod-openapi";
import type { Env, ErrorHandler, Hono, MiddlewareHandler } from "hono";
import type { Logger } from "pino";
import { registerApiReference } from "./api-reference.js";
import { limitBody, type NodeEnv, type RouteBodyLimits, requireJsonBody } from "./body.js";
import { errorBody } from "./errors.js";
import { validationHook, withProtocolErrors } from "./openapi.js";
import type { RateLimitEnv, RateLimits } from "./rate-limit.js";
import { type RequestIdEnv, requestLog } from "./request-log.js";
import { strictJsonBody } from "./strict-json.js";

/**
 * A new app with, before any route: request ids and the access log (every response header is set
 * before the route runs: a header set on a finished response makes hono copy it into a new
 * Response that @hono/node-server then streams), `cors`, the 256 KiB body limit (or the route's
 * own in `bodyLimits`), JSON-only bodies without duplicate keys or inexact metadata numbers, and `c.var.rateLimits` (the app's one {@link RateLimits}, which its limited routes and
 * authentication middleware charge: docs/protocol.md §12); a failed validation answers 400
 * `invalid_request` with the failing fields.
 */
export function createApiApp<E extends RequestIdEnv & NodeEnv & RateLimitEnv>(options: {
  readonly logger: Logger;
  readonly cors: MiddlewareHandler<E>;
  readonly rateLimits: RateLimits;
  readonly loggablePath?: (method: string, path: string) => string;
  /** Routes whose bodies may be larger (or must be smaller) than 256 KiB. */
  readonly bodyLimits?: RouteBodyLimits;
}): OpenAPIHono<E> {
  const app = new OpenAPIHono<E>({ defaultHook: validationHook });
  app.use(
    requestLog<E>({
      logger: options.logger,
      ...(options.loggablePath ? { loggablePath: options.loggablePath } : {}),
    }),
  );
  app.use(options.cors);
  app.use(limitBody<E>(options.bodyLimits));
  app.use(requireJsonBody<E>());
  app.use(strictJsonBody());
  app.use(async (c, next) => {
    c.set("rateLimits", options.rateLimits);
    await next();
  });
  return app;
}

/**
 * Publishes the app once its routes are registered: the bearer security scheme, the OpenAPI 3.1
 * document at `/openapi.json`, the reference at `/docs` with its scripts at `/docs/scalar.js` and
 * `/docs/init.js` (all from this process, no CDN), `404 not_found` for unknown routes and the
 * app's error handler.
 */
export function publishApiApp<E extends RequestIdEnv & NodeEnv>(
  app: OpenAPIHono<E>,
  options: {
    readonly title: string;
    readonly description: string;
    readonly securityScheme: { readonly name: string; readonly description: string };
    /** The public base URL the API is served at (the document's `servers`). */
    readonly serverUrl: string;
    readonly onError: ErrorHandler<E>;
  },
): void {
  app.openAPIRegistry.registerComponent("securitySchemes", options.securityScheme.name, {
    type: "http",
    scheme: "bearer",
    description: options.securityScheme.description,
  });
  let document: ReturnType<typeof app.getOpenAPI31Document> | null = null;
  app.get("/openapi.json", (c) => {
    document ??= withProtocolErrors(
      app.getOpenAPI31Document({
        openapi: "3.1.0",
        info: {
          title: options.title,
          version: "1.0.0",
          description: options.description,
        },
        servers: [{ url: options.serverUrl }],
      }),
    );
    return c.json(document);
  });
  registerApiReference(app, {
    title: `${options.title} reference`,
    serverUrl: options.serverUrl,
  });
  app.notFound((c) => c.json(errorBody("not_found", "no such route"), 404));
  app.onError(options.onError);
}

/**
 * Builds the app's route matcher now, once every route is registered, instead of on its first
 * request (hono builds it then: 2–3 ms for core-api's routes, on that request's path). Call it
 * last: hono refuses any route added afterwards ("matcher is already built").
 */
export function buildRouteMatcher<E extends Env>(app: Hono<E>): void {
  app.router.match("GET", "/");
}
