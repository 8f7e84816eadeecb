/**
 * Built-in rate limits of the core API (docs/protocol.md §12), over real sockets against a real app and
 * PostgreSQL: the unauthenticated routes (sign-in challenge and verify, anonymous grant use, the
 * public consistency proof) are
 * limited per client IP — the socket's address, each 127.0.0.x being its own client, unless
 * TRUST_PROXY makes X-Forwarded-For count — and answer 429 `rate_limited` with `Retry-After` and
 * the request id; authenticated routes are limited per credential (each API key on its own, a
 * wallet's sessions together); `0` turns a limit off; health, readiness, `/docs` and
 * `/openapi.json` are never limited; the configuration is validated; the OpenAPI document lists
 * the 429 of every limited route.
 * @module
 */
import { randomBytes } from "node:crypto";
import bs58 from "bs58";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../src/env.js";
import {
  expectRateLimited,
  mintApiKey,
  newUser,
  newWallet,
  send,
  signIn,
  startTestApp,
  TEST_ENV,
  type TestApp,
} from "./helpers.js";

/** A sign-in challenge for a fresh wallet, sent from `from`. */
function challenge(t: TestApp, from: string, headers: Record<string, string> = {}) {
  return send(from, `${t.url}/auth/challenge`, {
    body: { publicKey: newWallet().publicKey },
    headers,
  });
}

describe("the per-IP limit of the unauthenticated routes", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({
      env: { RATE_LIMIT_ANONYMOUS_PER_MINUTE: "5", RATE_LIMIT_AUTHENTICATED_PER_MINUTE: "0" },
    });
  });
  afterAll(async () => {
    await t?.close();
  });

  it("answers a burst of sign-in challenges from one IP with 429 past the limit; another IP is not limited", async () => {
    for (let i = 0; i < 5; i++) {
      expect((await challenge(t, "127.0.0.1")).status).toBe(200);
    }
    const limited = await challenge(t, "127.0.0.1", { "x-request-id": "burst-6" });
    expectRateLimited(limited);
    expect(limited.headers["x-request-id"]).toBe("burst-6");
    expect(limited.body?.error?.details).toMatchObject({ limit: 5, windowSeconds: 60 });
    expect((await challenge(t, "127.0.0.2")).status).toBe(200);
  });

  it("counts sign-in verify and anonymous grant use with the challenges, and a refused use leaves no audit row", async () => {
    const audits = async () =>
      Number((await t.sql<{ n: string }[]>`select count(*) as n from grant_audit`)[0]?.n);
    const from = "127.0.0.3";
    const unknownGrant = () => send(from, `${t.url}/agent-cases/${bs58.encode(randomBytes(32))}`);
    expect((await challenge(t, from)).status).toBe(200);
    const wallet = newWallet();
    const issued = await send(from, `${t.url}/auth/challenge`, {
      body: { publicKey: wallet.publicKey },
    });
    const message = (issued.body as unknown as { message: string }).message;
    const verify = () =>
      send(from, `${t.url}/auth/verify`, {
        body: { publicKey: wallet.publicKey, message, signature: wallet.sign(message) },
      });
    expect((await verify()).status).toBe(200);
    expect((await unknownGrant()).status).toBe(404);
    expect((await unknownGrant()).status).toBe(404);
    const before = await audits();
    expectRateLimited(await verify());
    expectRateLimited(await challenge(t, from));
    expectRateLimited(await unknownGrant());
    expect(await audits()).toBe(before);
  });

  it("counts the public consistency route with the challenges, before validation", async () => {
    const from = "127.0.0.6";
    const consistency = (query: string) =>
      send(from, `${t.url}/owners/${newWallet().publicKey}/consistency?${query}`);
    expect((await challenge(t, from)).status).toBe(200);
    expect((await consistency("from=1&to=1")).status).toBe(404);
    expect((await consistency("from=0&to=1")).status).toBe(400);
    expect((await challenge(t, from)).status).toBe(200);
    expect((await consistency("from=1&to=1")).status).toBe(404);
    expectRateLimited(await consistency("from=1&to=1"));
    expectRateLimited(await consistency("from=0&to=1"));
    expectRateLimited(await challenge(t, from));
    expect(
      (await send("127.0.0.7", `${t.url}/owners/${newWallet().publicKey}/consistency?from=1&to=1`))
        .status,
    ).toBe(404);
  });

  it("ignores X-Forwarded-For when TRUST_PROXY is off", async () => {
    const from = "127.0.0.4";
    for (let i = 0; i < 5; i++) {
      const res = await challenge(t, from, { "x-forwarded-for": `203.0.113.${i + 1}` });
      expect(res.status).toBe(200);
    }
    expectRateLimited(await challenge(t, from, { "x-forwarded-for": "203.0.113.99" }));
  });

  it("never limits health, readiness, /docs and /openapi.json", async () => {
    const from = "127.0.0.5";
    for (let i = 0; i < 5; i++) {
      await challenge(t, from);
    }
    expectRateLimited(await challenge(t, from));
    for (let i = 0; i < 10; i++) {
      for (const path of ["/healthz", "/readyz", "/docs", "/openapi.json"]) {
        expect((await send(from, `${t.url}${path}`)).status, path).toBe(200);
      }
    }
  });
});

