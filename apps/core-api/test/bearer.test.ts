/**
 * The session user load of docs/protocol.md §3 ("Resolving a bearer token", step 3) under concurrency:
 * `createUserLoader` answers the loads of one event-loop turn with one lookup on the real
 * database, never from a cache, and resolveBearer built on it gives each concurrent request its
 * own user.
 */
import { createUserLoader, resolveBearer } from "@verifiable-memory/auth";
import { getUsersByIds, type User } from "@verifiable-memory/db-schema";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newWallet, signIn, startTestApp, type TestApp } from "./helpers.js";

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t.close();
});

/** A loader over the test database that records each lookup's ids. */
function countingLoader() {
  const lookups: string[][] = [];
  const loader = createUserLoader((ids) => {
    lookups.push([...ids]);
    return getUsersByIds(t.db, ids);
  });
  return { loader, lookups };
}

describe("session user loader", () => {
  it("answers the loads of one turn with one lookup, each with its own user or null", async () => {
    const signedIn = await Promise.all(
      Array.from({ length: 10 }, () => signIn(t.app, newWallet())),
    );
    const { loader, lookups } = countingLoader();
    const ids = [...signedIn.map((s) => s.userId), "no-such-user", signedIn[3]?.userId ?? ""];
    const users = await Promise.all(ids.map((id) => loader.load(id)));
    expect(lookups).toHaveLength(1);
    expect(users.map((u) => u?.id ?? null)).toEqual([...ids.slice(0, 10), null, ids[3]]);
    expect(new Set(users.map((u) => u?.ownerPubkey)).size).toBe(11);
  });

  it("reads the database again on every later load (nothing cached)", async () => {
    const { userId } = await signIn(t.app, newWallet());
    const { loader, lookups } = countingLoader();
    const before = (await loader.load(userId)) as User;
    await t.sql`update users set wrapped_data_key = ${Buffer.alloc(60, 1)} where id = ${userId}`;
    const after = (await loader.load(userId)) as User;
    expect(lookups).toHaveLength(2);
    expect(Buffer.from(after.wrappedDataKey)).toEqual(Buffer.alloc(60, 1));
    expect(Buffer.from(before.wrappedDataKey)).not.toEqual(Buffer.alloc(60, 1));
  });

  it("a failed lookup rejects the loads of its turn only", async () => {
    const { userId } = await signIn(t.app, newWallet());
    let fail = true;
    const loader = createUserLoader((ids) => {
      if (fail) {
        fail = false;
        return Promise.reject(new Error("database down"));
      }
      return getUsersByIds(t.db, ids);
    });
    const failed = await Promise.allSettled([loader.load(userId), loader.load(userId)]);
    expect(failed.map((r) => r.status)).toEqual(["rejected", "rejected"]);
    expect((await loader.load(userId))?.id).toBe(userId);
  });

  it("resolveBearer gives 30 concurrent sessions of 30 users each its own user", async () => {
    const sessions = await Promise.all(
      Array.from({ length: 30 }, () => signIn(t.app, newWallet())),
    );
    const deps = { db: t.db, secret: t.config.jwtSecret, clock: t.clock };
    const resolved = await Promise.all(sessions.map((s) => resolveBearer(deps, s.token)));
    expect(resolved.map((r) => r.userId)).toEqual(sessions.map((s) => s.userId));
    expect(resolved.every((r) => r.credential === "session")).toBe(true);
  });
});
