/**
 * The agent memory model's memories (docs/protocol.md §4.7 "Updates and history", §4.5 "Recall",
 * §5.1 "Leaf data" version 2), over real HTTP, real PostgreSQL and the real program on the local
 * chain: updates with a provable history, filters with operators, relevance ranking and search
 * cursors; version-1 leaves keep verifying. Namespaces and API keys: agent-keys.test.ts.
 */
import { randomUUID } from "node:crypto";
import { appendMemories, getUserById } from "@verifiable-memory/db-schema";
import { memoryLeaf, newSalt, sealMemoryBody } from "@verifiable-memory/memory";
import { type ProofBundle, verifyBundle } from "@verifiable-memory/verifier";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  agentHarness,
  type ErrorBody,
  type Memory,
  type Page,
  type SearchPage,
} from "./_agent-model.js";
import { callAt, newUser } from "./helpers.js";

const h = agentHarness();

describe("updates with provable history", () => {
  it("appends a version that supersedes; lists show current versions; history proves every version on chain", async () => {
    const user = await newUser(h.t.app);
    const v1 = await h.write(user.headers, {
      content: "the user lives in Paris",
      metadata: { topic: "home" },
      namespace: "profile",
    });
    const other = await h.write(user.headers, { content: "unrelated" });
    const v2 = await callAt<Memory>(h.t.app, `/memories/${v1.body.id}`, {
      method: "PUT",
      headers: user.headers,
      body: { content: "the user lives in Lyon", metadata: { topic: "home" } },
    });
    expect(v2.status).toBe(201);
    expect(v2.body).toMatchObject({ supersedes: v1.body.id, namespace: "profile", leafIndex: 2 });
    const v3 = await callAt<Memory>(h.t.app, `/memories/${v2.body.id}`, {
      method: "PUT",
      headers: user.headers,
      body: { content: "the user lives in Nice" },
    });
    expect(v3.status).toBe(201);

    const old = await callAt<Memory>(h.t.app, `/memories/${v1.body.id}`, { headers: user.headers });
    expect(old.body).toMatchObject({
      content: "the user lives in Paris",
      supersededBy: v2.body.id,
    });
    const current = await callAt<Page>(h.t.app, "/memories", { headers: user.headers });
    expect(current.body.items.map((m) => m.id)).toEqual([v3.body.id, other.body.id]);
    const everything = await callAt<Page>(h.t.app, "/memories?includeSuperseded=true", {
      headers: user.headers,
    });
    expect(everything.body.items).toHaveLength(4);
    const lives = await h.search(user.headers, { query: "lives" });
    expect(lives.body.items.map((m) => m.id)).toEqual([v3.body.id]);
    const allLives = await h.search(user.headers, { query: "lives", includeSuperseded: true });
    expect(allLives.body.items.map((m) => m.id)).toEqual([v3.body.id, v2.body.id, v1.body.id]);

    await h.anchorAll(user, 4, 0);
    for (const id of [v1.body.id, v2.body.id, v3.body.id]) {
      const history = await callAt<{ items: (Memory & { proof: ProofBundle })[] }>(
        h.t.app,
        `/memories/${id}/history`,
        { headers: user.headers },
      );
      expect(history.status).toBe(200);
      expect(history.body.items.map((m) => m.id)).toEqual([v1.body.id, v2.body.id, v3.body.id]);
      expect(history.body.items.map((m) => m.proof.leafData)).toMatchObject([
        { v: 2, supersedes: null },
        { v: 2, supersedes: v1.body.id },
        { v: 2, supersedes: v2.body.id },
      ]);
      for (const version of history.body.items) {
        const audit = await verifyBundle(version.proof, {
          rpcUrl: h.chainUrl,
          content: version.content,
        });
        expect(audit, version.id).toMatchObject({ verified: true, contentChecked: true });
      }
    }
  });

  it("refuses to update a superseded or deleted memory (409) and an unknown one (404)", async () => {
    const user = await newUser(h.t.app);
    const v1 = await h.write(user.headers, { content: "first" });
    const put = (id: string) =>
      callAt<ErrorBody & Memory>(h.t.app, `/memories/${id}`, {
        method: "PUT",
        headers: user.headers,
        body: { content: "next" },
      });
    expect((await put(v1.body.id)).status).toBe(201);
    const again = await put(v1.body.id);
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe("conflict");
    const gone = await h.write(user.headers, { content: "to delete" });
    await callAt(h.t.app, `/memories/${gone.body.id}`, { method: "DELETE", headers: user.headers });
    expect((await put(gone.body.id)).status).toBe(409);
    expect((await put(randomUUID())).status).toBe(404);
  });

  it("lets exactly one of two concurrent updates of one memory win; the other answers 409", async () => {
    const user = await newUser(h.t.app);
    for (let round = 0; round < 5; round++) {
      const base = await h.write(user.headers, { content: `base ${round}` });
      const answers = await Promise.all(
        ["left", "right"].map((side) =>
          callAt<Memory>(h.t.app, `/memories/${base.body.id}`, {
            method: "PUT",
            headers: user.headers,
            body: { content: `${side} ${round}` },
          }),
        ),
      );
      expect(answers.map((a) => a.status).sort()).toEqual([201, 409]);
      const winner = answers.find((a) => a.status === 201) as { body: Memory };
      const history = await callAt<{ items: Memory[] }>(
        h.t.app,
        `/memories/${base.body.id}/history`,
        {
          headers: user.headers,
        },
      );
      expect(history.body.items.map((m) => m.id)).toEqual([base.body.id, winner.body.id]);
    }
    const count = await h.t.sql<{ n: string }[]>`
      select count(*) as n from memories where user_id = ${user.userId}`;
    expect(Number(count[0]?.n)).toBe(10);
  });

  it("deleting one version destroys only that version's body; the others stay readable and provable", async () => {
    const user = await newUser(h.t.app);
    const v1 = await h.write(user.headers, { content: "version one" });
    const v2 = await callAt<Memory>(h.t.app, `/memories/${v1.body.id}`, {
      method: "PUT",
      headers: user.headers,
      body: { content: "version two" },
    });
    const del = await callAt(h.t.app, `/memories/${v2.body.id}`, {
      method: "DELETE",
      headers: user.headers,
    });
    expect(del.status).toBe(204);
    const row = await h.t.sql<{ ciphertext: Buffer | null }[]>`
      select ciphertext from memories where id = ${v2.body.id}`;
    expect(row[0]?.ciphertext).toBeNull();
    const first = await callAt<Memory>(h.t.app, `/memories/${v1.body.id}`, {
      headers: user.headers,
    });
    expect(first.body.content).toBe("version one");
    const history = await callAt<{ items: Memory[] }>(h.t.app, `/memories/${v1.body.id}/history`, {
      headers: user.headers,
    });
    expect(history.body.items.map((m) => m.id)).toEqual([v1.body.id]);
    expect(
      (await callAt(h.t.app, `/memories/${v1.body.id}/proof`, { headers: user.headers })).status,
    ).toBe(200);
  });
});

