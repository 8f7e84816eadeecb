/**
 * The server's own refusals in the API's error shape: headers over 16 KiB → 431 JSON with a
 * request id (not Node's bare answer), a request whose body stops arriving → 408 once the request
 * timeout passes (30 s by default, here 1 s), instead of holding the socket for Node's 300 s.
 */

import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { connect } from "node:net";
import { serve } from "@hono/node-server";
import { Hono } from "hono";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { answerClientErrors, REQUEST_TIMEOUT_MS, SERVER_OPTIONS } from "../src/server-limits.js";

let server: Server;
let port: number;

beforeAll(async () => {
  const app = new Hono();
  app.post("/echo", async (c) => c.json({ length: (await c.req.text()).length }));
  app.get("/", (c) => c.json({ ok: true }));
  server = serve({
    fetch: app.fetch,
    port: 0,
    hostname: "127.0.0.1",
    serverOptions: {
      ...SERVER_OPTIONS,
      requestTimeout: 1000,
      headersTimeout: 1000,
      connectionsCheckingInterval: 100,
    },
  }) as Server;
  answerClientErrors(server);
  await new Promise<void>((resolve) => server.once("listening", () => resolve()));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

/** Sends raw bytes and returns everything the server answers until it closes the socket. */
function rawExchange(request: string, keepOpenMs = 0): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1");
    const chunks: Buffer[] = [];
    socket.on("data", (c) => chunks.push(c));
    socket.on("close", () => resolve(Buffer.concat(chunks).toString("utf8")));
    socket.on("error", reject);
    socket.write(request);
    if (keepOpenMs === 0) {
      return;
    }
    setTimeout(() => socket.destroy(), keepOpenMs);
  });
}

describe("server limits", () => {
  it("keeps a default request timeout of at most 30 s, checked every second", () => {
    expect(REQUEST_TIMEOUT_MS).toBeLessThanOrEqual(30_000);
    expect(SERVER_OPTIONS.requestTimeout).toBe(REQUEST_TIMEOUT_MS);
    expect(SERVER_OPTIONS.connectionsCheckingInterval).toBeLessThanOrEqual(1_000);
  });

  it("answers headers over 16 KiB with 431 in the error shape and a request id", async () => {
    const answer = await rawExchange(
      `GET / HTTP/1.1\r\nhost: x\r\nx-big: ${"a".repeat(17 * 1024)}\r\n\r\n`,
    );
    const [head, body] = answer.split("\r\n\r\n");
    expect(head).toMatch(/^HTTP\/1\.1 431 /);
    expect(head).toMatch(/x-request-id: [0-9a-f-]{36}/);
    expect(JSON.parse(body as string)).toEqual({
      error: { code: "headers_too_large", message: "request headers are limited to 16 KiB" },
    });
  });

  it("answers a body that stops arriving with 408 after the request timeout", async () => {
    const started = Date.now();
    const answer = await rawExchange(
      'POST /echo HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{"a":',
      10_000,
    );
    const elapsed = Date.now() - started;
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    expect(answer).toContain('"code":"request_timeout"');
    expect(elapsed).toBeLessThan(9_000);
  });

  it("serves ordinary requests", async () => {
    const res = await fetch(`http://127.0.0.1:${port}/`);
    expect(await res.json()).toEqual({ ok: true });
  });
});
