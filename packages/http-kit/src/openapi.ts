/**
 * OpenAPI pieces both APIs share: the error body schema (docs/protocol.md §1), response entries, and the
 * validation hook that answers a failed zod validation with 400 `invalid_request` listing the
 * failing fields.
 * @module
 */
import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { errorBody } from "./errors.js";

/** `{ error: { code, message, details? } }`. */
export const ErrorSchema = z
  .object({
    error: z.object({
      code: z.string().openapi({ example: "invalid_request" }),
      message: z.string(),
      details: z.unknown().optional(),
    }),
  })
  .openapi("Error");

/** An error response entry for `createRoute({ responses })`. */
export function errorResponse(description: string) {
  return { description, content: { "application/json": { schema: ErrorSchema } } };
}

/**
 * The 429 entry of a rate-limited route (docs/protocol.md §12): the error body with code `rate_limited`
 * and the `Retry-After` header, whole seconds (at least 1) until the limit's window ends.
 * @param description what the route is limited by, e.g. "rate_limited: too many requests from
 *   this client IP".
 */
export function rateLimitedResponse(description: string) {
  return {
    ...errorResponse(description),
    headers: {
      "Retry-After": {
        description: "Seconds to wait before the limit admits another request (at least 1)",
        schema: { type: "integer" as const, minimum: 1 },
      },
    },
  };
}

/** The outcome of a zod validation as @hono/zod-openapi hands it to `defaultHook`. */
interface ValidationOutcome {
  readonly success: boolean;
  readonly error?: { readonly issues: readonly { path: PropertyKey[]; message: string }[] };
}

/**
 * `defaultHook` of an OpenAPIHono app: a failed validation becomes 400 `invalid_request` whose
 * `details` lists `{ path, message }` of every issue; a passed one continues.
 */
export function validationHook(result: ValidationOutcome, c: Context): Response | undefined {
  if (!result.success) {
    const details = (result.error?.issues ?? []).map((i) => ({ path: i.path, message: i.message }));
    return c.json(errorBody("invalid_request", "the request is not valid", details), 400);
  }
  return undefined;
}

/**
 * The query of a route that takes no query parameters: any parameter is refused with 400
 * `invalid_request` naming it, so a client that believes it asked for something learns it did not.
 */
export const NoQuerySchema = z.strictObject({});

/**
 * `schema` refusing U+0000: PostgreSQL `text` and `jsonb` cannot hold it, so a value that would
 * reach a query with one is refused up front (400) instead of failing inside the query (500).
 */
export function withoutNul<T extends z.ZodType<string>>(schema: T) {
  return schema.refine((value) => !value.includes("\u0000"), "must not contain U+0000");
}

/** The error answers every operation can give, by the request it takes (docs/protocol.md §1). */
const PROTOCOL_ERRORS = {
  any: {
    "400": "invalid_request: a malformed parameter or an unknown query parameter",
    "500": "internal: an unexpected failure (no detail; the request id is in the message)",
  },
  body: {
    "413": "payload_too_large: the body is over 256 KiB",
    "415": "unsupported_media_type: the body is not application/json",
  },
} as const;

/**
 * Completes an OpenAPI document with the error answers of docs/protocol.md §1 that the shared
 * middleware gives on every route, so each operation lists every status it can answer: 400 and
 * 500 everywhere, 413 and 415 where a body is taken. Entries a route declares itself are kept.
 * @returns the same document, completed in place.
 */
export function withProtocolErrors<D extends { paths?: object }>(document: D): D {
  for (const item of Object.values(document.paths ?? {}) as Record<string, unknown>[]) {
    for (const operation of Object.values(item)) {
      const op = operation as { responses?: Record<string, unknown>; requestBody?: unknown };
      if (op.responses === undefined) {
        continue;
      }
      const errors = {
        ...PROTOCOL_ERRORS.any,
        ...(op.requestBody === undefined ? {} : PROTOCOL_ERRORS.body),
      };
      for (const [status, description] of Object.entries(errors)) {
        op.responses[status] ??= {
          description,
          content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } },
        };
      }
    }
  }
  return document;
}

/**
 * The 401 entry of a bearer route: the error body with code `unauthorized` and the
 * `WWW-Authenticate: Bearer` challenge (RFC 6750 §3; docs/protocol.md §3.1 "Bearer tokens").
 */
export function unauthorizedResponse() {
  return {
    ...errorResponse("unauthorized: no bearer token, or one that is unknown, revoked or expired"),
    headers: {
      "WWW-Authenticate": {
        description:
          '`Bearer` without a token, `Bearer error="invalid_token"` for a token that failed',
        schema: { type: "string" as const },
      },
    },
  };
}
