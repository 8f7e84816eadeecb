/**
 * Limits of the Node HTTP server around an app, answered in the API's error shape: a request
 * whose headers exceed 16 KiB is 431, one that does not arrive completely within the request
 * timeout (30 s by default; Node's own default is 300 s, which lets a slow client hold a socket)
 * is 408. Node refuses both in its HTTP parser, before the app sees the request, so the answer
 * is written here on the socket, with a request id like every other response.
 * @module
 */
import { randomUUID } from "node:crypto";
import type { Server, ServerOptions } from "node:http";
import type { Duplex } from "node:stream";

/** How long a request (headers and body) may take to arrive, ms. */
export const REQUEST_TIMEOUT_MS = 30_000;
/** How long the headers may take to arrive, ms. */
export const HEADERS_TIMEOUT_MS = 20_000;

/** The parser errors answered here, and their status and body. */
const ANSWERS: Record<string, { status: number; reason: string; code: string; message: string }> = {
  HPE_HEADER_OVERFLOW: {
    status: 431,
    reason: "Request Header Fields Too Large",
    code: "headers_too_large",
    message: "request headers are limited to 16 KiB",
  },
  ERR_HTTP_REQUEST_TIMEOUT: {
    status: 408,
    reason: "Request Timeout",
    code: "request_timeout",
    message: "the request did not arrive in time",
  },
};

/**
 * Options of the Node server (`serve({ serverOptions })` of @hono/node-server): request and
 * header timeouts, checked every second (Node checks every 30 s by default, so a 30 s timeout
 * could hold a socket for a minute).
 */
export const SERVER_OPTIONS: ServerOptions = {
  requestTimeout: REQUEST_TIMEOUT_MS,
  headersTimeout: HEADERS_TIMEOUT_MS,
  connectionsCheckingInterval: 1_000,
};

/**
 * Answers the Node server's parser refusals (431 oversized headers, 408 request timeout) as JSON
 * `{ error: { code, message } }` with an `x-request-id`; any other client error closes the socket
 * with 400, as Node does.
 */
export function answerClientErrors(server: Server): void {
  server.on("clientError", (error: Error & { code?: string }, socket: Duplex) => {
    if (!socket.writable) {
      socket.destroy();
      return;
    }
    const answer = error.code ? ANSWERS[error.code] : undefined;
    const status = answer?.status ?? 400;
    const body = JSON.stringify({
      error: {
        code: answer?.code ?? "invalid_request",
        message: answer?.message ?? "malformed HTTP request",
      },
    });
    socket.end(
      `HTTP/1.1 ${status} ${answer?.reason ?? "Bad Request"}\r\n` +
        "content-type: application/json\r\n" +
        `content-length: ${Buffer.byteLength(body)}\r\n` +
        `x-request-id: ${randomUUID()}\r\n` +
        "connection: close\r\n\r\n" +
        body,
    );
  });
}
