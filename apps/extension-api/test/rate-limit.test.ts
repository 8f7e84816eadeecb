/**
 * Built-in rate limits of the extension API (docs/protocol.md §12), over real sockets against a real app
 * and PostgreSQL: the connect routes (`GET /connect`, `POST /connect/challenge`,
 * `POST /connect/verify`) share one count per client IP, the authenticated routes one count per
 * extension session; 429 `rate_limited` with `Retry-After` and the request id; health, readiness,
 * `/docs` and `/openapi.json` are never limited; the variables are validated; the OpenAPI
 * document lists each 429.
 * @module
 */
import { ConfigError } from "@verifiable-memory/app-config";
import { expectRateLimited, send } from "@verifiable-memory/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../src/env.js";
import {
  bearer,
  connect,
  EXTENSION_TEST_ENV,
  newWallet,
  REDIRECT_URI,
  startExtensionApp,
  type TestExtensionApp,
} from "./helpers.js";

describe("the connect routes", () => {
  let t: TestExtensionApp;
  beforeAll(async () => {
    t = await startExtensionApp({ env: { RATE_LIMIT_ANONYMOUS_PER_MINUTE: "4" } });
  });
  afterAll(async () => {
    await t?.close();
  });

  it("count failed tokens against the client address", async () => {
    const bad = { authorization: "Bearer not-a-token" };
    for (let i = 0; i < 4; i++) {
      expect((await send("127.0.0.5", `${t.url}/me`, { headers: bad })).status).toBe(401);
    }
    expectRateLimited(await send("127.0.0.5", `${t.url}/me`, { headers: bad }));
    expect((await send("127.0.0.6", `${t.url}/me`, { headers: bad })).status).toBe(401);
  });

  it("share one count per client IP: page, challenge and verify answer 429 past it", async () => {
    const from = "127.0.0.1";
    const page = () =>
      send(from, `${t.url}/connect?redirect_uri=${encodeURIComponent(REDIRECT_URI)}`);
    const wallet = newWallet();
    const challenge = () =>
      send(from, `${t.url}/connect/challenge`, {
        body: { publicKey: wallet.publicKey, redirectUri: REDIRECT_URI },
      });
    expect((await page()).status).toBe(200);
    const issued = await challenge();
    expect(issued.status).toBe(200);
    const message = (issued.body as unknown as { message: string }).message;
    const verify = () =>
      send(from, `${t.url}/connect/verify`, {
        body: {
          publicKey: wallet.publicKey,
          message,
          signature: wallet.sign(message),
          redirectUri: REDIRECT_URI,
        },
      });
    expect((await verify()).status).toBe(200);
    expect((await page()).status).toBe(200);

    expectRateLimited(await page());
    expectRateLimited(await challenge());
    expectRateLimited(await verify());
    // Another address is not limited.
    expect(
      (
        await send("127.0.0.2", `${t.url}/connect/challenge`, {
          body: { publicKey: wallet.publicKey, redirectUri: REDIRECT_URI },
        })
      ).status,
    ).toBe(200);
    // Nor are health, readiness and the documentation.
    for (const path of ["/healthz", "/readyz", "/docs", "/openapi.json"]) {
      for (let i = 0; i < 6; i++) {
        expect((await send(from, `${t.url}${path}`)).status, path).toBe(200);
      }
    }
  });
});

describe("the authenticated routes", () => {
  let t: TestExtensionApp;
  beforeAll(async () => {
    t = await startExtensionApp({
      env: { RATE_LIMIT_ANONYMOUS_PER_MINUTE: "0", RATE_LIMIT_AUTHENTICATED_PER_MINUTE: "3" },
    });
  });
  afterAll(async () => {
    await t?.close();
  });

  it("count each extension session on its own", async () => {
    const first = await connect(t.url, newWallet());
    const second = await connect(t.url, newWallet());
    const me = (token: string) => send("127.0.0.1", `${t.url}/me`, { headers: bearer(token) });
    for (let i = 0; i < 3; i++) {
      expect((await me(first.token)).status).toBe(200);
    }
    expectRateLimited(await me(first.token));
    expect((await me(second.token)).status).toBe(200);
  });
});

describe("configuration", () => {
  it("defaults to 60 a minute per IP, 1200 per session, X-Forwarded-For not trusted; 0 allowed", () => {
    const env = {
      ...EXTENSION_TEST_ENV,
      RATE_LIMIT_ANONYMOUS_PER_MINUTE: undefined,
      RATE_LIMIT_AUTHENTICATED_PER_MINUTE: undefined,
    };
    const config = loadConfig(env);
    expect(config.rateLimits).toEqual({ anonymousPerMinute: 60, authenticatedPerMinute: 1200 });
    expect(config.trustProxy).toBe(false);
    const set = loadConfig({
      ...env,
      RATE_LIMIT_ANONYMOUS_PER_MINUTE: "0",
      RATE_LIMIT_AUTHENTICATED_PER_MINUTE: "",
      TRUST_PROXY: "true",
    });
    expect(set.rateLimits).toEqual({ anonymousPerMinute: 0, authenticatedPerMinute: 1200 });
    expect(set.trustProxy).toBe(true);
  });

  it.each([
    ["RATE_LIMIT_ANONYMOUS_PER_MINUTE", "-5"],
    ["RATE_LIMIT_AUTHENTICATED_PER_MINUTE", "1e3"],
    ["TRUST_PROXY", "1"],
  ])("refuses %s=%s naming it", (variable, value) => {
    let error: unknown;
    try {
      loadConfig({ ...EXTENSION_TEST_ENV, [variable]: value });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).variables).toEqual([variable]);
  });
});

describe("the OpenAPI document", () => {
  let t: TestExtensionApp;
  beforeAll(async () => {
    t = await startExtensionApp();
  });
  afterAll(async () => {
    await t?.close();
  });

  it("lists 429 with Retry-After on the connect routes and every authenticated route", async () => {
    const doc = (await (await fetch(`${t.url}/openapi.json`)).json()) as {
      paths: Record<
        string,
        Record<
          string,
          { security?: unknown[]; responses: Record<string, { headers?: Record<string, unknown> }> }
        >
      >;
    };
    const anonymous = ["GET /connect", "POST /connect/challenge", "POST /connect/verify"];
    for (const [path, operations] of Object.entries(doc.paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        const label = `${method.toUpperCase()} ${path}`;
        if ((operation.security ?? []).length > 0 || anonymous.includes(label)) {
          expect(operation.responses["429"]?.headers, label).toHaveProperty("Retry-After");
        } else {
          expect(operation.responses["429"], label).toBeUndefined();
        }
      }
    }
  });
});
