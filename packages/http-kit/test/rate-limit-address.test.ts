/**
 * The unauthenticated limit's address key (docs/protocol.md §12 "Rate limits"): IPv6 clients are
 * counted per /64 and IPv4-mapped addresses as IPv4, on a kit app through `app.request` with the
 * socket's peer address as @hono/node-server passes it.
 */
import type { IncomingMessage } from "node:http";
import type { OpenAPIHono } from "@hono/zod-openapi";
import pino from "pino";
import { describe, expect, it } from "vitest";
import {
  type BaseErrorCode,
  createApiApp,
  createErrorHandler,
  limitPerClientIp,
  type NodeEnv,
  publishApiApp,
  type RateLimitEnv,
  RateLimits,
  type RequestIdEnv,
  rateLimitAddressKey,
} from "../src/index.js";

type Env = RequestIdEnv & NodeEnv & RateLimitEnv;

describe("rateLimitAddressKey", () => {
  it.each([
    ["203.0.113.9", "203.0.113.9"],
    ["::ffff:203.0.113.9", "203.0.113.9"],
    ["::FFFF:cb00:7109", "203.0.113.9"],
    ["0:0:0:0:0:ffff:203.0.113.9", "203.0.113.9"],
    ["2001:db8:0:1::1", "2001:db8:0:1::/64"],
    ["2001:db8:0:1:ffff:ffff:ffff:ffff", "2001:db8:0:1::/64"],
    ["2001:0db8:0000:0001:aaaa::", "2001:db8:0:1::/64"],
    ["fe80::1%eth0", "fe80:0:0:0::/64"],
    ["::1", "0:0:0:0::/64"],
    ["::", "0:0:0:0::/64"],
    ["2001:db8::203.0.113.9", "2001:db8:0:0::/64"],
    ["not an address", "not an address"],
  ])("%s → %s", (address, key) => {
    expect(rateLimitAddressKey(address)).toBe(key);
  });
});

describe("the per-address limit", () => {
  const logger = pino({ level: "silent" });
  const app = createApiApp<Env>({
    logger,
    cors: (_c, next) => next(),
    rateLimits: new RateLimits({
      anonymousPerMinute: 2,
      authenticatedPerMinute: 0,
      trustProxy: false,
    }),
  });
  app.get("/public", limitPerClientIp<Env>(), (c) => c.json({ ok: true }, 200));
  publishApiApp(app, {
    title: "Limited API",
    description: "rate limits",
    securityScheme: { name: "bearer", description: "a token" },
    serverUrl: "http://localhost:1",
    onError: createErrorHandler<BaseErrorCode>({
      logger,
      codeToStatus: (code) => (code === "rate_limited" ? 429 : 500),
    }),
  });
  const from = (ip: string) =>
    Promise.resolve(
      (app as OpenAPIHono<Env>).request(
        "/public",
        {},
        {
          incoming: { socket: { remoteAddress: ip } } as unknown as IncomingMessage,
        },
      ),
    ).then((res) => res.status);

  it("counts every address of one /64 together, and another /64 apart", async () => {
    expect(await from("2001:db8:0:7::1")).toBe(200);
    expect(await from("2001:db8:0:7::2")).toBe(200);
    expect(await from("2001:db8:0:7:abcd::9")).toBe(429);
    expect(await from("2001:db8:0:8::1")).toBe(200);
  });

  it("counts an IPv4-mapped address with its IPv4 address", async () => {
    expect(await from("198.51.100.4")).toBe(200);
    expect(await from("::ffff:198.51.100.4")).toBe(200);
    expect(await from("198.51.100.4")).toBe(429);
  });
});
