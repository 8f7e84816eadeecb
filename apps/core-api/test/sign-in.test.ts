/**
 * POST /auth/challenge and /auth/verify over real HTTP with real wallets: the five checks of
 * docs/protocol.md §2 in order, each failure with its docs/protocol.md §2 code, replay, cross-key nonces, expiry by the
 * injected clock, and exactly one winner among concurrent verifications; session tokens checked
 * both ways against jose (several secrets in one process: the HMAC key is cached per secret).
 */
import { parseSignInMessage as oracleParse } from "@solana/wallet-standard-util";
import { AuthError, issueSessionToken, verifySessionToken } from "@verifiable-memory/auth";
import { jwtVerify, SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  newWallet,
  request,
  startTestApp,
  TEST_ENV,
  type TestApp,
  TestClock,
  type Wallet,
} from "./helpers.js";

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t.close();
});

async function challenge(wallet: Wallet) {
  const res = await request(t.app, "/auth/challenge", { body: { publicKey: wallet.publicKey } });
  expect(res.status).toBe(200);
  return (await res.json()) as { message: string; nonce: string; expiresAt: string };
}

function verify(body: Record<string, unknown>) {
  return request(t.app, "/auth/verify", { body });
}

async function errorCode(res: Response): Promise<string> {
  return ((await res.json()) as { error: { code: string } }).error.code;
}

