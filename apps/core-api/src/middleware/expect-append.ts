/**
 * Announces a request's memory append to the group-commit queue before authentication, so the
 * batch being formed meanwhile holds for it (AppendQueue `expect`, at most its `maxHoldMs`)
 * instead of leaving without it. The route appends through `c.var.expectedAppend`; a request that
 * ends without appending (401, 400, an error) withdraws the announcement.
 * @module
 */

import type { AppendQueue } from "@verifiable-memory/memory";
import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../context.js";

/** Sets `c.var.expectedAppend` for the rest of the request; cancels it when the request ends. */
export function expectAppend(queue: AppendQueue): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const expected = queue.expect();
    c.set("expectedAppend", expected);
    try {
      await next();
    } finally {
      expected.cancel();
    }
  };
}
