/**
 * API keys (docs/protocol.md §3) and bearer resolution (docs/protocol.md §3), through the app in
 * process (`app.request`: no socket is needed).
 */
import { AuthError, resolveBearer } from "@verifiable-memory/auth";
import { type Database, getApiKey } from "@verifiable-memory/db-schema";
import { SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  mintApiKey,
  newWallet,
  request,
  signIn,
  startTestApp,
  TEST_ENV,
  type TestApp,
} from "./helpers.js";

let t: TestApp;
let token: string;
beforeAll(async () => {
  t = await startTestApp();
  ({ token } = await signIn(t.app, newWallet()));
});
afterAll(async () => {
  await t.close();
});

const get = (path: string, bearer?: string) =>
  request(t.app, path, { headers: bearer ? { authorization: `Bearer ${bearer}` } : {} });
const del = (path: string, bearer: string) =>
  request(t.app, path, { method: "DELETE", headers: { authorization: `Bearer ${bearer}` } });
const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  request(t.app, path, { body, headers });

describe("API keys", () => {
  it("mints svc_ + 48 hex, stores only its SHA-256 and the 12-char prefix", async () => {
    const res = await post("/keys", { label: "my agent" }, { authorization: `Bearer ${token}` });
    expect(res.status).toBe(201);
    const key = (await res.json()) as {
      id: string;
      key: string;
      prefix: string;
      label: string;
      createdAt: string;
    };
    expect(key.key).toMatch(/^svc_[0-9a-f]{48}$/);
    expect(key.prefix).toBe(key.key.slice(0, 12));
    expect(key.label).toBe("my agent");
    expect(new Date(key.createdAt).toISOString()).toBe(key.createdAt);
    const [row] = await t.sql`select * from api_keys where id = ${key.id}`;
    const stored = JSON.stringify(row, (_k, v) =>
      v instanceof Uint8Array ? Buffer.from(v).toString("hex") : v,
    );
    expect(stored).not.toContain(key.key);
    expect(stored).not.toContain(key.key.slice(4));
    expect(Buffer.from(row?.key_hash as Uint8Array).toString("hex")).toMatch(/^[0-9a-f]{64}$/);
  });

  it("lists newest first without raw keys or hashes, with cursor pagination", async () => {
    const { token: own } = await signIn(t.app, newWallet());
    for (const label of ["a", "b", "c"]) {
      await mintApiKey(t.app, own, label);
    }
    const first = (await (await get("/keys?limit=2", own)).json()) as {
      items: { label: string }[];
      nextCursor: string;
    };
    expect(first.items.map((k) => k.label)).toEqual(["c", "b"]);
    expect(JSON.stringify(first)).not.toMatch(/svc_[0-9a-f]{48}|hash/);
    const second = (await (
      await get(`/keys?limit=2&cursor=${encodeURIComponent(first.nextCursor)}`, own)
    ).json()) as {
      items: { label: string; lastUsedAt: null; revokedAt: null }[];
      nextCursor: string | null;
    };
    expect(second.items.map((k) => k.label)).toEqual(["a"]);
    expect(second.nextCursor).toBeNull();
    expect((await get("/keys?limit=0", own)).status).toBe(400);
    expect((await get("/keys?limit=201", own)).status).toBe(400);
    expect((await get("/keys?cursor=garbage", own)).status).toBe(400);
  });

  it("works as a bearer, records lastUsedAt, and revocation is effective on the next request", async () => {
    const key = await mintApiKey(t.app, token);
    expect((await get("/readyz")).status).toBe(200);
    expect((await post("/keys", { label: "x" }, { authorization: `Bearer ${key}` })).status).toBe(
      403,
    );
    const listed = (await (await get("/keys", token)).json()) as {
      items: { id: string; prefix: string; lastUsedAt: string | null }[];
    };
    const entry = listed.items.find((k) => k.prefix === key.slice(0, 12));
    expect(entry?.lastUsedAt).not.toBeNull();
    expect((await del(`/keys/${entry?.id}`, token)).status).toBe(204);
    const after = await get("/keys", key);
    expect(after.status).toBe(401);
    expect((await del(`/keys/${entry?.id}`, token)).status).toBe(204);
  });

  it("writes lastUsedAt at most once a minute without an UPDATE per request; revocation still applies on the next request", async () => {
    const { token: own, userId } = await signIn(t.app, newWallet());
    const key = await mintApiKey(t.app, own, "throttled");
    // resolveBearer over the app's database, counting the UPDATE statements it builds.
    let updates = 0;
    const counting = new Proxy(t.db, {
      get(target, prop, receiver) {
        const value = Reflect.get(target, prop, receiver);
        if (typeof value !== "function") {
          return value;
        }
        return (...args: unknown[]) => {
          if (prop === "update") {
            updates += 1;
          }
          return value.apply(target, args);
        };
      },
    }) as Database;
    const resolve = () =>
      resolveBearer({ db: counting, secret: t.config.jwtSecret, clock: t.clock }, key);
    const lastUsed = async () => {
      const auth = await resolve();
      return (await getApiKey(t.db, userId, auth.apiKeyId ?? ""))?.lastUsedAt?.getTime() ?? null;
    };
    const t0 = t.clock.now().getTime();
    expect(await lastUsed()).toBe(t0); // first use: written
    expect(updates).toBe(1);
    t.clock.advance(30_000);
    expect(await lastUsed()).toBe(t0); // 30 s later: the lookup shows it fresh, no UPDATE sent
    t.clock.advance(30_000);
    expect(await lastUsed()).toBe(t0); // exactly a minute: still fresh
    expect(updates).toBe(1);
    t.clock.advance(1_000);
    expect(await lastUsed()).toBe(t0 + 61_000); // more than a minute: written again
    expect(updates).toBe(2);
    // lastUsedAt is fresh, yet the key hash is looked up on every request: revoked means 401 now.
    const auth = await resolve();
    expect(updates).toBe(2);
    expect((await del(`/keys/${auth.apiKeyId}`, own)).status).toBe(204);
    await expect(resolve()).rejects.toBeInstanceOf(AuthError);
    expect(
      (await post("/memories", { content: "x" }, { authorization: `Bearer ${key}` })).status,
    ).toBe(401);
  });

  it("refuses key management with an API key (403 session_required)", async () => {
    const key = await mintApiKey(t.app, token);
    const res = await get("/keys", key);
    expect(res.status).toBe(403);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe("session_required");
  });

  it("404s another user's key id and unknown ids", async () => {
    const { token: other } = await signIn(t.app, newWallet());
    const res = await post("/keys", { label: "theirs" }, { authorization: `Bearer ${other}` });
    const { id } = (await res.json()) as { id: string };
    expect((await del(`/keys/${id}`, token)).status).toBe(404);
    expect((await del("/keys/does-not-exist", token)).status).toBe(404);
    expect((await get("/keys", other)).status).toBe(200);
  });

  it("rejects bad labels", async () => {
    for (const label of ["", "x".repeat(101)]) {
      expect((await post("/keys", { label }, { authorization: `Bearer ${token}` })).status).toBe(
        400,
      );
    }
  });
});

