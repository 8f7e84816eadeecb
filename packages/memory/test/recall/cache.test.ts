/**
 * The recall cache against real PostgreSQL: its size bound (least recently used users evicted, a
 * log larger than the cap searched and not kept); at scale, answers equal to a plain
 * newest-first scan through cold loads, refreshes reading appends and deletions (this process's
 * own and deletions made behind its back) and compaction. Search and ranking over a cached log
 * without the database: search.test.ts.
 * @module
 */
import { randomBytes } from "node:crypto";
import { isDeepStrictEqual } from "node:util";
import { systemClock } from "@verifiable-memory/clock";
import { deleteMemory } from "@verifiable-memory/db-schema";
import { createTestDatabase, type TestDatabase } from "@verifiable-memory/db-schema/testing";
import { toHex } from "@verifiable-memory/merkle-log";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AppendQueue, MemoryService, RecallCache, type RecallQuery } from "../../src/index.js";
import { createTestOwner, type TestOwner } from "../../src/testing/index.js";

let t: TestDatabase;
const masterKey = randomBytes(32);
const clock = systemClock;

beforeAll(async () => {
  t = await createTestDatabase();
});
afterAll(async () => {
  await t.close();
});

/** A memory service over `t` with its own queue and a recall cache it keeps up to date. */
function memoryService(options: { maxBatch?: number } = {}) {
  const recall = new RecallCache({ db: t.db, clock, maxBytes: 1 << 30 });
  const appendQueue = new AppendQueue(t.db, options);
  return { recall, service: new MemoryService({ db: t.db, clock, appendQueue, recall }) };
}

