import { isDeepStrictEqual } from "node:util";
import { deleteMemory, getUserById } from "@svc/db-schema";
import { unwrapDataKey } from "@svc/envelope-crypto";
import { toHex } from "@svc/merkle-log";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AppendQueue } from "../src/services/append-queue.js";
import { MemoryService } from "../src/services/memories.js";
import { RecallCache, type RecallQuery } from "../src/services/recall-cache.js";
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

describe("RecallCache at scale: text blocks, tail, deletions, compaction", () => {
  /** A small deterministic PRNG (mulberry32), so a failure replays. */
  function prng(seed: number): () => number {
    let a = seed;
    return () => {
      a = (a + 0x6d2b79f5) | 0;
      let x = Math.imul(a ^ (a >>> 15), 1 | a);
      x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
      return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
    };
  }
  // Mixed case, non-ASCII (two-byte strings, lower-casing that changes length or depends on
  // context: İ, final sigma), astral characters, NUL and newline (the block separator is NUL).
  const WORDS = [
    "alpha",
    "Beta",
    "GAMMA",
    "delta",
    "Straße",
    "İstanbul",
    "ΣΊΣΥΦΟΣ",
    "naïve",
    "🦊fox",
    "記憶",
    "x\u0000y",
    "line\nbreak",
    "a",
    "b",
  ];
  const METADATA: Record<string, unknown>[] = [
    {},
    {},
    { source: "a" },
    { source: "b", tags: ["x"] },
  ];

  interface Known {
    id: string;
    leafIndex: number;
    content: string;
    metadata: Record<string, unknown>;
    leafHash: string;
    createdAt: string;
  }

  /** The recall answer by definition: a newest-first scan of the live memories. */
  function reference(live: readonly Known[], query: RecallQuery) {
    const needle = query.caseSensitive ? query.query : query.query.toLowerCase();
    const items: Known[] = [];
    let scanned = 0;
    for (let i = live.length - 1; i >= 0 && items.length < query.limit; i--) {
      const m = live[i] as Known;
      scanned++;
      const text = query.caseSensitive ? m.content : m.content.toLowerCase();
      const filter = Object.entries(query.metadata ?? {});
      if (
        text.includes(needle) &&
        filter.every(
          ([k, v]) => Object.hasOwn(m.metadata, k) && isDeepStrictEqual(m.metadata[k], v),
        )
      ) {
        items.push(m);
      }
    }
    return { items, scanned };
  }

  it("answers exactly as a plain scan through loads, appends, deletions and compaction", async () => {
    const random = prng(20261122);
    const pick = <T>(xs: readonly T[]) => xs[Math.floor(random() * xs.length)] as T;
    const owner = await newUser(t.url);
    const row = await getUserById(t.db, owner.userId);
    const dataKey = unwrapDataKey(
      t.config.masterKey,
      row?.wrappedDataKey ?? new Uint8Array(),
      owner.userId,
    );
    const cache = new RecallCache({ db: t.db, clock: t.clock, maxBytes: 1 << 30 });
    const service = new MemoryService({
      db: t.db,
      clock: t.clock,
      appendQueue: new AppendQueue(t.db, { maxBatch: 2000 }),
      recall: cache,
    });
    const who = { userId: owner.userId, ownerPubkey: owner.wallet.publicKey };
    const live: Known[] = [];
    const write = async (count: number) => {
      const made = await Promise.all(
        Array.from({ length: count }, async () => {
          const words = Array.from({ length: 1 + Math.floor(random() * 12) }, () => pick(WORDS));
          const content = words.join(random() < 0.5 ? " " : "");
          const metadata = pick(METADATA);
          const created = await service.create(who, dataKey, content, metadata);
          return { ...created, content, metadata: { ...metadata } };
        }),
      );
      live.push(...made.sort((x, y) => x.leafIndex - y.leafIndex));
    };
    const check = async (rounds: number) => {
      for (let round = 0; round < rounds; round++) {
        const source = pick(live).content;
        const start = Math.floor(random() * source.length);
        const query: RecallQuery = {
          query:
            random() < 0.7
              ? source.slice(start, start + 1 + Math.floor(random() * 8)) || "a"
              : pick([...WORDS, "ß", "ss", "i̇", "σ", "ς", "\u0000", "a\u0000b", "zzz"]),
          caseSensitive: random() < 0.3,
          metadata: random() < 0.2 ? pick(METADATA.slice(1)) : undefined,
          limit: pick([1, 2, 5, 20, 200]),
        };
        const got = await cache.search(owner.userId, dataKey, query);
        const want = reference(live, query);
        expect({ query, scanned: got.scanned, items: got.items.map((e) => e.id) }).toEqual({
          query,
          scanned: want.scanned,
          items: want.items.map((m) => m.id),
        });
        for (const [i, entry] of got.items.entries()) {
          const known = want.items[i] as Known;
          expect(entry.content).toBe(known.content);
          expect(entry.metadata).toEqual(known.metadata);
          expect(entry.leafIndex).toBe(known.leafIndex);
          expect(toHex(entry.leafHash)).toBe(known.leafHash);
          expect(entry.createdAt.toISOString()).toBe(known.createdAt);
        }
      }
    };
    const deleteSome = async (count: number, how: "forget" | "behind") => {
      for (let i = 0; i < count; i++) {
        const victim = live.splice(Math.floor(random() * live.length), 1)[0] as Known;
        if (how === "forget") {
          await service.delete(who, victim.id);
        } else {
          expect(await deleteMemory(t.db, owner.userId, victim.id, t.clock.now())).toBe(true);
        }
      }
    };

    await write(5000); // a cold load of one full block, then a sealed tail of 904
    await check(150);
    await write(300); // warm appends stay in the tail
    await check(60);
    await deleteSome(40, "forget");
    await deleteSome(40, "behind");
    await check(60);
    await write(700); // the tail passes the sealing threshold
    await check(60);
    const before = cache.stats().bytes;
    await deleteSome(3400, "forget"); // more than half: compaction
    await check(100);
    expect(cache.stats().bytes).toBeLessThan(before / 2);
    // The estimate after compaction is close to a cold load of the same live memories: above it
    // only by the texts of the memories deleted since, which stay in their blocks until the next
    // compaction (and stay counted).
    const fresh = new RecallCache({ db: t.db, clock: t.clock, maxBytes: 1 << 30 });
    await fresh.search(owner.userId, dataKey, {
      query: "a",
      caseSensitive: false,
      metadata: undefined,
      limit: 1,
    });
    expect(cache.stats().bytes / fresh.stats().bytes).toBeGreaterThan(0.98);
    expect(cache.stats().bytes / fresh.stats().bytes).toBeLessThan(1.15);
  }, 120_000);
});
