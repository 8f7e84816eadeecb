/**
 * The memory routes both APIs serve, defined once: `POST /memories` (docs/protocol.md §4.1 "The
 * memory record") and `POST /memories/search` (§4.5 "Recall"), as the core API and the extension
 * API (§9.4 "Routes with the token") publish them: path, operation id, tag, the body rules of §1
 * (JSON, no query parameters) and the error answers. Each API gives what differs: its body and
 * answer schemas (the extension API's are narrower), its credential middleware and security
 * requirement, its summary, whether the route can answer 403, and the domain call.
 * @module
 */
import { createRoute, type OpenAPIHono, type z } from "@hono/zod-openapi";
import type { Context, Env, MiddlewareHandler } from "hono";
import {
  errorResponse,
  NoQuerySchema,
  rateLimitedResponse,
  unauthorizedResponse,
} from "./openapi.js";

/** How one API serves one memory route. */
export interface MemoryRouteOptions<E extends Env, B extends z.ZodType, R extends z.ZodType> {
  /** The one-line summary of the API reference. */
  readonly summary: string;
  /** The OpenAPI security requirement, e.g. `[{ bearer: [] }]`. */
  readonly security: Record<string, string[]>[];
  /** Run before the body is validated, in order: the credential, its scopes, … */
  readonly middleware: readonly MiddlewareHandler<E>[];
  /** The request body's schema. */
  readonly body: B;
  /** The answer's schema. */
  readonly answer: R;
  /** The description of the 403 answer when the route can give one (none otherwise). */
  readonly forbidden?: string;
  /** The answer to a request whose body passed `body`. */
  readonly handle: (c: Context<E>, body: z.output<B>) => Promise<z.input<R>>;
}

/** The answers every memory route can give besides its success and 403. */
function errorAnswers() {
  return {
    400: errorResponse("invalid_request"),
    401: unauthorizedResponse(),
    429: rateLimitedResponse("rate_limited: too many requests with this credential"),
  };
}

/** Registers `POST /memories` (201 with the stored memory's leaf). */
export function registerCreateMemoryRoute<E extends Env, B extends z.ZodType, R extends z.ZodType>(
  app: OpenAPIHono<E>,
  options: MemoryRouteOptions<E, B, R>,
): void {
  const route = createRoute({
    method: "post",
    path: "/memories",
    operationId: "createMemory",
    tags: ["memories"],
    summary: options.summary,
    security: options.security,
    middleware: [...options.middleware],
    request: {
      query: NoQuerySchema,
      body: { required: true, content: { "application/json": { schema: options.body } } },
    },
    responses: {
      201: {
        description: "The stored memory's leaf",
        content: { "application/json": { schema: options.answer } },
      },
      ...errorAnswers(),
      ...(options.forbidden === undefined ? {} : { 403: errorResponse(options.forbidden) }),
      413: errorResponse("payload_too_large"),
      415: errorResponse("unsupported_media_type"),
    },
  });
  app.openapi(route, async (c) =>
    c.json(await options.handle(c as Context<E>, c.req.valid("json" as never) as z.output<B>), 201),
  );
}

/** Registers `POST /memories/search` (200 with the matching memories). */
export function registerSearchMemoriesRoute<
  E extends Env,
  B extends z.ZodType,
  R extends z.ZodType,
>(app: OpenAPIHono<E>, options: MemoryRouteOptions<E, B, R>): void {
  const route = createRoute({
    method: "post",
    path: "/memories/search",
    operationId: "searchMemories",
    tags: ["memories"],
    summary: options.summary,
    security: options.security,
    middleware: [...options.middleware],
    request: {
      query: NoQuerySchema,
      body: { required: true, content: { "application/json": { schema: options.body } } },
    },
    responses: {
      200: {
        description: "Matching memories",
        content: { "application/json": { schema: options.answer } },
      },
      ...errorAnswers(),
      ...(options.forbidden === undefined ? {} : { 403: errorResponse(options.forbidden) }),
    },
  });
  app.openapi(route, async (c) =>
    c.json(await options.handle(c as Context<E>, c.req.valid("json" as never) as z.output<B>), 200),
  );
}