describe("session tokens", () => {
  const secret = new TextEncoder().encode(TEST_ENV.JWT_SECRET);

  it("rejects expired, wrong-secret, alg:none and garbage tokens with 401", async () => {
    const { userId } = await signIn(t.app, newWallet());
    const iat = Math.floor(t.clock.now().getTime() / 1000);
    const expired = await new SignJWT({ pk: "x" })
      .setProtectedHeader({ alg: "HS256" })
      .setSubject(userId)
      .setIssuedAt(iat - 7200)
      .setExpirationTime(iat - 3600)
      .sign(secret);
    const wrongSecret = await new SignJWT({ pk: "x" })
      .setProtectedHeader({ alg: "HS256" })
      .setSubject(userId)
      .setIssuedAt(iat)
      .setExpirationTime(iat + 3600)
      .sign(new TextEncoder().encode("another-secret-of-sufficient-length-000"));
    const header = Buffer.from(JSON.stringify({ alg: "none", typ: "JWT" })).toString("base64url");
    const payload = Buffer.from(
      JSON.stringify({ sub: userId, pk: "x", iat, exp: iat + 3600 }),
    ).toString("base64url");
    const none = `${header}.${payload}.`;
    for (const bad of [expired, wrongSecret, none, "not-a-jwt", "svc_unknown"]) {
      const res = await get("/keys", bad);
      expect(res.status).toBe(401);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe("unauthorized");
    }
    expect((await get("/keys")).status).toBe(401);
  });

  it("expires after one hour by the injected clock", async () => {
    const { token: fresh } = await signIn(t.app, newWallet());
    t.clock.advance(3599_000);
    expect((await get("/keys", fresh)).status).toBe(200);
    t.clock.advance(1_000);
    expect((await get("/keys", fresh)).status).toBe(401);
  });

  it("rejects a valid JWT whose user no longer exists", async () => {
    const iat = Math.floor(t.clock.now().getTime() / 1000);
    const ghost = await new SignJWT({ pk: newWallet().publicKey })
      .setProtectedHeader({ alg: "HS256" })
      .setSubject("00000000-0000-0000-0000-000000000000")
      .setIssuedAt(iat)
      .setExpirationTime(iat + 3600)
      .sign(secret);
    expect((await get("/keys", ghost)).status).toBe(401);
  });
});
