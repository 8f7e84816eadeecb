/**
 * The write path over HTTP: after every `POST /memories` the persisted root equals a full
 * recomputation over the leaves (RFC 9162 §2.1.1), also under group commit and across users. The
 * append queue itself is tested in packages/memory/test/append-queue.test.ts.
 * @module
 */
import { fullRoot, persistedRoot } from "@verifiable-memory/memory/testing";
import { fromHex, rootFromLeafHashes, toHex } from "@verifiable-memory/merkle-log";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callAt, newUser, startTestApp, type TestApp, type TestUser } from "./helpers.js";

let t: TestApp;
let user: TestUser;

beforeAll(async () => {
  t = await startTestApp();
  user = await newUser(t.app);
});
afterAll(async () => {
  await t.close();
});

describe("write path", () => {
  it("keeps the persisted root equal to the full recomputation after every write, up to 2 000 writes", async () => {
    // The leaf list is kept from the write answers (leafHash at leafIndex); after EVERY write the
    // persisted tree (size and root, read from the database) is compared with an O(n) full
    // recomputation over all leaves so far.
    const leaves: Buffer[] = [];
    const write = async (i: number) => {
      const res = await callAt<{ leafIndex: number; leafHash: string }>(t.app, "/memories", {
        headers: user.headers,
        body: { content: `write ${i}`, metadata: { i } },
      });
      expect(res.status).toBe(201);
      expect(leaves[res.body.leafIndex]).toBeUndefined(); // no index handed out twice
      leaves[res.body.leafIndex] = Buffer.from(res.body.leafHash, "hex");
      return res.body.leafIndex;
    };
    for (let i = 0; i < 2000; i++) {
      expect(await write(i)).toBe(i);
      const persisted = await persistedRoot(t.db, user.userId);
      expect(persisted.size).toBe(i + 1);
      expect(persisted.root, `after write ${i + 1}`).toBe(fullRoot(leaves));
    }
    expect(leaves.length).toBe(2000);
    // The independent recomputation agrees with @verifiable-memory/merkle-log's.
    expect(fullRoot(leaves)).toBe(
      toHex(rootFromLeafHashes(leaves.map((l) => fromHex(l.toString("hex"))))),
    );

    // Group commit on top: concurrent writes share transactions; after each group the persisted
    // root is again the full recomputation over every leaf.
    for (let group = 0; group < 8; group++) {
      const base = leaves.length;
      const indices = await Promise.all(
        Array.from({ length: 25 }, (_, j) => write(2000 + group * 25 + j)),
      );
      expect(indices.sort((a, b) => a - b)).toEqual(Array.from({ length: 25 }, (_, j) => base + j));
      const persisted = await persistedRoot(t.db, user.userId);
      expect(persisted.size).toBe(base + 25);
      expect(persisted.root).toBe(fullRoot(leaves));
    }
    const stored = await t.sql<{ leaf_hash: Buffer }[]>`
      select leaf_hash from memories where user_id = ${user.userId} order by leaf_index`;
    expect(stored.map((r) => r.leaf_hash.toString("hex"))).toEqual(
      leaves.map((l) => l.toString("hex")),
    );
  }, 240_000); // 2 000 sequential HTTP writes and ~4M hashes: tens of seconds on a busy 2-core box
});

describe("cross-user group commit", () => {
  it("concurrent writes of many users: each user's leaf indices are 0..n-1, roots recomputed", async () => {
    const users = await Promise.all(Array.from({ length: 6 }, () => newUser(t.app)));
    const perUser = 15;
    const leaves = new Map(users.map((u) => [u.userId, [] as Buffer[]]));
    // All users' writes in flight at once, interleaved: batches mix users.
    await Promise.all(
      Array.from({ length: perUser }, (_, i) => i).flatMap((i) =>
        users.map(async (u) => {
          const res = await callAt<{ leafIndex: number; leafHash: string }>(t.app, "/memories", {
            headers: u.headers,
            body: { content: `user ${u.userId} write ${i}` },
          });
          expect(res.status).toBe(201);
          const list = leaves.get(u.userId) as Buffer[];
          expect(list[res.body.leafIndex]).toBeUndefined();
          list[res.body.leafIndex] = Buffer.from(res.body.leafHash, "hex");
        }),
      ),
    );
    for (const u of users) {
      const list = leaves.get(u.userId) as Buffer[];
      expect(Object.keys(list).map(Number)).toEqual(Array.from({ length: perUser }, (_, i) => i));
      const persisted = await persistedRoot(t.db, u.userId);
      expect(persisted.size).toBe(perUser);
      expect(persisted.root).toBe(fullRoot(list));
      const stored = await t.sql<{ leaf_index: string; leaf_hash: Buffer }[]>`
        select leaf_index, leaf_hash from memories where user_id = ${u.userId} order by leaf_index`;
      expect(stored.map((r) => r.leaf_hash.toString("hex"))).toEqual(
        list.map((l) => l.toString("hex")),
      );
    }
  });
});
