/**
 * `POST /memories/batch` over HTTP and PostgreSQL: request order, contiguous leaves and the
 * `POST /memories` answer shape; the 1–256 item and 1 MiB limits; all or nothing with the failing
 * item's index; concurrent batches and single writes of one user; recall, proofs and deletion of
 * batch memories.
 * @module
 */
import { fullRoot, persistedRoot } from "@verifiable-memory/memory/testing";
import { fromHex, hashLeaf, verifyInclusion } from "@verifiable-memory/merkle-log";
import { contentHashOf, leafDataBytes, type ProofBundle } from "@verifiable-memory/verifier";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  callAt,
  newUser,
  recordCheckpoint,
  startTestApp,
  type TestApp,
  type TestUser,
} from "./helpers.js";

interface Created {
  id: string;
  leafIndex: number;
  leafHash: string;
  metadata: Record<string, unknown>;
  createdAt: string;
  anchored: boolean;
}

let t: TestApp;

beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t.close();
});

function batch(user: TestUser, items: unknown[]) {
  return callAt<{ items: Created[] }>(t.app, "/memories/batch", {
    headers: user.headers,
    body: { items },
  });
}

/** Sends `body` as is (already JSON text) over real HTTP, where the body limits read the socket. */
async function raw(user: TestUser, body: string): Promise<{ status: number; code?: string }> {
  const res = await fetch(`${t.url}/memories/batch`, {
    method: "POST",
    headers: { ...user.headers, "content-type": "application/json" },
    body,
  });
  const answer = (await res.json()) as { error?: { code: string } };
  return { status: res.status, ...(answer.error ? { code: answer.error.code } : {}) };
}

async function treeSize(user: TestUser): Promise<number> {
  const log = await callAt<{ treeSize: number }>(t.app, "/log", { headers: user.headers });
  return log.body.treeSize;
}

