/**
 * `POST /memories/search` over HTTP: substring recall, case sensitivity, metadata filters, limits,
 * read-your-writes and deletions by another instance. The recall cache itself is tested in
 * packages/memory/test/recall/.
 * @module
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callAt, newUser, startTestApp, type TestApp, type TestUser } from "./helpers.js";

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
  user = await newUser(t.app);
  for (const [key, content, metadata] of corpus) {
    const res = await callAt<{ id: string }>(t.app, "/memories", {
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
  return callAt<{ items: Hit[]; scanned: number }>(app.app, "/memories/search", {
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

  it("stops at limit (plus the one match that tells whether more follow), counting what it scanned", async () => {
    const res = await search({ query: "e", limit: 2 });
    expect(res.body.items.map((h) => h.id)).toEqual([ids.e, ids.d]);
    expect(res.body.scanned).toBe(3);
  });

  it("sees new writes at once (read your writes through the warm cache)", async () => {
    await search({ query: "warm-up" });
    const created = await callAt<{ id: string }>(t.app, "/memories", {
      headers: user.headers,
      body: { content: "a freshly written kangaroo" },
    });
    const res = await search({ query: "KANGAROO" });
    expect(res.body.items.map((h) => h.id)).toEqual([created.body.id]);
  });

  it("drops memories deleted by another instance sharing the database from its warm cache", async () => {
    const other = await startTestApp({ shareDatabaseOf: t, clock: t.clock });
    try {
      const created = await callAt<{ id: string }>(t.app, "/memories", {
        headers: user.headers,
        body: { content: "wombat facts" },
      });
      expect((await search({ query: "wombat" })).body.items).toHaveLength(1);
      const del = await other.app.request(`/memories/${created.body.id}`, {
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