describe("filters, ranking and cursors", () => {
  const TAGS = ["red", "green", "blue"];

  /** The answer by definition: a filter over the plaintexts, newest first. */
  function reference(
    memories: readonly { id: string; metadata: Record<string, unknown>; createdAt: string }[],
    filter: {
      n?: number | { $gte?: number; $lte?: number } | { $in: number[] };
      tags?: { $contains: string };
      color?: string;
      createdAfter?: string;
    },
  ): string[] {
    return memories
      .filter((m) => {
        const n = m.metadata.n as number;
        if (typeof filter.n === "number" && n !== filter.n) {
          return false;
        }
        if (typeof filter.n === "object" && "$in" in filter.n && !filter.n.$in.includes(n)) {
          return false;
        }
        if (typeof filter.n === "object" && "$gte" in filter.n && filter.n.$gte !== undefined) {
          if (!(n >= filter.n.$gte)) {
            return false;
          }
        }
        if (typeof filter.n === "object" && "$lte" in filter.n && filter.n.$lte !== undefined) {
          if (!(n <= filter.n.$lte)) {
            return false;
          }
        }
        if (filter.tags && !(m.metadata.tags as string[]).includes(filter.tags.$contains)) {
          return false;
        }
        if (filter.color !== undefined && m.metadata.color !== filter.color) {
          return false;
        }
        if (filter.createdAfter && !(Date.parse(m.createdAt) > Date.parse(filter.createdAfter))) {
          return false;
        }
        return true;
      })
      .map((m) => m.id)
      .reverse();
  }

  it("answers filter-only searches exactly as a reference filter over the plaintexts, page by page", async () => {
    const user = await newUser(h.t.app);
    const memories: { id: string; metadata: Record<string, unknown>; createdAt: string }[] = [];
    const rng = fc.sample(
      fc.record({
        n: fc.integer({ min: 0, max: 9 }),
        color: fc.constantFrom(...TAGS),
        tags: fc.subarray(TAGS),
      }),
      { numRuns: 60, seed: 20261125 },
    );
    for (const [i, metadata] of rng.entries()) {
      h.t.clock.advance(1000);
      const res = await h.write(user.headers, { content: `memory ${i}`, metadata });
      memories.push({ id: res.body.id, metadata, createdAt: res.body.createdAt });
    }
    const filterArb = fc.record(
      {
        n: fc.oneof(
          fc.integer({ min: 0, max: 9 }),
          fc.record({ $gte: fc.integer({ min: 0, max: 9 }) }),
          fc.record({ $lte: fc.integer({ min: 0, max: 9 }) }),
          fc.record({ $gte: fc.integer({ min: 0, max: 4 }), $lte: fc.integer({ min: 5, max: 9 }) }),
          fc.record({ $in: fc.array(fc.integer({ min: 0, max: 9 }), { maxLength: 4 }) }),
        ),
        tags: fc.record({ $contains: fc.constantFrom(...TAGS) }),
        color: fc.constantFrom(...TAGS),
        createdAfter: fc.constantFrom(...memories.map((m) => m.createdAt)),
      },
      { requiredKeys: [] },
    );
    await fc.assert(
      fc.asyncProperty(filterArb, fc.integer({ min: 1, max: 7 }), async (filter, limit) => {
        const { createdAfter, ...metadata } = filter;
        const want = reference(memories, filter);
        const body = {
          ...(Object.keys(metadata).length > 0 ? { metadata } : {}),
          ...(createdAfter ? { createdAfter } : {}),
        };
        if (Object.keys(body).length === 0) {
          return; // no filter at all needs a query (tested below)
        }
        const got: string[] = [];
        let cursor: string | null = null;
        do {
          const page: { status: number; body: SearchPage & ErrorBody } = await h.search(
            user.headers,
            { ...body, limit, ...(cursor ? { cursor } : {}) },
          );
          expect(page.status, JSON.stringify(page.body)).toBe(200);
          expect(page.body.items.length).toBeLessThanOrEqual(limit);
          got.push(...page.body.items.map((m) => m.id));
          cursor = page.body.nextCursor;
        } while (cursor);
        expect(got).toEqual(want);
      }),
      { numRuns: 40, seed: 4242 },
    );
  });

  it("needs a query without a filter, and for relevance; refuses a foreign cursor", async () => {
    const user = await newUser(h.t.app);
    for (const body of [{}, { limit: 5 }, { rank: "relevance", metadata: { a: 1 } }]) {
      const res = await h.search(user.headers, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
    }
    const bad = await h.search(user.headers, { query: "x", cursor: "bm90IGEgY3Vyc29y" });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body.error.details)).toContain("cursor");
  });

  it("ranks by BM25 relevance with a score per item, whole words only, paged by cursor", async () => {
    const user = await newUser(h.t.app);
    const docs = [
      "the cat sat on the mat",
      "a cat and another cat played with a cat toy",
      "concatenate the strings",
      "dogs chase the cat around the garden all day long in the summer heat",
      "nothing relevant here",
    ];
    const ids: string[] = [];
    for (const content of docs) {
      ids.push((await h.write(user.headers, { content })).body.id);
    }
    const res = await h.search(user.headers, { query: "cat", rank: "relevance", limit: 10 });
    expect(res.status).toBe(200);
    const got = res.body.items;
    expect(got.map((m) => m.id)).toEqual([ids[1], ids[0], ids[3]]);
    const scores = got.map((m) => m.score as number);
    expect(scores.every((s) => s > 0)).toBe(true);
    expect([...scores].sort((a, b) => b - a)).toEqual(scores);
    const paged: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { body: SearchPage } = await h.search(user.headers, {
        query: "cat",
        rank: "relevance",
        limit: 1,
        ...(cursor ? { cursor } : {}),
      });
      paged.push(...page.body.items.map((m) => m.id));
      cursor = page.body.nextCursor;
    } while (cursor);
    expect(paged).toEqual(got.map((m) => m.id));
    const twoTerms = await h.search(user.headers, { query: "cat garden", rank: "relevance" });
    expect(twoTerms.body.items[0]?.id).toBe(ids[3]);
  });
});

