/**
 * How every high-level call of the SDK is made: an openapi-fetch call unwrapped into its data or
 * an {@link SvcError}, pages followed through `nextCursor`, and the argument checks made before
 * calling.
 * @module
 */
import type { Client } from "openapi-fetch";
import { SvcError } from "./errors.js";
import type { paths } from "./generated/core-api.js";
import type { Page } from "./types.js";

/** The typed openapi-fetch client over core-api's `paths`. */
export type RawClient = Client<paths>;

/**
 * Awaits an openapi-fetch call and returns its `data`, or throws.
 * @throws SvcError for a non-2xx answer (from its body and `x-request-id`), `network_error`
 *   when there was no answer, `unexpected_response` when a success's body is not JSON.
 */
export async function unwrap<Data>(
  pending: Promise<{ data?: Data; error?: unknown; response: Response }>,
): Promise<Data> {
  let result: { data?: Data; error?: unknown; response: Response };
  try {
    result = await pending;
  } catch (error) {
    if (error instanceof SyntaxError) {
      throw new SvcError({
        code: "unexpected_response",
        message: `the answer's body is not JSON: ${error.message}`,
        status: 0,
        requestId: null,
        cause: error,
      });
    }
    throw error;
  }
  if (!result.response.ok) {
    throw SvcError.fromResponse(result.response, result.error);
  }
  return result.data as Data;
}

/** Pages from `start` on, following `nextCursor` until it is null. */
export async function* paginate<Item>(
  fetchPage: (cursor: string | undefined) => Promise<Page<Item>>,
  start: string | undefined,
): AsyncGenerator<Page<Item>, void, undefined> {
  let cursor = start;
  do {
    const page = await fetchPage(cursor);
    yield page;
    cursor = page.nextCursor ?? undefined;
  } while (cursor !== undefined);
}

/** @throws TypeError when `value` is not a string. */
export function requireString(value: unknown, name: string): asserts value is string {
  if (typeof value !== "string") {
    throw new TypeError(`${name} must be a string`);
  }
}