describe("POST /memories/batch", () => {
  it("stores the items in request order at contiguous leaves, each shaped like POST /memories", async () => {
    const user = await newUser(t.app);
    const single = await callAt<Created>(t.app, "/memories", {
      headers: user.headers,
      body: { content: "before", metadata: { k: "v" } },
    });
    expect(single.status).toBe(201);
    const res = await batch(user, [
      { content: "first", metadata: { i: 0 } },
      { content: "second" },
      { content: "third", metadata: { nested: { a: [1, 2] } } },
    ]);
    expect(res.status).toBe(201);
    expect(Object.keys(res.body)).toEqual(["items"]);
    expect(res.body.items.map((m) => m.leafIndex)).toEqual([1, 2, 3]);
    expect(res.body.items.map((m) => m.metadata)).toEqual([
      { i: 0 },
      {},
      { nested: { a: [1, 2] } },
    ]);
    for (const item of res.body.items) {
      expect(Object.keys(item).sort()).toEqual(Object.keys(single.body).sort());
      expect(item.anchored).toBe(false);
      expect(item.leafHash).toMatch(/^[0-9a-f]{64}$/);
      expect(item.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    }
    // Ordinary memories: listed (newest first), readable, deletable one by one.
    const list = await callAt<{ items: { id: string; content: string }[] }>(t.app, "/memories", {
      headers: user.headers,
    });
    expect(list.body.items.map((m) => m.content)).toEqual(["third", "second", "first", "before"]);
    const [first, second] = res.body.items as [Created, Created];
    const got = await callAt<{ content: string; leafHash: string }>(
      t.app,
      `/memories/${second.id}`,
      { headers: user.headers },
    );
    expect(got.body).toMatchObject({ content: "second", leafHash: second.leafHash });
    const deleted = await t.app.request(`/memories/${first.id}`, {
      method: "DELETE",
      headers: user.headers,
    });
    expect(deleted.status).toBe(204);
    expect((await callAt(t.app, `/memories/${first.id}`, { headers: user.headers })).status).toBe(
      404,
    );
    const persisted = await persistedRoot(t.db, user.userId);
    expect(persisted.root).toBe(
      fullRoot([single.body, ...res.body.items].map((m) => Buffer.from(fromHex(m.leafHash)))),
    );
  });

  it("accepts 256 items; 0 or 257 items are 400 and store nothing", async () => {
    const user = await newUser(t.app);
    const items = (n: number) => Array.from({ length: n }, (_, i) => ({ content: `item ${i}` }));
    const tooMany = await batch(user, items(257));
    expect(tooMany.status).toBe(400);
    expect(JSON.stringify(tooMany.body)).toContain('"items"');
    expect((await batch(user, [])).status).toBe(400);
    expect(await treeSize(user)).toBe(0);
    const ok = await batch(user, items(256));
    expect(ok.status).toBe(201);
    expect(ok.body.items.map((m) => m.leafIndex)).toEqual(Array.from({ length: 256 }, (_, i) => i));
    expect(await treeSize(user)).toBe(256);
  });

  it("refuses the whole batch for one invalid item, naming its index, and stores nothing", async () => {
    const user = await newUser(t.app);
    const items: unknown[] = Array.from({ length: 6 }, (_, i) => ({ content: `ok ${i}` }));
    items[3] = { content: "" };
    const res = await callAt<{ error: { code: string; details: { path: unknown[] }[] } }>(
      t.app,
      "/memories/batch",
      { headers: user.headers, body: { items } },
    );
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe("invalid_request");
    expect(res.body.error.details.map((d) => d.path)).toEqual([["items", 3, "content"]]);
    items[3] = { content: "x", colour: "red" };
    items[5] = { content: "y", metadata: { ["k".repeat(65)]: 1 } };
    const two = await callAt<{ error: { details: { path: unknown[] }[] } }>(
      t.app,
      "/memories/batch",
      { headers: user.headers, body: { items } },
    );
    expect(two.status).toBe(400);
    const paths = two.body.error.details.map((d) => d.path);
    expect(paths.some((p) => p[0] === "items" && p[1] === 3)).toBe(true);
    expect(paths.some((p) => p[0] === "items" && p[1] === 5 && p[2] === "metadata")).toBe(true);
    expect((await batch(user, [{ content: "z" }, "not an object"])).status).toBe(400);
    expect(await treeSize(user)).toBe(0);
    const list = await callAt<{ items: unknown[] }>(t.app, "/memories", { headers: user.headers });
    expect(list.body.items).toEqual([]);
  });

  it("accepts a 300 KiB batch and refuses a body over 1 MiB with 413; other routes keep 256 KiB", async () => {
    const user = await newUser(t.app);
    const content = "a".repeat(30 * 1024);
    const big = JSON.stringify({ items: Array.from({ length: 10 }, () => ({ content })) });
    expect(Buffer.byteLength(big)).toBeGreaterThan(300 * 1024);
    expect((await raw(user, big)).status).toBe(201);
    const tooBig = JSON.stringify({
      items: Array.from({ length: 33 }, () => ({ content: "b".repeat(32 * 1024) })),
    });
    expect(Buffer.byteLength(tooBig)).toBeGreaterThan(1024 * 1024);
    expect(await raw(user, tooBig)).toEqual({ status: 413, code: "payload_too_large" });
    const single = await t.app.request("/memories", {
      method: "POST",
      headers: { ...user.headers, "content-type": "application/json" },
      body: JSON.stringify({ content: "c".repeat(300 * 1024) }),
    });
    expect(single.status).toBe(413);
    expect(await treeSize(user)).toBe(10);
  });

  it("answers 401 without a credential and 415 for a non-JSON body", async () => {
    const anonymous = await callAt(t.app, "/memories/batch", {
      body: { items: [{ content: "x" }] },
    });
    expect(anonymous.status).toBe(401);
    const user = await newUser(t.app);
    const res = await t.app.request("/memories/batch", {
      method: "POST",
      headers: { ...user.headers, "content-type": "text/plain" },
      body: "items",
    });
    expect(res.status).toBe(415);
  });

  it("keeps one consistent log under concurrent batches and single writes of the same user", async () => {
    const user = await newUser(t.app);
    const leaves: Buffer[] = [];
    const keep = (m: Created) => {
      expect(leaves[m.leafIndex]).toBeUndefined();
      leaves[m.leafIndex] = Buffer.from(m.leafHash, "hex");
    };
    const batches = Array.from({ length: 6 }, (_, b) =>
      batch(
        user,
        Array.from({ length: 40 }, (_, i) => ({ content: `batch ${b} item ${i}` })),
      ).then((res) => {
        expect(res.status).toBe(201);
        const indices = res.body.items.map((m) => m.leafIndex);
        const start = indices[0] as number;
        expect(indices).toEqual(Array.from({ length: 40 }, (_, i) => start + i));
        res.body.items.forEach(keep);
      }),
    );
    const singles = Array.from({ length: 30 }, (_, i) =>
      callAt<Created>(t.app, "/memories", {
        headers: user.headers,
        body: { content: `single ${i}` },
      }).then((res) => {
        expect(res.status).toBe(201);
        keep(res.body);
      }),
    );
    await Promise.all([...batches, ...singles]);
    const total = 6 * 40 + 30;
    expect(Object.keys(leaves).map(Number)).toEqual(Array.from({ length: total }, (_, i) => i));
    const persisted = await persistedRoot(t.db, user.userId);
    expect(persisted.size).toBe(total);
    expect(persisted.root).toBe(fullRoot(leaves));
    const stored = await t.sql<{ leaf_hash: Buffer }[]>`
      select leaf_hash from memories where user_id = ${user.userId} order by leaf_index`;
    expect(stored.map((r) => r.leaf_hash.toString("hex"))).toEqual(
      leaves.map((l) => l.toString("hex")),
    );
  });

  it("makes batch items findable by recall at once", async () => {
    const user = await newUser(t.app);
    const search = (query: string) =>
      callAt<{ items: { content: string; leafIndex: number }[] }>(t.app, "/memories/search", {
        headers: user.headers,
        body: { query },
      });
    await callAt(t.app, "/memories", {
      headers: user.headers,
      body: { content: "warm the cache" },
    });
    expect((await search("warm")).body.items).toHaveLength(1);
    const res = await batch(user, [
      { content: "zebra crossing", metadata: { source: "a" } },
      { content: "a Zebra in the zoo" },
      { content: "giraffe" },
    ]);
    expect(res.status).toBe(201);
    const found = await search("zebra");
    expect(found.body.items.map((m) => [m.content, m.leafIndex])).toEqual([
      ["a Zebra in the zoo", 2],
      ["zebra crossing", 1],
    ]);
  });

  it("gives batch items proofs that verify once a checkpoint covers them", async () => {
    const user = await newUser(t.app);
    const contents = Array.from({ length: 7 }, (_, i) => `proof item ${i}`);
    const res = await batch(
      user,
      contents.map((content, i) => ({ content, metadata: { i } })),
    );
    expect(res.status).toBe(201);
    const root = await recordCheckpoint(t, user, 7, 1);
    for (const [i, item] of res.body.items.entries()) {
      const { status, body } = await callAt<ProofBundle>(t.app, `/memories/${item.id}/proof`, {
        headers: user.headers,
      });
      expect(status).toBe(200);
      expect(body.anchored).toBe(true);
      expect(body.leafIndex).toBe(i);
      expect(body.checkpoint?.rootHash).toBe(Buffer.from(root).toString("hex"));
      const salt = Buffer.from(body.salt, "base64");
      expect(body.leafData.contentHash).toBe(contentHashOf(salt, contents[i] as string));
      const leafHash = hashLeaf(leafDataBytes(body.leafData));
      expect(Buffer.from(leafHash).toString("hex")).toBe(item.leafHash);
      verifyInclusion(
        body.leafIndex,
        7,
        leafHash,
        (body.inclusionProof ?? []).map(fromHex),
        fromHex(body.checkpoint?.rootHash ?? ""),
      );
    }
  });
});