describe("version-1 leaves", () => {
  it("keep verifying exactly as before, beside version-2 leaves, through the API and the auditor", async () => {
    const user = await newUser(h.t.app);
    const row = await getUserById(h.t.db, user.userId);
    const dataKey = h.t.config.masterKeys.unwrap(row?.wrappedDataKey as Uint8Array, user.userId);
    const id = randomUUID();
    const createdAt = h.t.clock.now();
    const body = { salt: newSalt(), content: "written before namespaces existed" };
    const { leafData, leafHash } = memoryLeaf(
      { memoryId: id, owner: user.wallet.publicKey, createdAt, metadata: { old: true } },
      body,
    );
    expect(leafData.v).toBe(1);
    const sealed = sealMemoryBody(dataKey, body, { userId: user.userId, memoryId: id });
    await appendMemories(h.t.db, user.userId, [
      { id, ...sealed, leafHash, metadata: { old: true }, createdAt },
    ]);
    const v2 = await h.write(user.headers, { content: "written after" });
    await h.anchorAll(user, 2, 0);

    const read = await callAt<Memory>(h.t.app, `/memories/${id}`, { headers: user.headers });
    expect(read.body).toMatchObject({ writtenBy: null, namespace: null, supersedes: null });
    for (const [memoryId, content, v] of [
      [id, body.content, 1],
      [v2.body.id, "written after", 2],
    ] as const) {
      const proof = await callAt<ProofBundle>(h.t.app, `/memories/${memoryId}/proof`, {
        headers: user.headers,
      });
      expect(proof.body.leafData.v).toBe(v);
      expect(await verifyBundle(proof.body, { rpcUrl: h.chainUrl, content })).toMatchObject({
        verified: true,
      });
      const served = await callAt<{ verified: boolean }>(h.t.app, `/memories/${memoryId}/verify`, {
        headers: user.headers,
      });
      expect(served.body.verified).toBe(true);
    }
    // An update of a version-1 memory is a version-2 leaf that supersedes it.
    const updated = await callAt<Memory>(h.t.app, `/memories/${id}`, {
      method: "PUT",
      headers: user.headers,
      body: { content: "updated after" },
    });
    expect(updated.body.supersedes).toBe(id);
  });
});
