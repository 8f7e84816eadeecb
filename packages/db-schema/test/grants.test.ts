/**
 * Capability grants: the use counter is atomic (N concurrent uses of K allowed succeed exactly
 * min(N, K) times), refusals are ranked revoked > expired > exhausted, and every attempt can be
 * audited and listed by the owner.
 */
import { createHash, randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  getGrant,
  insertGrant,
  insertGrantAudit,
  listGrantAudit,
  listGrants,
  revokeGrant,
  useGrant,
} from "../src/index.js";
import { createTestDatabase, type TestDatabase } from "../src/testing/index.js";
import { makeUser } from "./_fixtures.js";

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase({ max: 10 });
});
afterAll(async () => {
  await t.close();
});

const newToken = () => new Uint8Array(createHash("sha256").update(randomBytes(32)).digest());
const hour = () => new Date(Date.now() + 3_600_000);

describe("useGrant", () => {
  it("12 concurrent uses of a grant with 5 uses succeed exactly 5 times", async () => {
    const user = await makeUser(t.db);
    const tokenHash = newToken();
    const grant = await insertGrant(t.db, {
      userId: user.id,
      tokenHash,
      operation: { type: "search", query: "x" },
      maxUses: 5,
      expiresAt: hour(),
    });
    const now = new Date();
    const results = await Promise.all(
      Array.from({ length: 12 }, () => useGrant(t.db, tokenHash, now)),
    );
    expect(results.filter((r) => r.outcome === "ok")).toHaveLength(5);
    expect(results.filter((r) => r.outcome === "exhausted")).toHaveLength(7);
    expect((await getGrant(t.db, user.id, grant.id))?.uses).toBe(5);
  });

  it("classifies refusals: not_found, then revoked before expired before exhausted", async () => {
    const user = await makeUser(t.db);
    expect(await useGrant(t.db, newToken(), new Date())).toEqual({
      outcome: "not_found",
      grant: null,
    });
    const tokenHash = newToken();
    const grant = await insertGrant(t.db, {
      userId: user.id,
      tokenHash,
      operation: { type: "read_memories", memoryIds: ["m1"] },
      label: "share",
      maxUses: 1,
      expiresAt: hour(),
    });
    const ok = await useGrant(t.db, tokenHash, new Date());
    expect(ok.outcome).toBe("ok");
    expect(ok.grant).toMatchObject({
      uses: 1,
      operation: { type: "read_memories", memoryIds: ["m1"] },
    });
    expect((await useGrant(t.db, tokenHash, new Date())).outcome).toBe("exhausted");
    const afterExpiry = new Date(Date.now() + 7_200_000);
    expect((await useGrant(t.db, tokenHash, afterExpiry)).outcome).toBe("expired");
    expect(await revokeGrant(t.db, user.id, grant.id)).toBe(true);
    expect((await useGrant(t.db, tokenHash, afterExpiry)).outcome).toBe("revoked");
    expect(await revokeGrant(t.db, user.id, grant.id)).toBe(true);
    expect(await revokeGrant(t.db, user.id, "unknown")).toBe(false);
  });
});

describe("grant listing and audit", () => {
  it("lists the owner's grants newest first and the audit of a grant", async () => {
    const user = await makeUser(t.db);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const g = await insertGrant(t.db, {
        userId: user.id,
        tokenHash: newToken(),
        operation: { type: "search", query: `q${i}` },
        maxUses: 1,
        expiresAt: hour(),
      });
      ids.push(g.id);
    }
    const page1 = await listGrants(t.db, user.id, { limit: 2 });
    const page2 = await listGrants(t.db, user.id, { limit: 2, cursor: page1.nextCursor });
    const listed = [...page1.items, ...page2.items];
    expect(new Set(listed.map((g) => g.id))).toEqual(new Set(ids));
    expect(page2.nextCursor).toBeNull();
    const times = listed.map((g) => g.createdAt.getTime());
    expect([...times].sort((a, b) => b - a)).toEqual(times);

    const grantId = ids[0] ?? "";
    for (const outcome of ["ok", "exhausted", "revoked"] as const) {
      await insertGrantAudit(t.db, {
        grantId,
        userId: user.id,
        outcome,
        ip: "10.0.0.1",
        userAgent: "ua",
      });
    }
    await insertGrantAudit(t.db, {
      grantId: null,
      userId: null,
      outcome: "not_found",
      ip: null,
      userAgent: null,
    });
    const audit1 = await listGrantAudit(t.db, user.id, grantId, { limit: 2 });
    expect(audit1.items.map((a) => a.outcome)).toEqual(["revoked", "exhausted"]);
    const audit2 = await listGrantAudit(t.db, user.id, grantId, {
      limit: 2,
      cursor: audit1.nextCursor,
    });
    expect(audit2.items.map((a) => a.outcome)).toEqual(["ok"]);
    expect(audit2.items[0]).toMatchObject({ ip: "10.0.0.1", userAgent: "ua" });
    expect(audit2.nextCursor).toBeNull();
  });
});
