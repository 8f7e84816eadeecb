import { getUserById } from "@svc/db-schema";
import { unwrapDataKey } from "@svc/envelope-crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RecallCache } from "../src/services/recall-cache.js";
import { call, newUser, startTestApp, type TestApp, type TestUser } from "./helpers.js";

interface Hit {
  id: string;
  content: string;
  metadata: Record<string, unknown>;
  leafIndex: number;
}

let t: TestApp;
let user: TestUser;
const ids: Record<string, string> = {};

const corpus: [string, string, Record<string, unknown>][] = [
  ["a", "The Quick brown fox", { source: "fable.md", tags: ["animals"] }],
  ["b", "a lazy dog sleeps", { source: "fable.md", n: 2 }],
  ["c", "QUICK thinking saves the day", { source: "news.md" }],
  ["d", "nothing to see here", {}],
  [
    "e",
    "the quick fix",
    { source: "fable.md", tags: ["animals"], nested: { deep: [1, { x: true }] } },
  ],
];

beforeAll(async () => {
  t = await startTestApp();
  user = await newUser(t.url);
  for (const [key, content, metadata] of corpus) {
    const res = await call<{ id: string }>(`${t.url}/memories`, {
      headers: user.headers,
      body: { content, metadata },
    });
    ids[key] = res.body.id;
  }
});
afterAll(async () => {
  await t.close();
});

function search(body: Record<string, unknown>, app: TestApp = t) {
  return call<{ items: Hit[]; scanned: number }>(`${app.url}/memories/search`, {
    headers: user.headers,
    body,
  });
}

describe("POST /memories/search", () => {
  it("matches substrings case-insensitively by default, newest first", async () => {
    const res = await search({ query: "quick" });
    expect(res.status).toBe(200);
    expect(res.body.items.map((h) => h.id)).toEqual([ids.e, ids.c, ids.a]);
    expect(res.body.scanned).toBe(5);
    expect(res.body.items[0]).toMatchObject({ content: "the quick fix", anchored: false });
  });

  it("honours caseSensitive", async () => {
    const res = await search({ query: "QUICK", caseSensitive: true });
    expect(res.body.items.map((h) => h.id)).toEqual([ids.c]);
  });

  it("filters on top-level metadata keys by exact (deep) equality", async () => {
    expect(
      (await search({ query: "quick", metadata: { source: "fable.md" } })).body.items.map(
        (h) => h.id,
      ),
    ).toEqual([ids.e, ids.a]);
    expect(
      (
        await search({ query: "quick", metadata: { tags: ["animals"], source: "fable.md" } })
      ).body.items.map((h) => h.id),
    ).toEqual([ids.e, ids.a]);
    expect(
      (
        await search({ query: "the", metadata: { nested: { deep: [1, { x: true }] } } })
      ).body.items.map((h) => h.id),
    ).toEqual([ids.e]);
    expect((await search({ query: "quick", metadata: { tags: "animals" } })).body.items).toEqual(
      [],
    );
    expect((await search({ query: "quick", metadata: { constructor: "x" } })).body.items).toEqual(
      [],
    );
  });

  it("stops at limit, counting what it scanned", async () => {
    const res = await search({ query: "e", limit: 2 });
    expect(res.body.items.map((h) => h.id)).toEqual([ids.e, ids.d]);
    expect(res.body.scanned).toBe(2);
  });

  it("sees new writes at once (read your writes through the warm cache)", async () => {
    await search({ query: "warm-up" });
    const created = await call<{ id: string }>(`${t.url}/memories`, {
      headers: user.headers,
      body: { content: "a freshly written kangaroo" },
    });
    const res = await search({ query: "KANGAROO" });
    expect(res.body.items.map((h) => h.id)).toEqual([created.body.id]);
  });

  it("drops memories deleted by another instance sharing the database from its warm cache", async () => {
    const other = await startTestApp({ shareDatabaseOf: t, clock: t.clock });
    try {
      const created = await call<{ id: string }>(`${t.url}/memories`, {
        headers: user.headers,
        body: { content: "wombat facts" },
      });
      expect((await search({ query: "wombat" })).body.items).toHaveLength(1);
      const del = await fetch(`${other.url}/memories/${created.body.id}`, {
        method: "DELETE",
        headers: user.headers,
      });
      expect(del.status).toBe(204);
      expect((await search({ query: "wombat" })).body.items).toEqual([]);
      // And the other instance, cold, never shows it either.
      expect((await search({ query: "wombat" }, other)).body.items).toEqual([]);
    } finally {
      await other.close();
    }
  });

  it("answers identically with caching disabled (RECALL_CACHE_MAX_BYTES=0)", async () => {
    const uncached = await startTestApp({
      shareDatabaseOf: t,
      clock: t.clock,
      env: { RECALL_CACHE_MAX_BYTES: "0" },
    });
    try {
      const a = await search({ query: "quick" });
      const b = await search({ query: "quick" }, uncached);
      expect(b.body).toEqual(a.body);
    } finally {
      await uncached.close();
    }
  });
});

describe("RecallCache eviction", () => {
  it("keeps the estimated size under the cap by evicting least recently used users", async () => {
    const users = [user, await newUser(t.url), await newUser(t.url)];
    for (const u of users.slice(1)) {
      for (let i = 0; i < 5; i++) {
        await call(`${t.url}/memories`, {
          headers: u.headers,
          body: { content: `entry ${i} of a user` },
        });
      }
    }
    const keys = await Promise.all(
      users.map(async (u) => {
        const row = await getUserById(t.db, u.userId);
        return unwrapDataKey(t.config.masterKey, row?.wrappedDataKey ?? new Uint8Array(), u.userId);
      }),
    );
    const query = { query: "e", caseSensitive: false, metadata: undefined, limit: 200 };
    const probe = new RecallCache({ db: t.db, clock: t.clock, maxBytes: 1 << 30 });
    await probe.search(users[1]?.userId ?? "", keys[1] ?? new Uint8Array(), query);
    const oneUser = probe.stats().bytes;
    expect(oneUser).toBeGreaterThan(0);

    // Room for about two users of this size.
    const cache = new RecallCache({
      db: t.db,
      clock: t.clock,
      maxBytes: Math.floor(oneUser * 2.5),
    });
    const hits: number[] = [];
    for (const i of [1, 2, 1, 0]) {
      const res = await cache.search(users[i]?.userId ?? "", keys[i] ?? new Uint8Array(), query);
      hits.push(res.items.length);
      expect(cache.stats().bytes).toBeLessThanOrEqual(Math.floor(oneUser * 2.5));
    }
    // Searching user 0 (larger than the others) evicted the least recently used: user 2.
    const stats = cache.stats();
    expect(stats.evictions).toBeGreaterThanOrEqual(1);
    expect(stats.users).toBeLessThanOrEqual(2);
    // Evicted users are reloaded on demand and answer the same.
    const again = await cache.search(users[2]?.userId ?? "", keys[2] ?? new Uint8Array(), query);
    expect(again.items.length).toBe(hits[1]);

    // A log larger than the whole cap is searched and not kept.
    const tiny = new RecallCache({ db: t.db, clock: t.clock, maxBytes: 10 });
    const res = await tiny.search(users[1]?.userId ?? "", keys[1] ?? new Uint8Array(), query);
    expect(res.items.length).toBe(5);
    expect(tiny.stats()).toEqual({ users: 0, bytes: 0, evictions: 0 });
  });
});
