/**
 * The connect flow and extension tokens over real HTTP (docs/protocol.md §9, §3): the five
 * sign-in checks, redirect URI refusal on all three entry points, token storage, lifetime,
 * revocation, and the single winner of two verifications of one signature.
 * @module
 */
import { createHash } from "node:crypto";
import { issueChallenge } from "@verifiable-memory/auth";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  bearer,
  callAt,
  connect,
  newWallet,
  REDIRECT_URI,
  request,
  startExtensionApp,
  type TestExtensionApp,
} from "./helpers.js";

let t: TestExtensionApp;

beforeAll(async () => {
  t = await startExtensionApp();
});
afterAll(async () => {
  await t.close();
});

/** A challenge for `wallet` at `redirectUri`. */
async function challengeFor(wallet: ReturnType<typeof newWallet>, redirectUri = REDIRECT_URI) {
  const res = await callAt<{ message: string; nonce: string; expiresAt: string }>(
    t.app,
    "/connect/challenge",
    { body: { publicKey: wallet.publicKey, redirectUri } },
  );
  expect(res.status).toBe(200);
  return res.body;
}

const NOT_EXTENSION_PAGES = [
  "https://evil.example/cb",
  "http://localhost:8788/connect",
  "javascript:alert(1)",
  "chrome-extension://short/cb.html",
  "chrome-extension://abcdefghijklmnopabcdefghijklmnoq/cb.html",
  "chrome-extension://ABCDEFGHIJKLMNOPABCDEFGHIJKLMNOP/cb.html",
  "chrome-extension://abcdefghijklmnopabcdefghijklmnop",
  "chrome-extension://abcdefghijklmnopabcdefghijklmnop.evil.example/cb.html",
  "chrome-extension://abcdefghijklmnopabcdefghijklmnop/cb.html#token=x",
  "moz-extension://abcdefghijklmnopabcdefghijklmnop/cb.html",
  " chrome-extension://abcdefghijklmnopabcdefghijklmnop/cb.html",
];