describe("TRUST_PROXY=true", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({
      env: { RATE_LIMIT_ANONYMOUS_PER_MINUTE: "2", TRUST_PROXY: "true" },
    });
  });
  afterAll(async () => {
    await t?.close();
  });

  it("counts per first X-Forwarded-For address, and audits a grant use from that address", async () => {
    const proxy = "127.0.0.1";
    const as = (client: string) =>
      challenge(t, proxy, { "x-forwarded-for": `${client}, ${proxy}` });
    expect((await as("203.0.113.1")).status).toBe(200);
    expect((await as("203.0.113.1")).status).toBe(200);
    expectRateLimited(await as("203.0.113.1"));
    expect((await as("203.0.113.2")).status).toBe(200);

    const token = bs58.encode(randomBytes(32));
    const use = await send(proxy, `${t.url}/agent-cases/${token}`, {
      headers: { "x-forwarded-for": "198.51.100.7" },
    });
    expect(use.status).toBe(404);
    const [row] = await t.sql<{ ip: string }[]>`
      select ip from grant_audit where grant_id is null order by id desc limit 1`;
    expect(row?.ip).toBe("198.51.100.7");
  });
});

describe("the per-credential limit of the authenticated routes", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({
      env: { RATE_LIMIT_ANONYMOUS_PER_MINUTE: "0", RATE_LIMIT_AUTHENTICATED_PER_MINUTE: "4" },
    });
  });
  afterAll(async () => {
    await t?.close();
  });

  it("counts each API key on its own and a wallet's sessions together", async () => {
    const user = await newUser(t.url);
    // Two session requests: the two keys.
    const keyA = await mintApiKey(t.url, user.token, "a");
    const keyB = await mintApiKey(t.url, user.token, "b");
    const list = (token: string) =>
      send("127.0.0.1", `${t.url}/memories`, { headers: { authorization: `Bearer ${token}` } });

    for (let i = 0; i < 4; i++) {
      expect((await list(keyA)).status).toBe(200);
    }
    expectRateLimited(await list(keyA));
    // Another key of the same user, from the same address: its own count.
    expect((await list(keyB)).status).toBe(200);
    // From another address the key is still limited: the count is the credential's.
    expectRateLimited(
      await send("127.0.0.2", `${t.url}/memories`, {
        headers: { authorization: `Bearer ${keyA}` },
      }),
    );

    // The session has two requests left; a new session of the same wallet shares them.
    expect((await list(user.token)).status).toBe(200);
    t.clock.advance(1000); // a later `iat`: another token
    const again = await signIn(t.url, user.wallet);
    expect(again.token).not.toBe(user.token);
    expect((await list(again.token)).status).toBe(200);
    expectRateLimited(await list(user.token));
    expectRateLimited(await list(again.token));

    // Another user is not affected.
    const other = await newUser(t.url);
    expect((await list(other.token)).status).toBe(200);
  });

  it("answers 401 to a missing or bad credential when the per-address limit is off", async () => {
    for (let i = 0; i < 6; i++) {
      const res = await send("127.0.0.1", `${t.url}/memories`, {
        headers: { authorization: "Bearer svc_not-a-key" },
      });
      expect(res.status).toBe(401);
    }
  });
});

