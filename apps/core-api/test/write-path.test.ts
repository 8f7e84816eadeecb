import { createHash } from "node:crypto";
import { fromHex, rootFromLeafHashes, toHex } from "@svc/merkle-log";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, newUser, startTestApp, type TestApp, type TestUser } from "./helpers.js";

let t: TestApp;
let user: TestUser;

beforeAll(async () => {
  t = await startTestApp();
  user = await newUser(t.url);
});
afterAll(async () => {
  await t.close();
});

async function persistedRoot(): Promise<{ size: number; root: string }> {
  const [row] = await t.sql<{ size: string; root: Buffer }[]>`
    select size, root from trees where user_id = ${user.userId}`;
  return { size: Number(row?.size), root: Buffer.from(row?.root ?? []).toString("hex") };
}

/**
 * The Merkle Tree Hash of RFC 9162 §2.1.1, recomputed in full from the leaf hashes with
 * node:crypto, independently of @svc/merkle-log: MTH(D[n]) = SHA-256(0x01 ‖ MTH(D[0:k]) ‖
 * MTH(D[k:n])) with k the largest power of two below n; a single leaf is its leaf hash.
 */
function fullRoot(leaves: readonly Buffer[], from = 0, to = leaves.length): Buffer {
  const n = to - from;
  if (n === 0) {
    return createHash("sha256").digest();
  }
  if (n === 1) {
    return leaves[from] as Buffer;
  }
  let k = 1;
  while (k * 2 < n) {
    k *= 2;
  }
  return createHash("sha256")
    .update(NODE_PREFIX)
    .update(fullRoot(leaves, from, from + k))
    .update(fullRoot(leaves, from + k, to))
    .digest();
}
const NODE_PREFIX = Buffer.of(0x01);

describe("write path", () => {
  it("keeps the persisted root equal to the full recomputation after every write, up to 2 000 writes", async () => {
    // The leaf list is kept from the write answers (leafHash at leafIndex); after EVERY write the
    // persisted tree (size and root, read from the database) is compared with an O(n) full
    // recomputation over all leaves so far.
    const leaves: Buffer[] = [];
    const write = async (i: number) => {
      const res = await call<{ leafIndex: number; leafHash: string }>(`${t.url}/memories`, {
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
      const persisted = await persistedRoot();
      expect(persisted.size).toBe(i + 1);
      expect(persisted.root, `after write ${i + 1}`).toBe(fullRoot(leaves).toString("hex"));
    }
    expect(leaves.length).toBe(2000);
    // The independent recomputation agrees with @svc/merkle-log's.
    expect(fullRoot(leaves).toString("hex")).toBe(
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
      const persisted = await persistedRoot();
      expect(persisted.size).toBe(base + 25);
      expect(persisted.root).toBe(fullRoot(leaves).toString("hex"));
    }
    const stored = await t.sql<{ leaf_hash: Buffer }[]>`
      select leaf_hash from memories where user_id = ${user.userId} order by leaf_index`;
    expect(stored.map((r) => r.leaf_hash.toString("hex"))).toEqual(
      leaves.map((l) => l.toString("hex")),
    );
  }, 240_000); // 2 000 sequential HTTP writes and ~4M hashes: tens of seconds on a busy 2-core box
});
