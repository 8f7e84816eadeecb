/**
 * The leader lock (docs/protocol.md §7.7 "Leader election and the anchor service's surface"): one
 * holder at a time, re-acquiring is idempotent, a released or dropped session frees it for the
 * standby, and a holder whose session was killed notices that it lost the lock. Real PostgreSQL.
 */
import { createTestDatabase, type TestDatabase } from "@verifiable-memory/db-schema/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLeaderLock } from "../src/leader-lock.js";

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase({ max: 2 });
});
afterAll(async () => {
  await t.close();
});

// A key per test, so the tests do not share a lock.
let key = 0x5356_0000_0000;
const nextKey = () => ++key;

async function lockHolders(k: number): Promise<number> {
  const rows = await t.sql<{ n: string }[]>`
    select count(*) as n from pg_locks
    where locktype = 'advisory' and granted and objsubid = 1
      and classid::bigint = ${Math.floor(k / 2 ** 32)} and objid::bigint = ${k % 2 ** 32}`;
  return Number(rows[0]?.n);
}

describe("createLeaderLock", () => {
  it("admits one holder; the standby gets the lock once it is released", async () => {
    const k = nextKey();
    const a = createLeaderLock(t.url, k);
    const b = createLeaderLock(t.url, k);
    try {
      expect(await a.acquire()).toBe(true);
      expect(await b.acquire()).toBe(false);
      expect(await a.acquire()).toBe(true); // still held, not stacked
      expect(await lockHolders(k)).toBe(1);
      await a.release();
      expect(await lockHolders(k)).toBe(0); // one release frees it: the lock was never stacked
      expect(await b.acquire()).toBe(true);
      expect(await a.acquire()).toBe(false);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it("frees the lock when the holder's connection closes", async () => {
    const k = nextKey();
    const a = createLeaderLock(t.url, k);
    const b = createLeaderLock(t.url, k);
    try {
      expect(await a.acquire()).toBe(true);
      expect(await b.acquire()).toBe(false);
      await a.close();
      expect(await b.acquire()).toBe(true);
    } finally {
      await b.close();
    }
  });

  it("a holder whose session was killed notices the loss and does not act as leader", async () => {
    const k = nextKey();
    const a = createLeaderLock(t.url, k);
    const b = createLeaderLock(t.url, k);
    try {
      expect(await a.acquire()).toBe(true);
      const [holder] = await t.sql<{ pid: number }[]>`
        select pid from pg_locks where locktype = 'advisory' and granted and objsubid = 1
          and classid::bigint = ${Math.floor(k / 2 ** 32)} and objid::bigint = ${k % 2 ** 32}`;
      await t.sql`select pg_terminate_backend(${holder?.pid ?? 0})`;
      expect(await b.acquire()).toBe(true);
      // a's next check runs on a fresh session (postgres.js reconnects): it holds nothing.
      await expect(a.acquire().catch(() => a.acquire())).resolves.toBe(false);
    } finally {
      await a.close();
      await b.close();
    }
  });
});
