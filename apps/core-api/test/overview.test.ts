/**
 * The console's overview routes over real HTTP and real PostgreSQL: `GET /log/checkpoints`
 * (docs/protocol.md §6.4: the caller's anchored checkpoints, newest first, paginated) and
 * `GET /namespaces` (§4.6: namespaces of the live, current memories with counts, within the
 * caller's confinement, sorted by name, paginated); both scoped to the caller's user and to the
 * `memories:read` scope.
 */
import { toHex } from "@verifiable-memory/merkle-log";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  callAt,
  newUser,
  recordCheckpoint,
  startTestApp,
  type TestApp,
  type TestUser,
} from "./helpers.js";

interface Checkpoint {
  treeSize: number;
  rootHash: string;
  nonce: number;
  signature: string;
  slot: number | null;
  anchoredAt: string;
}
interface NamespaceCount {
  namespace: string | null;
  count: number;
  lastWrittenAt: string;
}
interface Page<T> {
  items: T[];
  nextCursor: string | null;
}
interface ErrorBody {
  error: { code: string; details?: unknown };
}

let t: TestApp;

beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t?.close();
});

/** Writes one memory (optionally in `namespace`) and returns its id. */
async function write(user: TestUser, content: string, namespace?: string): Promise<string> {
  const { status, body } = await callAt<{ id: string }>(t.app, "/memories", {
    headers: user.headers,
    body: { content, ...(namespace === undefined ? {} : { namespace }) },
  });
  expect(status).toBe(201);
  return body.id;
}

/** Creates an API key for `user` with `options` and returns its `Authorization` header. */
async function keyHeaders(
  user: TestUser,
  options: { scopes?: string[]; namespace?: string },
): Promise<Record<string, string>> {
  const { status, body } = await callAt<{ key: string }>(t.app, "/keys", {
    headers: user.headers,
    body: { label: "overview", ...options },
  });
  expect(status).toBe(201);
  return { authorization: `Bearer ${body.key}` };
}

/** Every page of `path` (a list route), following `nextCursor` with `limit`. */
async function allPages<T>(
  path: string,
  headers: Record<string, string>,
  limit: number,
): Promise<{ items: T[]; pages: number }> {
  const items: T[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const query = new URLSearchParams({ limit: String(limit) });
    if (cursor !== null) {
      query.set("cursor", cursor);
    }
    const separator = path.includes("?") ? "&" : "?";
    const { status, body } = await callAt<Page<T>>(t.app, `${path}${separator}${query}`, {
      headers,
    });
    expect(status).toBe(200);
    items.push(...body.items);
    cursor = body.nextCursor;
    pages += 1;
  } while (cursor !== null);
  return { items, pages };
}

describe("GET /log/checkpoints", () => {
  it("lists the caller's anchored checkpoints newest first, page by page, and no one else's", async () => {
    const user = await newUser(t.app);
    const other = await newUser(t.app);
    const empty = await callAt<Page<Checkpoint>>(t.app, "/log/checkpoints", {
      headers: user.headers,
    });
    expect(empty).toEqual({ status: 200, body: { items: [], nextCursor: null } });

    const roots: string[] = [];
    for (let size = 1; size <= 5; size++) {
      await write(user, `memory ${size}`);
      roots.push(toHex(await recordCheckpoint(t, user, size, size, `signature-${size}`)));
    }
    await write(other, "someone else's");
    await recordCheckpoint(t, other, 1, 1, "other-signature");

    const { items, pages } = await allPages<Checkpoint>("/log/checkpoints", user.headers, 2);
    expect(pages).toBe(3);
    expect(items.map((c) => [c.treeSize, c.rootHash, c.nonce, c.signature, c.slot])).toEqual(
      [5, 4, 3, 2, 1].map((size) => [size, roots[size - 1], size, `signature-${size}`, null]),
    );
    for (const c of items) {
      expect(new Date(c.anchoredAt).toISOString()).toBe(c.anchoredAt);
    }
    const head = await callAt<{ anchored: { treeSize: number; rootHash: string } }>(t.app, "/log", {
      headers: user.headers,
    });
    expect(head.body.anchored).toMatchObject({
      treeSize: items[0]?.treeSize,
      rootHash: items[0]?.rootHash,
    });
  });

  it("needs memories:read; a confined key sees the whole log, as GET /log", async () => {
    const user = await newUser(t.app);
    await write(user, "outside", "team:a");
    await recordCheckpoint(t, user, 1, 1);
    const writer = await keyHeaders(user, { scopes: ["memories:write"] });
    const refused = await callAt<ErrorBody>(t.app, "/log/checkpoints", { headers: writer });
    expect([refused.status, refused.body.error.code]).toEqual([403, "insufficient_scope"]);
    const confined = await keyHeaders(user, { namespace: "team:b" });
    const seen = await callAt<Page<Checkpoint>>(t.app, "/log/checkpoints", { headers: confined });
    expect(seen.body.items.map((c) => c.treeSize)).toEqual([1]);
    expect((await callAt(t.app, "/log/checkpoints")).status).toBe(401);
  });

  it("refuses a foreign cursor, a bad limit and unknown parameters with 400", async () => {
    const user = await newUser(t.app);
    for (let size = 1; size <= 3; size++) {
      await write(user, `m${size}`, "ns:a");
    }
    await write(user, "m4", "ns:b");
    const namespacesPage = await callAt<Page<NamespaceCount>>(t.app, "/namespaces?limit=1", {
      headers: user.headers,
    });
    const foreign = namespacesPage.body.nextCursor as string;
    expect(foreign).toEqual(expect.any(String));
    for (const query of [`cursor=${foreign}`, "cursor=bm9wZQ", "limit=0", "limit=201", "since=1"]) {
      const answer = await callAt<ErrorBody>(t.app, `/log/checkpoints?${query}`, {
        headers: user.headers,
      });
      expect([query, answer.status, answer.body.error.code]).toEqual([
        query,
        400,
        "invalid_request",
      ]);
    }
  });
});

