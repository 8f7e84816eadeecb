/**
 * Request-body rules of CONTRACT §1: bodies must be JSON (else 415) and at most 256 KiB (else
 * 413). Malformed JSON is rejected as 400 by the validators and the error handler.
 * @module
 */
import type { IncomingMessage } from "node:http";
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

/** The 413 of CONTRACT §1. */
function payloadTooLarge(): ApiError {
  return new ApiError(
    "payload_too_large",
    `request bodies are limited to ${BODY_LIMIT_BYTES} bytes`,
  );
}

/**
 * 413 past {@link BODY_LIMIT_BYTES}. Served by @hono/node-server (`c.env.incoming`, the Node
 * request), the body is read from the Node stream once, counted as it arrives (a declared
 * Content-Length over the limit is refused before reading), and kept as text in
 * `c.req.bodyCache.text`, where hono's `c.req.json()` and `c.req.text()` (and so the validators)
 * look first: no web Request and ReadableStream are built for it. UTF-8 is decoded as fetch's
 * `Request.text()` does (BOM stripped, malformed bytes replaced). Without a Node request
 * (`app.request`), hono's bodyLimit.
 * @throws ApiError payload_too_large (413).
 */
export function limitBody(): MiddlewareHandler<AppEnv> {
  const webBodyLimit = bodyLimit({
    maxSize: BODY_LIMIT_BYTES,
    onError: () => {
      throw payloadTooLarge();
    },
  });
  return async (c, next) => {
    const incoming = c.env?.incoming;
    if (!incoming) {
      return webBodyLimit(c, next);
    }
    if (c.req.method !== "GET" && c.req.method !== "HEAD") {
      const text = utf8.decode(await readBody(incoming));
      // hono keeps body promises in bodyCache (its declared type says values).
      (c.req.bodyCache as { text?: Promise<string> }).text = Promise.resolve(text);
    }
    await next();
  };
}

const utf8 = new TextDecoder();

/**
 * The whole body of `incoming`, at most {@link BODY_LIMIT_BYTES}. On a refusal the rest is left
 * unread (@hono/node-server drains it once the response is sent).
 * @throws ApiError payload_too_large past the limit (declared or counted).
 * @throws ApiError invalid_request when the body breaks off (the client went away); the answer
 *   then usually has nowhere to go, but the request is logged as the client's failure, not ours.
 */
function readBody(incoming: IncomingMessage): Promise<Buffer> {
  if (Number(incoming.headers["content-length"]) > BODY_LIMIT_BYTES) {
    return Promise.reject(payloadTooLarge());
  }
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const stop = () => {
      incoming.off("data", onData);
      incoming.off("end", onEnd);
      incoming.off("error", brokenOff);
      incoming.off("close", brokenOff);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > BODY_LIMIT_BYTES) {
        stop();
        incoming.pause();
        reject(payloadTooLarge());
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      stop();
      resolve(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size));
    };
    const brokenOff = () => {
      stop();
      reject(new ApiError("invalid_request", "the request body ended before it was complete"));
    };
    incoming.on("data", onData);
    incoming.on("end", onEnd);
    incoming.on("error", brokenOff);
    incoming.on("close", brokenOff);
  });
}
