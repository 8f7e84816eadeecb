/**
 * Session JWT time claims (docs/protocol.md §2.4 "The session JWT"): tokens signed with the real
 * secret by jose, refused when `iat` or `nbf` is more than 60 s in the future or `exp − iat`
 * exceeds 3 600 s, accepted at the limits; over real HTTP the refusal is 401 `unauthorized`.
 */
import { AuthError, verifySessionToken } from "@verifiable-memory/auth";
import { SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  callAt,
  newUser,
  startTestApp,
  TEST_ENV,
  type TestApp,
  TestClock,
  type TestUser,
} from "./helpers.js";

const secret = TEST_ENV.JWT_SECRET;
const clock = new TestClock();
const now = Math.floor(clock.now().getTime() / 1000);

/** A token for `sub`/`pk` signed by jose with the service's secret and the given time claims. */
function mint(
  claims: { iat: number; exp: number; nbf?: number | string },
  sub = "u",
  pk = "pk",
): Promise<string> {
  return new SignJWT({ pk, ...claims } as Record<string, unknown>)
    .setProtectedHeader({ alg: "HS256", typ: "JWT" })
    .setSubject(sub)
    .sign(new TextEncoder().encode(secret));
}

describe("verifySessionToken: time claims", () => {
  const accepted: [string, { iat: number; exp: number; nbf?: number }][] = [
    ["issued now, one hour", { iat: now, exp: now + 3600 }],
    ["iat exactly 60 s ahead", { iat: now + 60, exp: now + 3660 }],
    ["nbf exactly 60 s ahead", { iat: now, exp: now + 3600, nbf: now + 60 }],
    ["nbf in the past", { iat: now - 10, exp: now + 3590, nbf: now - 10 }],
    ["short lifetime", { iat: now - 5, exp: now + 5 }],
  ];
  it.each(accepted)("accepts %s", async (_name, claims) => {
    expect(await verifySessionToken(await mint(claims), secret, clock)).toMatchObject({
      sub: "u",
      iat: claims.iat,
      exp: claims.exp,
    });
  });

  const refused: [string, { iat: number; exp: number; nbf?: number | string }, RegExp][] = [
    ["iat 61 s ahead", { iat: now + 61, exp: now + 3661 }, /not valid yet/],
    ["nbf 61 s ahead", { iat: now, exp: now + 3600, nbf: now + 61 }, /not valid yet/],
    ["nbf 50 minutes ahead", { iat: now, exp: now + 3600, nbf: now + 3000 }, /not valid yet/],
    ["a lifetime of 3 601 s", { iat: now, exp: now + 3601 }, /lifetime/],
    ["a lifetime of one year", { iat: now, exp: now + 31_536_000 }, /lifetime/],
    ["issued two hours ago, expiring in 1 s", { iat: now - 7200, exp: now + 1 }, /lifetime/],
    ["nbf not a number", { iat: now, exp: now + 3600, nbf: "0" }, /claims/],
  ];
  it.each(refused)("refuses %s", async (_name, claims, reason) => {
    const token = await mint(claims);
    const failure = verifySessionToken(token, secret, clock);
    await expect(failure).rejects.toBeInstanceOf(AuthError);
    await expect(failure).rejects.toThrow(reason);
  });

  it("refuses a future token again on every call, and accepts it once the clock reaches it", async () => {
    const later = new TestClock(clock.now().getTime());
    const token = await mint({ iat: now, exp: now + 3600, nbf: now + 120 });
    await expect(verifySessionToken(token, secret, later)).rejects.toThrow(/not valid yet/);
    await expect(verifySessionToken(token, secret, later)).rejects.toThrow(/not valid yet/);
    later.advance(60_000);
    expect(await verifySessionToken(token, secret, later)).toMatchObject({ sub: "u" });
  });
});

describe("over HTTP", () => {
  let t: TestApp;
  let user: TestUser;
  beforeAll(async () => {
    t = await startTestApp({ clock: new TestClock(clock.now().getTime()) });
    user = await newUser(t.app);
  });
  afterAll(async () => {
    await t.close();
  });

  it("a minted token for a real user is 401 with nbf 50 minutes ahead or a one-year life, 200 when in rule", async () => {
    const pk = user.wallet.publicKey;
    const get = async (token: string) => {
      const res = await t.app.request("/memories", {
        headers: { authorization: `Bearer ${token}` },
      });
      return { status: res.status, body: await res.json() };
    };
    for (const claims of [
      { iat: now, exp: now + 3600, nbf: now + 3000 },
      { iat: now, exp: now + 31_536_000 },
      { iat: now + 600, exp: now + 4200 },
    ]) {
      const refused = await get(await mint(claims, user.userId, pk));
      expect(refused.status).toBe(401);
      expect(refused.body).toMatchObject({ error: { code: "unauthorized" } });
    }
    const fine = await get(await mint({ iat: now, exp: now + 3600 }, user.userId, pk));
    expect(fine.status).toBe(200);
    expect((await callAt(t.app, "/memories", { headers: user.headers })).status).toBe(200);
  });
});
