/**
 * Request-body rules of docs/protocol.md §1: bodies must be JSON (else 415) and at most 256 KiB (else
 * 413), or the larger limit an app sets for one route (`POST /memories/batch`: 1 MiB). Malformed JSON
 * is rejected as 400 by the validators and the error handler.
 * @module
 */
import type { IncomingMessage } from "node:http";
import type { HttpBindings } from "@hono/node-server";
import type { MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import { ApiError } from "./errors.js";

/** The hono environment of an app served by @hono/node-server (absent under `app.request`). */
export interface NodeEnv {
  Bindings: Partial<HttpBindings>;
}

/** The request body limit in bytes. */
export const BODY_LIMIT_BYTES = 256 * 1024;

/**
 * Per-route body limits in bytes that replace {@link BODY_LIMIT_BYTES}, keyed by the upper-case
 * method and the exact path, e.g. `{ "POST /memories/batch": 1_048_576 }`.
 */
export type RouteBodyLimits = Readonly<Record<string, number>>;

/** 415 for a body whose Content-Type is not JSON. */
export function requireJsonBody<E extends NodeEnv>(): MiddlewareHandler<E> {
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

/** The 413 of docs/protocol.md §1, naming the limit that applied. */
function payloadTooLarge(limit: number): ApiError {
  return new ApiError("payload_too_large", `request bodies are limited to ${limit} bytes`);
}

/**
 * 413 past {@link BODY_LIMIT_BYTES}, or past the route's own limit in `routeLimits`. Served by @hono/node-server (`c.env.incoming`, the Node
 * request), the body is read from the Node stream once, counted as it arrives (a declared
 * Content-Length over the limit is refused before reading), and kept as text in
 * `c.req.bodyCache.text`, where hono's `c.req.json()` and `c.req.text()` (and so the validators)
 * look first: no web Request and ReadableStream are built for it. The bytes must be UTF-8 (BOM
 * stripped; anything malformed is a 400). Without a Node request (`app.request`), hono's
 * bodyLimit.
 * @throws ApiError payload_too_large (413); ApiError invalid_request for a body that is not UTF-8.
 */
export function limitBody<E extends NodeEnv>(
  routeLimits: RouteBodyLimits = {},
): MiddlewareHandler<E> {
  const webBodyLimits = new Map<number, MiddlewareHandler>();
  const webBodyLimit = (limit: number): MiddlewareHandler => {
    let middleware = webBodyLimits.get(limit);
    if (!middleware) {
      middleware = bodyLimit({
        maxSize: limit,
        onError: () => {
          throw payloadTooLarge(limit);
        },
      });
      webBodyLimits.set(limit, middleware);
    }
    return middleware;
  };
  return async (c, next) => {
    // A key always holds a space, so no Object.prototype member can match.
    const limit = routeLimits[`${c.req.method} ${c.req.path}`] ?? BODY_LIMIT_BYTES;
    const incoming = c.env?.incoming;
    if (!incoming) {
      return webBodyLimit(limit)(c, next);
    }
    if (c.req.method !== "GET" && c.req.method !== "HEAD") {
      const text = decodeUtf8(await readBody(incoming, limit));
      // hono keeps body promises in bodyCache (its declared type says values).
      (c.req.bodyCache as { text?: Promise<string> }).text = Promise.resolve(text);
    }
    await next();
  };
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * The body as text: UTF-8 decoded as fetch's `Request.text()` does (a leading BOM dropped), but
 * refused instead of repaired when it is not valid UTF-8, so what is stored (and committed in a
 * leaf) is never a U+FFFD substitute for what the client sent.
 * @throws ApiError invalid_request for bytes that are not UTF-8.
 */
function decodeUtf8(bytes: Buffer): string {
  try {
    return utf8.decode(bytes);
  } catch {
    throw new ApiError("invalid_request", "the request body is not valid UTF-8");
  }
}

/**
 * The whole body of `incoming`, at most `limit` bytes. On a refusal the rest is left unread
 * (@hono/node-server drains it once the response is sent).
 * @throws ApiError payload_too_large past the limit (declared or counted).
 * @throws ApiError invalid_request when the body breaks off (the client went away); the answer
 *   then usually has nowhere to go, but the request is logged as the client's failure, not ours.
 */
function readBody(incoming: IncomingMessage, limit: number): Promise<Buffer> {
  if (Number(incoming.headers["content-length"]) > limit) {
    return Promise.reject(payloadTooLarge(limit));
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
      if (size > limit) {
        stop();
        incoming.pause();
        reject(payloadTooLarge(limit));
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