describe("sign-in", () => {
  it("issues the docs/protocol.md §2 message and a JWT that jose verifies independently", async () => {
    const wallet = newWallet();
    const c = await challenge(wallet);
    const lines = c.message.split("\n");
    expect(lines[0]).toBe("localhost:8787 wants you to sign in with your Solana account:");
    expect(lines[1]).toBe(wallet.publicKey);
    expect(lines[3]).toBe("Sign in to Verifiable Memory - verifiable memory for AI agents.");
    expect(lines.slice(5)).toEqual([
      "URI: http://localhost:8787",
      "Version: 1",
      "Chain ID: devnet",
      `Nonce: ${c.nonce}`,
      "Issued At: 2026-11-22T10:00:00.000Z",
      "Expiration Time: 2026-11-22T10:05:00.000Z",
    ]);
    expect(c.expiresAt).toBe("2026-11-22T10:05:00.000Z");
    expect(oracleParse(new TextEncoder().encode(c.message))).toMatchObject({
      domain: "localhost:8787",
      address: wallet.publicKey,
      nonce: c.nonce,
    });

    const res = await verify({
      publicKey: wallet.publicKey,
      message: c.message,
      signature: wallet.sign(c.message),
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as {
      token: string;
      tokenType: string;
      expiresAt: string;
      userId: string;
      publicKey: string;
    };
    expect(body.tokenType).toBe("Bearer");
    expect(body.publicKey).toBe(wallet.publicKey);
    const { payload, protectedHeader } = await jwtVerify(
      body.token,
      new TextEncoder().encode(TEST_ENV.JWT_SECRET),
      {
        algorithms: ["HS256"],
        currentDate: t.clock.now(),
      },
    );
    expect(protectedHeader.alg).toBe("HS256");
    expect(payload.sub).toBe(body.userId);
    expect(payload.pk).toBe(wallet.publicKey);
    expect((payload.exp ?? 0) - (payload.iat ?? 0)).toBe(3600);
    expect(payload.iat).toBe(Math.floor(t.clock.now().getTime() / 1000));
  });

  it("creates the user with a wrapped data key once, on first sight", async () => {
    const wallet = newWallet();
    for (let i = 0; i < 2; i++) {
      const c = await challenge(wallet);
      expect(
        (
          await verify({
            publicKey: wallet.publicKey,
            message: c.message,
            signature: wallet.sign(c.message),
          })
        ).status,
      ).toBe(200);
    }
    const rows =
      await t.sql`select wrapped_data_key from users where owner_pubkey = ${wallet.publicKey}`;
    expect(rows).toHaveLength(1);
    // Version 2: the wrap names the current master key's id (bytes 1–8).
    expect(rows[0]?.wrapped_data_key).toHaveLength(69);
    expect(rows[0]?.wrapped_data_key.subarray(1, 9).toString("hex")).toBe(
      t.config.masterKeys.current.id,
    );
  });

  it("rejects a malformed message with 400 before touching the nonce", async () => {
    const wallet = newWallet();
    const c = await challenge(wallet);
    const broken = c.message.replace("Version: 1", "Version:  1");
    const res = await verify({
      publicKey: wallet.publicKey,
      message: broken,
      signature: wallet.sign(broken),
    });
    expect(res.status).toBe(400);
    expect(await errorCode(res)).toBe("malformed_message");
    const ok = await verify({
      publicKey: wallet.publicKey,
      message: c.message,
      signature: wallet.sign(c.message),
    });
    expect(ok.status).toBe(200);
  });

  it("rejects an address that differs from publicKey as malformed (400)", async () => {
    const a = newWallet();
    const b = newWallet();
    const c = await challenge(a);
    const res = await verify({
      publicKey: b.publicKey,
      message: c.message,
      signature: b.sign(c.message),
    });
    expect(res.status).toBe(400);
    expect(await errorCode(res)).toBe("malformed_message");
  });

  it("rejects a replay with nonce_not_found", async () => {
    const wallet = newWallet();
    const c = await challenge(wallet);
    const body = {
      publicKey: wallet.publicKey,
      message: c.message,
      signature: wallet.sign(c.message),
    };
    expect((await verify(body)).status).toBe(200);
    const again = await verify(body);
    expect(again.status).toBe(401);
    expect(await errorCode(again)).toBe("nonce_not_found");
  });

  it("does not let key B consume a nonce issued for key A; A still can", async () => {
    const a = newWallet();
    const b = newWallet();
    const c = await challenge(a);
    const forB = c.message.replace(a.publicKey, b.publicKey);
    const res = await verify({ publicKey: b.publicKey, message: forB, signature: b.sign(forB) });
    expect(res.status).toBe(401);
    expect(await errorCode(res)).toBe("nonce_not_found");
    expect(
      (await verify({ publicKey: a.publicKey, message: c.message, signature: a.sign(c.message) }))
        .status,
    ).toBe(200);
  });

  it("accepts at 4 min 59 s and rejects at 5 min 1 s (injected clock)", async () => {
    const wallet = newWallet();
    const early = await challenge(wallet);
    const late = await challenge(wallet);
    t.clock.advance(4 * 60_000 + 59_000);
    expect(
      (
        await verify({
          publicKey: wallet.publicKey,
          message: early.message,
          signature: wallet.sign(early.message),
        })
      ).status,
    ).toBe(200);
    t.clock.advance(2_000);
    const res = await verify({
      publicKey: wallet.publicKey,
      message: late.message,
      signature: wallet.sign(late.message),
    });
    expect(res.status).toBe(401);
    expect(await errorCode(res)).toBe("challenge_expired");
  });

  it("rejects one changed byte in a non-structural part with message_mismatch", async () => {
    const wallet = newWallet();
    const c = await challenge(wallet);
    const changed = c.message.replace("localhost:8787 wants", "localhost:8788 wants");
    const res = await verify({
      publicKey: wallet.publicKey,
      message: changed,
      signature: wallet.sign(changed),
    });
    expect(res.status).toBe(401);
    expect(await errorCode(res)).toBe("message_mismatch");
  });

  it("rejects a signature by another key, and a short one, with invalid_signature", async () => {
    const wallet = newWallet();
    const other = newWallet();
    for (const signature of [other.sign("x"), "3yZe7d"]) {
      const c = await challenge(wallet);
      const res = await verify({ publicKey: wallet.publicKey, message: c.message, signature });
      expect(res.status).toBe(401);
      expect(await errorCode(res)).toBe("invalid_signature");
    }
    const c = await challenge(wallet);
    const res = await verify({
      publicKey: wallet.publicKey,
      message: c.message,
      signature: other.sign(c.message),
    });
    expect(await errorCode(res)).toBe("invalid_signature");
  });

  it("maps input errors: non-base58 signature, missing field, bad public key", async () => {
    const wallet = newWallet();
    const c = await challenge(wallet);
    const bad = await verify({
      publicKey: wallet.publicKey,
      message: c.message,
      signature: "0OIl",
    });
    expect(bad.status).toBe(400);
    expect(await errorCode(bad)).toBe("invalid_request");
    const missing = await verify({ publicKey: wallet.publicKey, message: c.message });
    expect(missing.status).toBe(400);
    const body = (await missing.json()) as {
      error: { code: string; details: { path: string[] }[] };
    };
    expect(body.error.code).toBe("invalid_request");
    expect(body.error.details.map((d) => d.path.join("."))).toContain("signature");
    for (const publicKey of ["abc", "1".repeat(50), "0OIl"]) {
      const res = await request(t.app, "/auth/challenge", { body: { publicKey } });
      expect(res.status).toBe(400);
      expect(await errorCode(res)).toBe("invalid_public_key");
    }
  });

  it("lets exactly one of 20 concurrent verifications of one signature win", async () => {
    const wallet = newWallet();
    const c = await challenge(wallet);
    const body = {
      publicKey: wallet.publicKey,
      message: c.message,
      signature: wallet.sign(c.message),
    };
    const statuses = await Promise.all(
      Array.from({ length: 20 }, () => verify(body).then((r) => r.status)),
    );
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 401)).toHaveLength(19);
  });

  it("lets exactly one win across two app instances sharing one database", async () => {
    const second = await startTestApp({ shareDatabaseOf: t, clock: t.clock });
    try {
      const wallet = newWallet();
      const c = await challenge(wallet);
      const body = {
        publicKey: wallet.publicKey,
        message: c.message,
        signature: wallet.sign(c.message),
      };
      const statuses = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          request((i % 2 ? second : t).app, "/auth/verify", { body }).then((r) => r.status),
        ),
      );
      expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    } finally {
      await second.close();
    }
  });
});