describe("failed credentials", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({
      env: { RATE_LIMIT_ANONYMOUS_PER_MINUTE: "3", RATE_LIMIT_AUTHENTICATED_PER_MINUTE: "0" },
    });
  });
  afterAll(async () => {
    await t?.close();
  });

  it("count against the client address, so guessing keys is limited; valid keys are not", async () => {
    const user = await newUser(t.url);
    const key = await mintApiKey(t.url, user.token, "good");
    const bad = { authorization: "Bearer svc_not-a-key" };
    // newUser's challenge and verify used 2 of the 3 points of 127.0.0.1; use another address.
    for (let i = 0; i < 3; i++) {
      expect((await send("127.0.0.3", `${t.url}/memories`, { headers: bad })).status).toBe(401);
    }
    expectRateLimited(await send("127.0.0.3", `${t.url}/memories`, { headers: bad }));
    expectRateLimited(await send("127.0.0.3", `${t.url}/memories`));
    expect((await send("127.0.0.4", `${t.url}/memories`, { headers: bad })).status).toBe(401);
    const good = await send("127.0.0.3", `${t.url}/memories`, {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(good.status).toBe(200);
  });
});

describe("a limit of 0", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({
      env: { RATE_LIMIT_ANONYMOUS_PER_MINUTE: "0", RATE_LIMIT_AUTHENTICATED_PER_MINUTE: "0" },
    });
  });
  afterAll(async () => {
    await t?.close();
  });

  it("turns the limit off", async () => {
    const user = await newUser(t.url);
    for (let i = 0; i < 150; i++) {
      expect((await challenge(t, "127.0.0.1")).status).toBe(200);
      const listed = await send("127.0.0.1", `${t.url}/memories?limit=1`, {
        headers: user.headers,
      });
      expect(listed.status).toBe(200);
    }
  });
});

describe("configuration", () => {
  it("defaults to 60 a minute per IP, 1200 per credential, X-Forwarded-For not trusted", () => {
    const { RATE_LIMIT_ANONYMOUS_PER_MINUTE, RATE_LIMIT_AUTHENTICATED_PER_MINUTE, ...env } =
      TEST_ENV;
    const config = loadConfig(env);
    expect(config.rateLimits).toEqual({
      anonymousPerMinute: 60,
      authenticatedPerMinute: 1200,
      tlogPerMinute: 6000,
    });
    expect(config.trustProxy).toBe(false);
    const set = loadConfig({
      ...env,
      RATE_LIMIT_ANONYMOUS_PER_MINUTE: "0",
      RATE_LIMIT_AUTHENTICATED_PER_MINUTE: "5000",
      RATE_LIMIT_TLOG_PER_MINUTE: "0",
      TRUST_PROXY: "TRUE",
    });
    expect(set.rateLimits).toEqual({
      anonymousPerMinute: 0,
      authenticatedPerMinute: 5000,
      tlogPerMinute: 0,
    });
    expect(set.trustProxy).toBe(true);
  });

  it.each([
    ["RATE_LIMIT_ANONYMOUS_PER_MINUTE", "-1"],
    ["RATE_LIMIT_ANONYMOUS_PER_MINUTE", "1.5"],
    ["RATE_LIMIT_AUTHENTICATED_PER_MINUTE", "lots"],
    ["RATE_LIMIT_AUTHENTICATED_PER_MINUTE", "2000000"],
    ["TRUST_PROXY", "yes"],
  ])("refuses %s=%s naming it", (variable, value) => {
    let error: unknown;
    try {
      loadConfig({ ...TEST_ENV, [variable]: value });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).variables).toEqual([variable]);
  });
});

describe("the OpenAPI document", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => {
    await t?.close();
  });

  it("lists 429 with Retry-After on every limited route and on no unlimited one", async () => {
    const doc = (await (await fetch(`${t.url}/openapi.json`)).json()) as {
      paths: Record<
        string,
        Record<
          string,
          { security?: unknown[]; responses: Record<string, { headers?: Record<string, unknown> }> }
        >
      >;
    };
    const anonymous = [
      "POST /auth/challenge",
      "POST /auth/verify",
      "GET /agent-cases/{grant}",
      "GET /owners/{owner}/consistency",
      "GET /owners/{owner}/checkpoint",
      // Its own per-IP limit (RATE_LIMIT_TLOG_PER_MINUTE), docs/protocol.md §12.
      "GET /tlog/consistency",
    ];
    let limited = 0;
    for (const [path, operations] of Object.entries(doc.paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        const label = `${method.toUpperCase()} ${path}`;
        const isLimited = (operation.security ?? []).length > 0 || anonymous.includes(label);
        if (isLimited) {
          limited++;
          expect(operation.responses["429"]?.headers, label).toHaveProperty("Retry-After");
        } else {
          expect(operation.responses["429"], label).toBeUndefined();
        }
      }
    }
    expect(limited).toBeGreaterThan(anonymous.length);
  });
});
