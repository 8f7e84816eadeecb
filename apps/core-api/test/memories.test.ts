import { createHash } from "node:crypto";
import { getMemory } from "@verifiable-memory/db-schema";
import { fromHex, hashLeaf, toHex, verifyInclusion } from "@verifiable-memory/merkle-log";
import canonicalizeModule from "canonicalize";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  callAt,
  mintApiKey,
  newUser,
  recordCheckpoint,
  startTestApp,
  type TestApp,
  type TestUser,
} from "./helpers.js";

const canonicalize = canonicalizeModule as unknown as (input: unknown) => string;

interface Memory {
  id: string;
  leafIndex: number;
  leafHash: string;
  content: string;
  metadata: Record<string, unknown>;
  createdAt: string;
  anchored: boolean;
}

let t: TestApp;
let alice: TestUser;
let bob: TestUser;

beforeAll(async () => {
  t = await startTestApp();
  alice = await newUser(t.app);
  bob = await newUser(t.app);
});
afterAll(async () => {
  await t.close();
});

function write(user: TestUser, content: string, metadata?: Record<string, unknown>) {
  return callAt<Memory>(t.app, "/memories", {
    headers: user.headers,
    body: metadata === undefined ? { content } : { content, metadata },
  });
}

describe("POST /memories", () => {
  it("answers 201 with the leaf, metadata {} by default, anchored false", async () => {
    const res = await write(alice, "the first memory");
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(
      [
        "anchored",
        "createdAt",
        "id",
        "leafHash",
        "leafIndex",
        "metadata",
        "namespace",
        "writtenBy",
        "supersedes",
        "supersededBy",
      ].sort(),
    );
    expect(res.body).toMatchObject({
      leafIndex: 0,
      metadata: {},
      namespace: null,
      writtenBy: { kind: "session" },
      supersedes: null,
      supersededBy: null,
      anchored: false,
      createdAt: t.clock.now().toISOString(),
    });
    expect(res.body.leafHash).toMatch(/^[0-9a-f]{64}$/);
  });

  it("stores the body encrypted: neither content nor salt in clear, leaf hash as returned", async () => {
    const secret = "a secret sentence that must never be stored in clear";
    const res = await write(alice, secret, { topic: "secrets" });
    const row = await getMemory(t.db, alice.userId, res.body.id);
    expect(row).not.toBeNull();
    const stored = Buffer.from(row?.ciphertext ?? new Uint8Array());
    expect(stored.includes(Buffer.from(secret))).toBe(false);
    expect(stored.length).toBe(1 + 16 + Buffer.byteLength(secret) + 16);
    expect(Buffer.from(row?.leafHash ?? []).toString("hex")).toBe(res.body.leafHash);
    expect(row?.metadata).toEqual({ topic: "secrets" });
  });

  it("accepts an API key as bearer", async () => {
    const key = await mintApiKey(t.app, alice.token);
    const res = await callAt<Memory>(t.app, "/memories", {
      headers: { authorization: `Bearer ${key}` },
      body: { content: "written by an agent" },
    });
    expect(res.status).toBe(201);
  });

  it("gives 50 concurrent writes of one user leaf indices size..size+49, grouped into fewer transactions", async () => {
    const user = await newUser(t.app);
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) => write(user, `concurrent ${i}`)),
    );
    expect(results.every((r) => r.status === 201)).toBe(true);
    const indices = results.map((r) => r.body.leafIndex).sort((a, b) => a - b);
    expect(indices).toEqual(Array.from({ length: 50 }, (_, i) => i));
    const [tree] = await t.sql<{ size: string; version: string }[]>`
      select size, version from trees where user_id = ${user.userId}`;
    expect(Number(tree?.size)).toBe(50);
    // Each transaction bumps the version once: grouped writes share transactions.
    expect(Number(tree?.version)).toBeLessThan(50);
  });
});

