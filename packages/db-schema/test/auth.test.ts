/**
 * Credential tables: the race-safe user upsert, single-use nonces scoped to (nonce, key), API keys
 * (lookup, listing, idempotent revocation, throttled last use) and extension sessions.
 */
import { createHash, randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  consumeNonce,
  createDatabase,
  type DatabaseHandle,
  deleteExpiredNonces,
  findActiveApiKeyByHash,
  findActiveExtensionSessionByHash,
  getApiKey,
  getUserById,
  getUserByPubkey,
  getUsersByIds,
  InvalidCursorError,
  insertApiKey,
  insertExtensionSession,
  insertNonce,
  listApiKeys,
  revokeApiKey,
  revokeExtensionSession,
  touchApiKeyLastUsed,
  upsertUserByPubkey,
} from "../src/index.js";
import { createTestDatabase, type TestDatabase } from "../src/testing/index.js";
import { makeUser } from "./_fixtures.js";

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase({ max: 8 });
});
afterAll(async () => {
  await t.close();
});

const sha256 = (s: string) => new Uint8Array(createHash("sha256").update(s).digest());
const inFiveMinutes = () => new Date(Date.now() + 5 * 60_000);

describe("users", () => {
  it("creates a user with a wrapped key on first sight only, also under concurrency", async () => {
    const ownerPubkey = `pk${randomBytes(8).toString("hex")}`;
    const madeFor: string[] = [];
    const makeWrappedKey = (userId: string) => {
      madeFor.push(userId);
      return new TextEncoder().encode(`key-of-${userId}`);
    };
    const results = await Promise.all(
      Array.from({ length: 8 }, () => upsertUserByPubkey(t.db, { ownerPubkey, makeWrappedKey })),
    );
    const ids = new Set(results.map((r) => r.user.id));
    expect(ids.size).toBe(1);
    expect(results.filter((r) => r.created)).toHaveLength(1);
    const [id] = [...ids];
    const stored = await getUserById(t.db, id ?? "");
    expect(new TextDecoder().decode(stored?.wrappedDataKey)).toBe(`key-of-${id}`);
    expect(madeFor).toContain(id);
    const again = await upsertUserByPubkey(t.db, { ownerPubkey, makeWrappedKey });
    expect(again).toMatchObject({ created: false, user: { id } });
    expect((await getUserByPubkey(t.db, ownerPubkey))?.id).toBe(id);
    expect(await getUserById(t.db, "no-such-user")).toBeNull();
  });

  it("looks several users up by id in one query; unknown ids are absent", async () => {
    const made = await Promise.all(
      Array.from({ length: 3 }, (_, i) =>
        upsertUserByPubkey(t.db, {
          ownerPubkey: `pk-many-${i}-${randomBytes(8).toString("hex")}`,
          makeWrappedKey: () => randomBytes(60),
        }),
      ),
    );
    const ids = made.map((m) => m.user.id);
    const found = await getUsersByIds(t.db, [
      ids[2] ?? "",
      "no-such-user",
      ids[0] ?? "",
      ids[2] ?? "",
    ]);
    expect(found.map((u) => u.id).sort()).toEqual([ids[0], ids[2]].sort());
    expect(found.find((u) => u.id === ids[0])).toEqual(made[0]?.user);
    expect(await getUsersByIds(t.db, [])).toEqual([]);
    await expect(getUsersByIds(t.db, Array.from({ length: 1001 }, String))).rejects.toBeInstanceOf(
      RangeError,
    );
  });
});