describe("connect", () => {
  it("signs in, returns a token in the redirect fragment, and GET /me names the wallet", async () => {
    const wallet = newWallet();
    const challenge = await challengeFor(wallet);
    expect(challenge.message.split("\n")[0]).toBe(
      "localhost:8788 wants you to sign in with your Solana account:",
    );
    expect(challenge.message).toContain("URI: http://localhost:8788\n");
    const res = await callAt<{ token: string; expiresAt: string; redirectTo: string }>(
      t.app,
      "/connect/verify",
      {
        body: {
          publicKey: wallet.publicKey,
          message: challenge.message,
          signature: wallet.sign(challenge.message),
          redirectUri: REDIRECT_URI,
          state: "s-123",
        },
      },
    );
    expect(res.status).toBe(200);
    const { token, expiresAt, redirectTo } = res.body;
    expect(token).toMatch(/^[1-9A-HJ-NP-Za-km-z]{40,44}$/);
    expect(expiresAt).toBe(new Date(t.clock.now().getTime() + 30 * 86_400_000).toISOString());
    expect(redirectTo).toBe(`${REDIRECT_URI}#token=${token}&state=s-123`);

    const me = await callAt(t.app, "/me", { headers: bearer(token) });
    expect(me.status).toBe(200);
    expect(me.body).toEqual({
      userId: expect.any(String),
      publicKey: wallet.publicKey,
      tokenExpiresAt: expiresAt,
    });
  });

  it("omits state from the fragment when none was given", async () => {
    const { token, redirectTo } = await connect(t.app, newWallet());
    expect(redirectTo).toBe(`${REDIRECT_URI}#token=${token}`);
  });

  it("stores only the SHA-256 of the token", async () => {
    const { token } = await connect(t.app, newWallet());
    const rows = await t.db.execute<{ token_hash: Buffer }>(
      "select token_hash from extension_sessions",
    );
    const hashes = rows.map((r) => Buffer.from(r.token_hash).toString("hex"));
    expect(hashes).toContain(createHash("sha256").update(token).digest("hex"));
    const dump = JSON.stringify(await t.db.execute("select * from extension_sessions"));
    expect(dump).not.toContain(token);
  });

  it("refuses a replayed signature (401 nonce_not_found)", async () => {
    const wallet = newWallet();
    const challenge = await challengeFor(wallet);
    const body = {
      publicKey: wallet.publicKey,
      message: challenge.message,
      signature: wallet.sign(challenge.message),
      redirectUri: REDIRECT_URI,
    };
    expect((await callAt(t.app, "/connect/verify", { body })).status).toBe(200);
    const replay = await callAt<{ error: { code: string } }>(t.app, "/connect/verify", { body });
    expect(replay.status).toBe(401);
    expect(replay.body.error.code).toBe("nonce_not_found");
  });

  it("lets exactly one of two concurrent verifications of one signature win", async () => {
    const wallet = newWallet();
    const challenge = await challengeFor(wallet);
    const body = {
      publicKey: wallet.publicKey,
      message: challenge.message,
      signature: wallet.sign(challenge.message),
      redirectUri: REDIRECT_URI,
    };
    const results = await Promise.all(
      Array.from({ length: 8 }, () => callAt(t.app, "/connect/verify", { body })),
    );
    expect(results.map((r) => r.status).sort()).toEqual([200, 401, 401, 401, 401, 401, 401, 401]);
  });

  it("refuses a signature by another key (401 invalid_signature)", async () => {
    const wallet = newWallet();
    const challenge = await challengeFor(wallet);
    const res = await callAt<{ error: { code: string } }>(t.app, "/connect/verify", {
      body: {
        publicKey: wallet.publicKey,
        message: challenge.message,
        signature: newWallet().sign(challenge.message),
        redirectUri: REDIRECT_URI,
      },
    });
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe("invalid_signature");
  });

  it("refuses a malformed message before touching the challenge", async () => {
    const wallet = newWallet();
    const challenge = await challengeFor(wallet);
    const broken = challenge.message.replace("Version: 1", "Version 1");
    const res = await callAt<{ error: { code: string } }>(t.app, "/connect/verify", {
      body: {
        publicKey: wallet.publicKey,
        message: broken,
        signature: wallet.sign(broken),
        redirectUri: REDIRECT_URI,
      },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe("malformed_message");
    const retry = await callAt(t.app, "/connect/verify", {
      body: {
        publicKey: wallet.publicKey,
        message: challenge.message,
        signature: wallet.sign(challenge.message),
        redirectUri: REDIRECT_URI,
      },
    });
    expect(retry.status).toBe(200);
  });

  it("refuses a core sign-in challenge (the nonce's purpose differs)", async () => {
    const wallet = newWallet();
    const core = await issueChallenge({
      db: t.db,
      clock: t.clock,
      config: t.config.siws,
      publicKey: wallet.publicKey,
    });
    const res = await callAt<{ error: { code: string } }>(t.app, "/connect/verify", {
      body: {
        publicKey: wallet.publicKey,
        message: core.message,
        signature: wallet.sign(core.message),
        redirectUri: REDIRECT_URI,
      },
    });
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe("nonce_not_found");
  });

  it("refuses an expired challenge (401 challenge_expired)", async () => {
    const wallet = newWallet();
    const challenge = await challengeFor(wallet);
    t.clock.advance(5 * 60_000 + 1);
    const res = await callAt<{ error: { code: string } }>(t.app, "/connect/verify", {
      body: {
        publicKey: wallet.publicKey,
        message: challenge.message,
        signature: wallet.sign(challenge.message),
        redirectUri: REDIRECT_URI,
      },
    });
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe("challenge_expired");
  });

  it("answers 400 invalid_public_key and invalid_request on bad input", async () => {
    const bad = await callAt<{ error: { code: string } }>(t.app, "/connect/challenge", {
      body: { publicKey: "not-base58-0OIl", redirectUri: REDIRECT_URI },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe("invalid_public_key");
    const missing = await callAt<{ error: { code: string } }>(t.app, "/connect/challenge", {
      body: { publicKey: newWallet().publicKey },
    });
    expect(missing.status).toBe(400);
    expect(missing.body.error.code).toBe("invalid_request");
    const malformed = await t.app.request("/connect/verify", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{",
    });
    expect(malformed.status).toBe(400);
  });
});

describe("redirect URI refusal", () => {
  it.each(NOT_EXTENSION_PAGES)("refuses %s on the challenge", async (redirectUri) => {
    const res = await callAt<{ error: { code: string } }>(t.app, "/connect/challenge", {
      body: { publicKey: newWallet().publicKey, redirectUri },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe("invalid_redirect_uri");
  });

  it.each(NOT_EXTENSION_PAGES)("refuses %s on the page", async (redirectUri) => {
    const res = await t.app.request(
      `/connect?${new URLSearchParams({ redirect_uri: redirectUri })}`,
    );
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe(
      "invalid_redirect_uri",
    );
  });

  it.each(NOT_EXTENSION_PAGES)("refuses %s on verify, keeping the challenge", async (uri) => {
    const wallet = newWallet();
    const challenge = await challengeFor(wallet);
    const body = {
      publicKey: wallet.publicKey,
      message: challenge.message,
      signature: wallet.sign(challenge.message),
    };
    const res = await callAt<{ error: { code: string } }>(t.app, "/connect/verify", {
      body: { ...body, redirectUri: uri },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe("invalid_redirect_uri");
    const ok = await callAt(t.app, "/connect/verify", {
      body: { ...body, redirectUri: REDIRECT_URI },
    });
    expect(ok.status).toBe(200);
  });

  it("refuses a verify whose extension page differs from the challenge's", async () => {
    const wallet = newWallet();
    const challenge = await challengeFor(wallet);
    const res = await callAt<{ error: { code: string } }>(t.app, "/connect/verify", {
      body: {
        publicKey: wallet.publicKey,
        message: challenge.message,
        signature: wallet.sign(challenge.message),
        redirectUri: "chrome-extension://ponmlkjihgfedcbaponmlkjihgfedcba/connected.html",
      },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe("invalid_redirect_uri");
  });

  it("serves the page for an extension page, unframeable and uncached", async () => {
    const res = await t.app.request(
      `/connect?${new URLSearchParams({ redirect_uri: REDIRECT_URI, state: "abc" })}`,
    );
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/html/);
    expect(res.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
    expect(res.headers.get("x-frame-options")).toBe("DENY");
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(res.headers.get("referrer-policy")).toBe("no-referrer");
    const html = await res.text();
    expect(html).toContain('src="/connect/app.js"');
    const script = await t.app.request("/connect/app.js");
    expect(script.status).toBe(200);
    expect(script.headers.get("content-type")).toMatch(/^text\/javascript/);
    expect((await script.text()).length).toBeGreaterThan(1000);
  });
});

describe("tokens", () => {
  it("revokes on logout: 204, then 401 on every route", async () => {
    const { token } = await connect(t.app, newWallet());
    expect((await callAt(t.app, "/me", { headers: bearer(token) })).status).toBe(200);
    const out = await t.app.request("/auth/logout", { method: "POST", headers: bearer(token) });
    expect(out.status).toBe(204);
    expect((await callAt(t.app, "/me", { headers: bearer(token) })).status).toBe(401);
    const write = await callAt(t.app, "/memories", {
      headers: bearer(token),
      body: { content: "after logout" },
    });
    expect(write.status).toBe(401);
    const again = await t.app.request("/auth/logout", { method: "POST", headers: bearer(token) });
    expect(again.status).toBe(401);
  });

  it("logging out one token leaves the wallet's other tokens working", async () => {
    const wallet = newWallet();
    const a = await connect(t.app, wallet);
    const b = await connect(t.app, wallet);
    await t.app.request("/auth/logout", { method: "POST", headers: bearer(a.token) });
    expect((await callAt(t.app, "/me", { headers: bearer(a.token) })).status).toBe(401);
    expect((await callAt(t.app, "/me", { headers: bearer(b.token) })).status).toBe(200);
  });

  it("expires after EXTENSION_TOKEN_TTL_S by the injected clock", async () => {
    const short = await startExtensionApp({ env: { EXTENSION_TOKEN_TTL_S: "60" } });
    try {
      const { token, expiresAt } = await connect(short.app, newWallet());
      expect(Date.parse(expiresAt) - short.clock.now().getTime()).toBe(60_000);
      short.clock.advance(59_999);
      expect((await callAt(short.app, "/me", { headers: bearer(token) })).status).toBe(200);
      short.clock.advance(1);
      const expired = await callAt<{ error: { code: string } }>(short.app, "/me", {
        headers: bearer(token),
      });
      expect(expired.status).toBe(401);
      expect(expired.body.error.code).toBe("unauthorized");
    } finally {
      await short.close();
    }
  });

  it("refuses missing, malformed and unknown tokens with 401", async () => {
    for (const headers of [{}, { authorization: "Basic abc" }, bearer("1111111111111111")]) {
      const res = await callAt<{ error: { code: string } }>(t.app, "/me", { headers });
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe("unauthorized");
    }
  });

  it("does not accept a core API session or key as an extension token", async () => {
    const res = await request(t.app, "/memories", {
      body: { content: "x" },
      headers: bearer(`svc_${"0".repeat(48)}`),
    });
    expect(res.status).toBe(401);
  });
});
