/**
 * Query-string integers (docs/protocol.md §1.2 "Requests"): the one strict parser of every integer
 * query parameter and header of the APIs (`limit`, `from`, `to`, event ids, …). A value is the
 * decimal digits `^(0|[1-9][0-9]*)$` and nothing else (no sign, space, `0x`, exponent, fraction or
 * leading zero), then checked against the parameter's range.
 * @module
 */
import { z } from "@hono/zod-openapi";

/** The only accepted spelling of a query integer. */
export const QUERY_INTEGER_PATTERN = /^(0|[1-9][0-9]*)$/;

/**
 * A query-string integer in `[min, max]` (both safe integers), answered as a number. The OpenAPI
 * document shows it as an integer with its range.
 * @throws RangeError when `min` or `max` is not a safe integer or `min > max`.
 */
export function queryInteger(min: number, max: number) {
  if (!Number.isSafeInteger(min) || !Number.isSafeInteger(max) || min > max) {
    throw new RangeError(`expected safe integers min <= max, got ${min} and ${max}`);
  }
  return z
    .string()
    .regex(QUERY_INTEGER_PATTERN, "must be a decimal integer: digits only, no leading zero")
    .refine(
      (text) => text.length <= String(max).length && Number(text) >= min && Number(text) <= max,
      `must be an integer from ${min} to ${max}`,
    )
    .transform(Number)
    .openapi({ type: "integer", minimum: min, maximum: max });
}

/**
 * The `cursor` of a paginated list or search (docs/protocol.md §1.6 "Content limits and
 * pagination"): a `nextCursor` the service answered, 1–512 characters of `[A-Za-z0-9_-]`. Its seal
 * is checked by the route, against the service's key; this schema checks only its form.
 */
export const CursorSchema = z
  .string()
  .min(1)
  .max(512)
  .regex(/^[A-Za-z0-9_-]+$/, "must be a cursor the service answered")
  .openapi({
    description:
      "the nextCursor of the previous page, to read the next one: opaque and sealed by the service, which answers 400 invalid_request to a cursor it did not issue (or issued under a JWT_SECRET since rotated)",
  });