describe("reads", () => {
  it("GET /memories/:id returns the decrypted memory; GET /memories pages newest first", async () => {
    const user = await newUser(t.app);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      ids.push((await write(user, `note ${i}`, { n: i })).body.id);
    }
    const one = await callAt<Memory>(t.app, `/memories/${ids[2]}`, { headers: user.headers });
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({
      id: ids[2],
      content: "note 2",
      metadata: { n: 2 },
      leafIndex: 2,
    });

    const first = await callAt<{ items: Memory[]; nextCursor: string | null }>(
      t.app,
      "/memories?limit=2",
      { headers: user.headers },
    );
    expect(first.body.items.map((m) => m.content)).toEqual(["note 4", "note 3"]);
    expect(first.body.nextCursor).not.toBeNull();
    const second = await callAt<{ items: Memory[]; nextCursor: string | null }>(
      t.app,
      `/memories?limit=2&cursor=${first.body.nextCursor}`,
      { headers: user.headers },
    );
    expect(second.body.items.map((m) => m.content)).toEqual(["note 2", "note 1"]);
    const last = await callAt<{ items: Memory[]; nextCursor: string | null }>(
      t.app,
      `/memories?limit=2&cursor=${second.body.nextCursor}`,
      { headers: user.headers },
    );
    expect(last.body.items.map((m) => m.content)).toEqual(["note 0"]);
    expect(last.body.nextCursor).toBeNull();
    const bad = await callAt(t.app, "/memories?cursor=not-a-cursor", { headers: user.headers });
    expect(bad.status).toBe(400);
  });

  it("answers 404 for another user's memory on every route, and for unknown ids", async () => {
    const { body } = await write(alice, "alice only");
    const routes: [string, string, unknown?][] = [
      ["GET", `/memories/${body.id}`],
      ["DELETE", `/memories/${body.id}`],
      ["GET", `/memories/${body.id}/proof`],
      ["GET", `/memories/${body.id}/verify`],
    ];
    for (const [method, path] of routes) {
      const res = await callAt<{ error: { code: string } }>(t.app, `${path}`, {
        method,
        headers: bob.headers,
      });
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.body.error.code).toBe("not_found");
    }
    const search = await callAt<{ items: Memory[] }>(t.app, "/memories/search", {
      headers: bob.headers,
      body: { query: "alice only" },
    });
    expect(search.body.items).toEqual([]);
    const list = await callAt<{ items: Memory[] }>(t.app, "/memories", { headers: bob.headers });
    expect(list.body.items.some((m) => m.id === body.id)).toBe(false);
    const unknown = await callAt(t.app, "/memories/00000000-0000-0000-0000-000000000000", {
      headers: alice.headers,
    });
    expect(unknown.status).toBe(404);
    // Alice's memory is untouched by Bob's DELETE.
    expect((await callAt(t.app, `/memories/${body.id}`, { headers: alice.headers })).status).toBe(
      200,
    );
  });

  it("needs a bearer on every memory and log route", async () => {
    for (const path of [
      "/memories",
      "/memories/x",
      "/memories/x/proof",
      "/log",
      "/log/consistency?from=1&to=1",
    ]) {
      expect((await callAt(t.app, `${path}`)).status, path).toBe(401);
    }
    expect((await callAt(t.app, "/memories", { body: { content: "x" } })).status).toBe(401);
  });
});

/** The raw bytes of a GET answer, with its status. */
async function rawGet(user: TestUser, path: string): Promise<{ status: number; bytes: string }> {
  const res = await t.app.request(`${path}`, { headers: user.headers });
  return { status: res.status, bytes: await res.text() };
}