describe("session tokens against jose", () => {
  const encode = (s: string) => new TextEncoder().encode(s);
  const secrets = [
    "first-secret-of-sufficient-length-0000000",
    "second-secret-of-sufficient-length-00000",
  ];

  it("verifies its own and jose's HS256 tokens under each secret, never under another one", async () => {
    const clock = t.clock;
    const iat = Math.floor(clock.now().getTime() / 1000);
    for (const [i, secret] of secrets.entries()) {
      const other = secrets[1 - i] as string;
      const issued = await issueSessionToken({
        secret,
        clock,
        userId: `u${i}`,
        publicKey: `pk${i}`,
      });
      const { payload } = await jwtVerify(issued.token, encode(secret), {
        algorithms: ["HS256"],
        currentDate: clock.now(),
      });
      expect(payload).toMatchObject({ sub: `u${i}`, pk: `pk${i}`, iat, exp: iat + 3600 });
      await expect(
        jwtVerify(issued.token, encode(other), { currentDate: clock.now() }),
      ).rejects.toThrow();
      const byJose = await new SignJWT({ pk: `pk${i}` })
        .setProtectedHeader({ alg: "HS256", typ: "JWT" })
        .setSubject(`u${i}`)
        .setIssuedAt(iat)
        .setExpirationTime(iat + 60)
        .sign(encode(secret));
      for (const token of [issued.token, byJose]) {
        expect(await verifySessionToken(token, secret, clock)).toMatchObject({ sub: `u${i}` });
        await expect(verifySessionToken(token, other, clock)).rejects.toBeInstanceOf(AuthError);
      }
    }
  });

  it("a token whose signature verified before is still refused once expired, or altered", async () => {
    const clock = new TestClock();
    const secret = secrets[0] as string;
    const { token } = await issueSessionToken({ secret, clock, userId: "u-late", publicKey: "pk" });
    expect(await verifySessionToken(token, secret, clock)).toMatchObject({ sub: "u-late" });
    expect(await verifySessionToken(token, secret, clock)).toMatchObject({ sub: "u-late" });
    const flipped = `${token.slice(0, -2)}${token.at(-2) === "A" ? "B" : "A"}${token.slice(-1)}`;
    await expect(verifySessionToken(flipped, secret, clock)).rejects.toBeInstanceOf(AuthError);
    await expect(verifySessionToken(token, secrets[1] as string, clock)).rejects.toBeInstanceOf(
      AuthError,
    );
    clock.advance(3599_000);
    expect(await verifySessionToken(token, secret, clock)).toMatchObject({ sub: "u-late" });
    clock.advance(1_000);
    await expect(verifySessionToken(token, secret, clock)).rejects.toThrow(/expired/);
  });

  it("refuses other algorithms, alg none, a changed signature, missing claims and expiry", async () => {
    const clock = t.clock;
    const secret = secrets[0] as string;
    const iat = Math.floor(clock.now().getTime() / 1000);
    const claims = { pk: "pk" };
    const hs512 = await new SignJWT(claims)
      .setProtectedHeader({ alg: "HS512" })
      .setSubject("u")
      .setIssuedAt(iat)
      .setExpirationTime(iat + 60)
      .sign(encode(secret));
    const noIat = await new SignJWT(claims)
      .setProtectedHeader({ alg: "HS256" })
      .setSubject("u")
      .setExpirationTime(iat + 60)
      .sign(encode(secret));
    const expired = await new SignJWT(claims)
      .setProtectedHeader({ alg: "HS256" })
      .setSubject("u")
      .setIssuedAt(iat - 120)
      .setExpirationTime(iat)
      .sign(encode(secret));
    const good = (await issueSessionToken({ secret, clock, userId: "u", publicKey: "pk" })).token;
    const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString("base64url");
    const [, body, signature] = good.split(".");
    const none = `${b64({ alg: "none", typ: "JWT" })}.${body}.`;
    const flipped = `${good.slice(0, -2)}${good.at(-2) === "A" ? "B" : "A"}${good.slice(-1)}`;
    const critical = `${b64({ alg: "HS256", typ: "JWT", crit: ["x"] })}.${body}.${signature}`;
    for (const bad of [hs512, noIat, expired, none, flipped, critical, "a.b", ""]) {
      await expect(verifySessionToken(bad, secret, clock), bad).rejects.toBeInstanceOf(AuthError);
    }
    expect(await verifySessionToken(good, secret, clock)).toMatchObject({ sub: "u", pk: "pk" });
  });
});
