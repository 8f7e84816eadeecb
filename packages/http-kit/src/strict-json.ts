/**
 * Strict JSON bodies (docs/protocol.md §1.2 "Requests"): a body whose object has the same key
 * twice, or whose `metadata` holds a number that a double does not carry exactly, is 400
 * `invalid_request` naming the path, before authentication and before any validator parses it.
 * One rule for every JSON body of both APIs, MCP over HTTP included; the scan itself is
 * `@verifiable-memory/memory-schemas`' `findStrictJsonRefusal`, which the stdio MCP server runs on
 * each line too.
 * @module
 */
import { findStrictJsonRefusal } from "@verifiable-memory/memory-schemas";
import type { MiddlewareHandler } from "hono";
import { ApiError } from "./errors.js";

/**
 * Checks the JSON text `text` (docs/protocol.md §1.2 "Requests"): no object holds the same key
 * twice, and every number under a member named `metadata` is exact. Text that is not JSON passes:
 * the validators' `JSON.parse` refuses it in its turn (400 `malformed request body`, after
 * authentication).
 * @throws ApiError invalid_request whose message starts with the path of the first duplicate key or
 *   inexact number (`items[1].metadata.size: …`) and whose details are `[{ path, message }]`.
 */
export function checkStrictJson(text: string): void {
  const refusal = findStrictJsonRefusal(text);
  if (refusal !== null) {
    throw new ApiError("invalid_request", refusal.text, [
      { path: refusal.path, message: refusal.message },
    ]);
  }
}

/**
 * Middleware applying {@link checkStrictJson} to every request body, as the body is read and
 * before authentication (bodies are JSON: the preceding `requireJsonBody` refuses others). The
 * text stays cached for the validators.
 */
export function strictJsonBody(): MiddlewareHandler {
  return async (c, next) => {
    const hasBody =
      Number(c.req.header("content-length") ?? "0") > 0 ||
      c.req.header("transfer-encoding") !== undefined;
    if (hasBody && c.req.method !== "GET" && c.req.method !== "HEAD") {
      checkStrictJson(await c.req.text());
    }
    await next();
  };
}