describe("DELETE /memories/:id", () => {
  it("destroys the body, keeps the leaf and the root, and hides the memory everywhere", async () => {
    const user = await newUser(t.app);
    const kept = (await write(user, "kept: the word platypus")).body;
    const doomed = (await write(user, "doomed: the word platypus")).body;
    const after = (await write(user, "after it")).body;
    // An anchored checkpoint covering all three: the doomed leaf is the kept leaf's sibling, so
    // it sits in the kept memory's inclusion path.
    const anchoredRoot = toHex(await recordCheckpoint(t, user, 3, 1));
    await write(user, "past the checkpoint");
    // Warm the recall cache first, so the deletion must reach cached recall too.
    const before = await callAt<{ items: Memory[] }>(t.app, "/memories/search", {
      headers: user.headers,
      body: { query: "platypus" },
    });
    expect(before.body.items.map((m) => m.id)).toEqual([doomed.id, kept.id]);
    const logBefore = await rawGet(user, "/log");
    const proofsBefore = await Promise.all(
      [kept, after].map((m) => rawGet(user, `/memories/${m.id}/proof`)),
    );
    const keptBundle = JSON.parse(proofsBefore[0]?.bytes ?? "null") as {
      leafIndex: number;
      checkpoint: { treeSize: number; rootHash: string };
      inclusionProof: string[];
    };
    expect(keptBundle.checkpoint).toEqual({ treeSize: 3, rootHash: anchoredRoot });
    expect(keptBundle.inclusionProof[0]).toBe(doomed.leafHash);
    expect(JSON.parse(logBefore.bytes)).toMatchObject({
      treeSize: 4,
      anchored: { treeSize: 3, rootHash: anchoredRoot, nonce: 1, signature: "sig1" },
    });

    const del = await t.app.request(`/memories/${doomed.id}`, {
      method: "DELETE",
      headers: user.headers,
    });
    expect(del.status).toBe(204);

    const row = await getMemory(t.db, user.userId, doomed.id, { includeDeleted: true });
    expect(row?.ciphertext).toBeNull();
    expect(row?.iv).toBeNull();
    expect(Buffer.from(row?.leafHash ?? []).toString("hex")).toBe(doomed.leafHash);
    // The log (current and anchored root) and the other memories' proof bundles are unchanged,
    // byte for byte, and the kept memory still verifies against the anchored root.
    expect(await rawGet(user, "/log")).toEqual(logBefore);
    const proofsAfter = await Promise.all(
      [kept, after].map((m) => rawGet(user, `/memories/${m.id}/proof`)),
    );
    expect(proofsAfter).toEqual(proofsBefore);
    expect(proofsAfter.map((p) => p.status)).toEqual([200, 200]);
    verifyInclusion(
      keptBundle.leafIndex,
      keptBundle.checkpoint.treeSize,
      fromHex(kept.leafHash),
      keptBundle.inclusionProof.map(fromHex),
      fromHex(anchoredRoot),
    );

    for (const path of [
      `/memories/${doomed.id}`,
      `/memories/${doomed.id}/proof`,
      `/memories/${doomed.id}/verify`,
    ]) {
      const res = await callAt<{ error: { code: string } }>(t.app, `${path}`, {
        headers: user.headers,
      });
      expect(res.status, path).toBe(404);
      expect(res.body.error.code, path).toBe("not_found");
    }
    const again = await t.app.request(`/memories/${doomed.id}`, {
      method: "DELETE",
      headers: user.headers,
    });
    expect(again.status).toBe(404);
    const afterSearch = await callAt<{ items: Memory[] }>(t.app, "/memories/search", {
      headers: user.headers,
      body: { query: "platypus" },
    });
    expect(afterSearch.body.items.map((m) => m.id)).toEqual([kept.id]);
    const list = await callAt<{ items: Memory[] }>(t.app, "/memories", { headers: user.headers });
    expect(list.body.items.map((m) => m.id)).not.toContain(doomed.id);
    expect(list.body.items.map((m) => m.id)).toContain(kept.id);
  });
});

describe("leaf encoding (docs/protocol.md §5)", () => {
  it("is SHA-256(0x00 ‖ RFC 8785 JSON of {v: 2, memoryId, owner, createdAt, metadata, contentHash, namespace, writtenBy, supersedes})", async () => {
    const user = await newUser(t.app);
    const metadata = { z: [1, 2.5, "ü"], a: { nested: true }, "€": null };
    const created = (await write(user, "leaf encoding check ✓", metadata)).body;
    const proof = await callAt<{
      leafData: Record<string, unknown>;
      salt: string;
      leafHash: string;
    }>(t.app, `/memories/${created.id}/proof`, { headers: user.headers });
    const salt = Buffer.from(proof.body.salt, "base64");
    expect(salt.length).toBe(16);
    const contentHash = createHash("sha256")
      .update(salt)
      .update("leaf encoding check ✓", "utf8")
      .digest("hex");
    const expected = {
      v: 2,
      memoryId: created.id,
      owner: user.wallet.publicKey,
      createdAt: created.createdAt,
      metadata,
      contentHash,
      namespace: null,
      writtenBy: { kind: "session" },
      supersedes: null,
    };
    expect(proof.body.leafData).toEqual(expected);
    const leafHash = hashLeaf(new TextEncoder().encode(canonicalize(expected)));
    expect(Buffer.from(leafHash).toString("hex")).toBe(created.leafHash);
    expect(fromHex(proof.body.leafHash)).toEqual(leafHash);
  });
});
