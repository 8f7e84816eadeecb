import { CompactRange, fromHex, rootFromLeafHashes, toHex } from "@svc/merkle-log";
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

describe("write path", () => {
  it("keeps the persisted root equal to the full recomputation after every write, up to 2 000 writes", async () => {
    const leaves: Uint8Array[] = [];
    const write = async (i: number) => {
      const res = await call<{ leafIndex: number; leafHash: string }>(`${t.url}/memories`, {
        headers: user.headers,
        body: { content: `write ${i}`, metadata: { i } },
      });
      expect(res.status).toBe(201);
      leaves[res.body.leafIndex] = fromHex(res.body.leafHash);
    };
    // 1 000 sequential writes, checked after each one against an O(n) recomputation of MTH.
    for (let i = 0; i < 1000; i++) {
      await write(i);
      const persisted = await persistedRoot();
      expect(persisted.size).toBe(i + 1);
      expect(persisted.root).toBe(toHex(rootFromLeafHashes(leaves)));
    }
    // 1 000 more in concurrent groups of 25 (group commit), checked after each group; the
    // incremental range makes the per-group check cheap, and it is cross-checked in full at the end.
    const range = CompactRange.empty();
    for (const leaf of leaves) {
      range.append(leaf);
    }
    for (let group = 0; group < 40; group++) {
      await Promise.all(Array.from({ length: 25 }, (_, j) => write(1000 + group * 25 + j)));
      for (let k = range.size; k < leaves.length; k++) {
        range.append(leaves[k] as Uint8Array);
      }
      const persisted = await persistedRoot();
      expect(persisted.size).toBe(1000 + (group + 1) * 25);
      expect(persisted.root).toBe(toHex(range.root()));
    }
    expect(leaves.length).toBe(2000);
    expect((await persistedRoot()).root).toBe(toHex(rootFromLeafHashes(leaves)));
    const stored = await t.sql<{ leaf_hash: Buffer }[]>`
      select leaf_hash from memories where user_id = ${user.userId} order by leaf_index`;
    expect(stored.map((r) => r.leaf_hash.toString("hex"))).toEqual(leaves.map(toHex));
  });
});
