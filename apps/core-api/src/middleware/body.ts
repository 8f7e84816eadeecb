/**
 * Request-body rules of CONTRACT §1: bodies must be JSON (else 415) and at most 256 KiB (else
 * 413). Malformed JSON is rejected as 400 by the validators and the error handler.
 * @module
 */
import type { MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import type { AppEnv } from "../context.js";
import { ApiError } from "../errors.js";

/** The request body limit in bytes. */
export const BODY_LIMIT_BYTES = 256 * 1024;

/** 415 for a body whose Content-Type is not JSON. */
export function requireJsonBody(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const hasBody =
      Number(c.req.header("content-length") ?? "0") > 0 ||
      c.req.header("transfer-encoding") !== undefined;
    if (hasBody) {
      const type = (c.req.header("content-type") ?? "").split(";")[0]?.trim().toLowerCase();
      if (type !== "application/json" && !type?.endsWith("+json")) {
        throw new ApiError("unsupported_media_type", "request bodies must be application/json");
      }
    }
    await next();
  };
}

/** 413 past {@link BODY_LIMIT_BYTES}. */
export function limitBody(): MiddlewareHandler<AppEnv> {
  return bodyLimit({
    maxSize: BODY_LIMIT_BYTES,
    onError: () => {
      throw new ApiError(
        "payload_too_large",
        `request bodies are limited to ${BODY_LIMIT_BYTES} bytes`,
      );
    },
  });
}