describe("GET /namespaces", () => {
  it("counts the live, current memories of each namespace, null first, sorted by name", async () => {
    const user = await newUser(t.app);
    const other = await newUser(t.app);
    await write(user, "a1", "agent:a");
    await write(user, "a2", "agent:a");
    const superseded = await write(user, "a3", "agent:a");
    const updated = await callAt(t.app, `/memories/${superseded}`, {
      method: "PUT",
      headers: user.headers,
      body: { content: "a3, corrected", namespace: "agent:a" },
    });
    expect(updated.status).toBe(201);
    const deleted = await write(user, "b-deleted", "agent:b");
    expect(
      (await callAt(t.app, `/memories/${deleted}`, { method: "DELETE", headers: user.headers }))
        .status,
    ).toBe(204);
    await write(user, "ab", "agent:a/sub");
    await write(user, "c", "zeta");
    await write(user, "none 1");
    await write(user, "none 2");
    await write(other, "not mine", "agent:other");

    const { items, pages } = await allPages<NamespaceCount>("/namespaces", user.headers, 2);
    expect(pages).toBe(2);
    expect(items.map((n) => [n.namespace, n.count])).toEqual([
      [null, 2],
      ["agent:a", 3],
      ["agent:a/sub", 1],
      ["zeta", 1],
    ]);
    for (const n of items) {
      expect(new Date(n.lastWrittenAt).toISOString()).toBe(n.lastWrittenAt);
    }

    const under = await allPages<NamespaceCount>("/namespaces?prefix=agent:a", user.headers, 1);
    expect(under.items.map((n) => n.namespace)).toEqual(["agent:a", "agent:a/sub"]);
    const escaped = await callAt<Page<NamespaceCount>>(t.app, "/namespaces?prefix=agent_a", {
      headers: user.headers,
    });
    expect(escaped.body.items).toEqual([]);
  });

  it("stays within a confined key's prefix (no null namespace) and needs memories:read", async () => {
    const user = await newUser(t.app);
    await write(user, "in", "team:a/x");
    await write(user, "in too", "team:a/y");
    await write(user, "out", "team:b");
    await write(user, "none");
    const confined = await keyHeaders(user, { namespace: "team:a/" });
    const seen = await callAt<Page<NamespaceCount>>(t.app, "/namespaces", { headers: confined });
    expect(seen.body.items.map((n) => [n.namespace, n.count])).toEqual([
      ["team:a/x", 1],
      ["team:a/y", 1],
    ]);
    const narrowed = await callAt<Page<NamespaceCount>>(t.app, "/namespaces?prefix=team:b", {
      headers: confined,
    });
    expect(narrowed.body.items).toEqual([]);
    const writer = await keyHeaders(user, { scopes: ["memories:write"] });
    const refused = await callAt<ErrorBody>(t.app, "/namespaces", { headers: writer });
    expect([refused.status, refused.body.error.code]).toEqual([403, "insufficient_scope"]);
    for (const query of ["prefix=has%20space", "limit=abc", "namespace=x"]) {
      const answer = await callAt<ErrorBody>(t.app, `/namespaces?${query}`, {
        headers: user.headers,
      });
      expect([query, answer.status]).toEqual([query, 400]);
    }
  });
});