describe("sign-in nonces", () => {
  it("of 20 concurrent consumptions from separate connections exactly one gets the row", async () => {
    const nonce = randomBytes(16).toString("hex");
    await insertNonce(t.db, {
      nonce,
      publicKey: "keyA",
      message: "msg",
      expiresAt: inFiveMinutes(),
    });
    const handles: DatabaseHandle[] = Array.from({ length: 20 }, () =>
      createDatabase({ url: t.url, max: 1 }),
    );
    try {
      await Promise.all(handles.map((h) => h.sql`select 1`));
      const results = await Promise.all(handles.map((h) => consumeNonce(h.db, nonce, "keyA")));
      const winners = results.filter((r) => r !== null);
      expect(winners).toHaveLength(1);
      expect(winners[0]).toMatchObject({ nonce, publicKey: "keyA", message: "msg" });
    } finally {
      await Promise.all(handles.map((h) => h.close()));
    }
    expect(await consumeNonce(t.db, nonce, "keyA")).toBeNull();
  });

  it("a nonce issued for key A is not consumable with key B, nor for another purpose", async () => {
    const nonce = randomBytes(16).toString("hex");
    await insertNonce(t.db, {
      nonce,
      publicKey: "keyA",
      message: "connect",
      expiresAt: inFiveMinutes(),
      purpose: "extension_connect",
      redirectUri: "chrome-extension://abc/cb.html",
    });
    expect(await consumeNonce(t.db, nonce, "keyB", "extension_connect")).toBeNull();
    expect(await consumeNonce(t.db, nonce, "keyA", "sign_in")).toBeNull();
    const row = await consumeNonce(t.db, nonce, "keyA", "extension_connect");
    expect(row).toMatchObject({
      purpose: "extension_connect",
      redirectUri: "chrome-extension://abc/cb.html",
    });
  });

  it("deletes expired nonces only", async () => {
    const now = new Date();
    const old = randomBytes(16).toString("hex");
    const fresh = randomBytes(16).toString("hex");
    await insertNonce(t.db, {
      nonce: old,
      publicKey: "k",
      message: "m",
      expiresAt: new Date(now.getTime() - 1),
    });
    await insertNonce(t.db, {
      nonce: fresh,
      publicKey: "k",
      message: "m",
      expiresAt: inFiveMinutes(),
    });
    expect(await deleteExpiredNonces(t.db, now)).toBeGreaterThanOrEqual(1);
    expect(await consumeNonce(t.db, old, "k")).toBeNull();
    expect(await consumeNonce(t.db, fresh, "k")).not.toBeNull();
  });
});