describe("RecallCache eviction", () => {
  it("keeps the estimated size under the cap by evicting least recently used users", async () => {
    const { service } = memoryService();
    const users = await Promise.all([0, 1, 2].map(() => createTestOwner(t.db, masterKey)));
    const write = (u: TestOwner, content: string, metadata: Record<string, unknown> = {}) =>
      service.create(u.owner, u.dataKey, { content: content, metadata: metadata });
    // User 0 holds more than the others: longer texts with metadata.
    for (const [content, metadata] of [
      ["The Quick brown fox", { source: "fable.md", tags: ["animals"] }],
      ["a lazy dog sleeps", { source: "fable.md", n: 2 }],
      ["QUICK thinking saves the day", { source: "news.md" }],
      ["nothing to see here", {}],
      ["the quick fix", { source: "fable.md", nested: { deep: [1, { x: true }] } }],
      ["a freshly written kangaroo", {}],
    ] as const) {
      await write(users[0] as TestOwner, content, metadata);
    }
    for (const u of users.slice(1)) {
      for (let i = 0; i < 5; i++) {
        await write(u, `entry ${i} of a user`);
      }
    }
    const userIds = users.map((u) => u.owner.userId);
    const keys = users.map((u) => u.dataKey);
    const query: RecallQuery = {
      query: "e",
      caseSensitive: false,
      filter: {},
      rank: "recency",
      limit: 200,
    };
    const probe = new RecallCache({ db: t.db, clock, maxBytes: 1 << 30 });
    await probe.search(userIds[1] ?? "", keys[1] ?? new Uint8Array(), query);
    const oneUser = probe.stats().bytes;
    expect(oneUser).toBeGreaterThan(0);

    // Room for about two users of this size.
    const cache = new RecallCache({ db: t.db, clock, maxBytes: Math.floor(oneUser * 2.5) });
    const hits: number[] = [];
    for (const i of [1, 2, 1, 0]) {
      const res = await cache.search(userIds[i] ?? "", keys[i] ?? new Uint8Array(), query);
      hits.push(res.items.length);
      expect(cache.stats().bytes).toBeLessThanOrEqual(Math.floor(oneUser * 2.5));
    }
    // Searching user 0 (larger than the others) evicted the least recently used: user 2.
    const stats = cache.stats();
    expect(stats.evictions).toBeGreaterThanOrEqual(1);
    expect(stats.users).toBeLessThanOrEqual(2);
    // Evicted users are reloaded on demand and answer the same.
    const again = await cache.search(userIds[2] ?? "", keys[2] ?? new Uint8Array(), query);
    expect(again.items.length).toBe(hits[1]);

    // A log larger than the whole cap is searched and not kept.
    const tiny = new RecallCache({ db: t.db, clock, maxBytes: 10 });
    const res = await tiny.search(userIds[1] ?? "", keys[1] ?? new Uint8Array(), query);
    expect(res.items.length).toBe(5);
    expect(tiny.stats()).toMatchObject({ users: 0, bytes: 0, evictions: 0 });
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
    const needle = query.caseSensitive ? (query.query ?? "") : (query.query ?? "").toLowerCase();
    const items: Known[] = [];
    let scanned = 0;
    for (let i = live.length - 1; i >= 0 && items.length <= query.limit; i--) {
      const m = live[i] as Known;
      scanned++;
      const text = query.caseSensitive ? m.content : m.content.toLowerCase();
      const filter = Object.entries(query.filter.metadata ?? {});
      if (
        text.includes(needle) &&
        filter.every(
          ([k, v]) => Object.hasOwn(m.metadata, k) && isDeepStrictEqual(m.metadata[k], v),
        )
      ) {
        items.push(m);
      }
    }
    return { items: items.slice(0, query.limit), scanned, more: items.length > query.limit };
  }

  it("answers exactly as a plain scan through loads, appends, deletions and compaction", async () => {
    const random = prng(20261122);
    const pick = <T>(xs: readonly T[]) => xs[Math.floor(random() * xs.length)] as T;
    const { owner: who, dataKey } = await createTestOwner(t.db, masterKey);
    const { recall: cache, service } = memoryService({ maxBatch: 2000 });
    const live: Known[] = [];
    const write = async (count: number) => {
      const made = await Promise.all(
        Array.from({ length: count }, async () => {
          const words = Array.from({ length: 1 + Math.floor(random() * 12) }, () => pick(WORDS));
          const content = words.join(random() < 0.5 ? " " : "");
          const metadata = pick(METADATA);
          const created = await service.create(who, dataKey, {
            content: content,
            metadata: metadata,
          });
          return { ...created, content, metadata: { ...metadata } };
        }),
      );
      live.push(...made.sort((x, y) => x.leafIndex - y.leafIndex));
    };
    const check = async (rounds: number) => {
      for (let round = 0; round < rounds; round++) {
        const source = pick(live).content;
        const start = Math.floor(random() * source.length);
        const filterOnly = random() < 0.25; // answered from the equality index of `source`
        const query: RecallQuery = {
          query: filterOnly
            ? undefined
            : random() < 0.7
              ? source.slice(start, start + 1 + Math.floor(random() * 8)) || "a"
              : pick([...WORDS, "ß", "ss", "i̇", "σ", "ς", "\u0000", "a\u0000b", "zzz"]),
          caseSensitive: random() < 0.3,
          filter: {
            metadata: filterOnly || random() < 0.2 ? pick(METADATA.slice(1)) : undefined,
          },
          rank: "recency",
          limit: pick([1, 2, 5, 20, 200]),
        };
        const got = await cache.search(who.userId, dataKey, query);
        const want = reference(live, query);
        expect({
          query,
          scanned: got.scanned,
          more: got.more,
          items: got.items.map((e) => e.id),
        }).toEqual({
          query,
          scanned: want.scanned,
          more: want.more,
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
          await service.delete(who, dataKey, victim.id);
        } else {
          expect(await deleteMemory(t.db, who.userId, victim.id, clock.now())).toBe(true);
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
    const fresh = new RecallCache({ db: t.db, clock, maxBytes: 1 << 30 });
    await fresh.search(who.userId, dataKey, {
      query: "a",
      caseSensitive: false,
      filter: {},
      rank: "recency",
      limit: 1,
    });
    expect(cache.stats().bytes / fresh.stats().bytes).toBeGreaterThan(0.98);
    expect(cache.stats().bytes / fresh.stats().bytes).toBeLessThan(1.15);
  }, 120_000);
});