describe("api keys", () => {
  it("finds an active key with its user by hash; revocation is immediate and idempotent", async () => {
    const user = await makeUser(t.db);
    const raw = `svc_${randomBytes(24).toString("hex")}`;
    const key = await insertApiKey(t.db, {
      userId: user.id,
      keyHash: sha256(raw),
      prefix: raw.slice(0, 12),
      label: "agent",
    });
    const found = await findActiveApiKeyByHash(t.db, sha256(raw));
    expect(found?.apiKey.id).toBe(key.id);
    expect(found?.user.ownerPubkey).toBe(user.ownerPubkey);
    expect(found?.apiKey.prefix).toBe(raw.slice(0, 12));
    expect(await revokeApiKey(t.db, user.id, key.id)).toBe(true);
    const revokedAt = (await getApiKey(t.db, user.id, key.id))?.revokedAt;
    expect(revokedAt).toBeInstanceOf(Date);
    expect(await findActiveApiKeyByHash(t.db, sha256(raw))).toBeNull();
    expect(await revokeApiKey(t.db, user.id, key.id, new Date(Date.now() + 60_000))).toBe(true);
    expect((await getApiKey(t.db, user.id, key.id))?.revokedAt).toEqual(revokedAt);
    expect(await revokeApiKey(t.db, user.id, "unknown")).toBe(false);
  });

  it("lists newest first with cursors, revoked keys included", async () => {
    const user = await makeUser(t.db);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const raw = randomBytes(24).toString("hex");
      const key = await insertApiKey(t.db, {
        userId: user.id,
        keyHash: sha256(raw),
        prefix: `svc_${raw.slice(0, 8)}`,
        label: `k${i}`,
      });
      ids.push(key.id);
    }
    await revokeApiKey(t.db, user.id, ids[0] ?? "");
    // Keys created within one millisecond tie on createdAt; the id breaks the tie.
    const full = (await listApiKeys(t.db, user.id, { limit: 10 })).items;
    const expected = full.map((k) => k.id);
    expect(new Set(expected)).toEqual(new Set(ids));
    const times = full.map((k) => k.createdAt.getTime());
    expect([...times].sort((a, b) => b - a)).toEqual(times);
    expect(full.find((k) => k.id === ids[0])?.revokedAt).toBeInstanceOf(Date);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page = await listApiKeys(t.db, user.id, { limit: 2, cursor });
      seen.push(...page.items.map((k) => k.id));
      cursor = page.nextCursor;
    } while (cursor);
    expect(seen).toEqual(expected);
    await expect(listApiKeys(t.db, user.id, { cursor: "garbage" })).rejects.toBeInstanceOf(
      InvalidCursorError,
    );
  });

  it("the per-request lookup returns lastUsedAt and sees a revocation at once (prepared statement reused)", async () => {
    const user = await makeUser(t.db);
    const raw = randomBytes(24).toString("hex");
    const key = await insertApiKey(t.db, {
      userId: user.id,
      keyHash: sha256(raw),
      prefix: "svc_lookup12",
      label: "lookup",
    });
    // One connection, so the second and later lookups run the statement prepared by the first.
    const single = createDatabase({ url: t.url, max: 1 });
    try {
      const first = await findActiveApiKeyByHash(single.db, sha256(raw));
      expect(first?.apiKey.id).toBe(key.id);
      expect(first?.apiKey.lastUsedAt).toBeNull();
      expect(first?.user.id).toBe(user.id);
      const t0 = new Date("2026-05-01T10:00:00.000Z");
      await touchApiKeyLastUsed(t.db, user.id, key.id, t0);
      expect((await findActiveApiKeyByHash(single.db, sha256(raw)))?.apiKey.lastUsedAt).toEqual(t0);
      expect(await findActiveApiKeyByHash(single.db, sha256("other"))).toBeNull();
      await revokeApiKey(t.db, user.id, key.id);
      expect(await findActiveApiKeyByHash(single.db, sha256(raw))).toBeNull();
    } finally {
      await single.close();
    }
  });

  it("updates lastUsedAt at most once a minute", async () => {
    const user = await makeUser(t.db);
    const key = await insertApiKey(t.db, {
      userId: user.id,
      keyHash: sha256(randomBytes(8).toString("hex")),
      prefix: "svc_abcdefgh",
      label: "l",
    });
    const t0 = new Date("2026-05-01T10:00:00.000Z");
    expect(await touchApiKeyLastUsed(t.db, user.id, key.id, t0)).toBe(true);
    expect(await touchApiKeyLastUsed(t.db, user.id, key.id, new Date(t0.getTime() + 59_000))).toBe(
      false,
    );
    expect((await getApiKey(t.db, user.id, key.id))?.lastUsedAt).toEqual(t0);
    const t1 = new Date(t0.getTime() + 61_000);
    expect(await touchApiKeyLastUsed(t.db, user.id, key.id, t1)).toBe(true);
    expect((await getApiKey(t.db, user.id, key.id))?.lastUsedAt).toEqual(t1);
  });
});

describe("extension sessions", () => {
  it("resolves an active token in one query; expiry and revocation end it", async () => {
    const user = await makeUser(t.db);
    const token = randomBytes(32).toString("hex");
    const session = await insertExtensionSession(t.db, {
      userId: user.id,
      tokenHash: sha256(token),
      expiresAt: new Date(Date.now() + 3_600_000),
    });
    const found = await findActiveExtensionSessionByHash(t.db, sha256(token));
    expect(found?.session.id).toBe(session.id);
    expect(found?.user.id).toBe(user.id);
    const later = new Date(Date.now() + 7_200_000);
    expect(await findActiveExtensionSessionByHash(t.db, sha256(token), later)).toBeNull();
    expect(await revokeExtensionSession(t.db, user.id, session.id)).toBe(true);
    expect(await findActiveExtensionSessionByHash(t.db, sha256(token))).toBeNull();
    expect(await revokeExtensionSession(t.db, user.id, session.id)).toBe(true);
  });
});
