/**
 * memory_vectors: sealed vectors stored only for live memories (a deleted one is left out, also
 * when the deletion races the insert), kept once per memory and model, read per model and since
 * a time, deleted with their memory, found missing by the background embedder per model, and
 * pruned for other models.
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  appendMemories,
  deleteMemory,
  deleteVectorsOfOtherModels,
  insertMemoryVectors,
  listMemoriesWithoutVector,
  listMemoryVectors,
  type StoredVector,
  streamMemoryVectors,
} from "../src/index.js";
import { createTestDatabase, type TestDatabase } from "../src/testing/index.js";
import { makeUser, newMemory } from "./_fixtures.js";

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase({ max: 4 });
});
afterAll(async () => {
  await t.close();
});

const sealed = (memoryId: string) => ({
  memoryId,
  iv: randomBytes(12),
  ciphertext: randomBytes(33),
});

describe("memory vectors", () => {
  it("stores once per memory and model, reads by model and time, deletes with the memory", async () => {
    const user = await makeUser(t.db);
    const [a, b, c] = [newMemory("a"), newMemory("b"), newMemory("c")];
    await appendMemories(t.db, user.id, [a, b, c]);
    await deleteMemory(t.db, user.id, c.id);
    const first = sealed(a.id);
    expect(
      await insertMemoryVectors(t.db, user.id, "m1", [first, sealed(b.id), sealed(c.id)]),
    ).toBe(2);
    expect(await insertMemoryVectors(t.db, user.id, "m1", [sealed(a.id)])).toBe(0);
    expect(await insertMemoryVectors(t.db, user.id, "m2", [sealed(a.id)])).toBe(1);
    const stored = await listMemoryVectors(t.db, user.id, "m1", null);
    expect(stored.map((v) => [v.memoryId, v.leafIndex])).toEqual(
      expect.arrayContaining([
        [a.id, 0],
        [b.id, 1],
      ]),
    );
    expect(stored).toHaveLength(2);
    expect(Buffer.from(stored.find((v) => v.memoryId === a.id)?.ciphertext ?? [])).toEqual(
      first.ciphertext,
    );
    expect(await listMemoryVectors(t.db, user.id, "m1", new Date(Date.now() + 60_000))).toEqual([]);
    // The binary COPY read gives the same rows, byte for byte; a model id with a quote is a literal.
    const streamed: StoredVector[] = [];
    await streamMemoryVectors(t.db, user.id, "m1", null, (v) =>
      streamed.push({ ...v, iv: Buffer.from(v.iv), ciphertext: Buffer.from(v.ciphertext) }),
    );
    expect(
      streamed.map((v) => [v.memoryId, v.leafIndex, Buffer.from(v.ciphertext).toString("hex")]),
    ).toEqual(
      stored.map((v) => [v.memoryId, v.leafIndex, Buffer.from(v.ciphertext).toString("hex")]),
    );
    expect(streamed.map((v) => v.createdAt.getTime())).toEqual(
      stored.map((v) => v.createdAt.getTime()),
    );
    let later = 0;
    await streamMemoryVectors(t.db, user.id, "m1", stored[0]?.createdAt ?? null, () => later++);
    expect(later).toBe(2);
    expect(await streamMemoryVectors(t.db, user.id, "m1' or '1'='1", null, () => undefined)).toBe(
      0,
    );
    await deleteMemory(t.db, user.id, a.id);
    expect((await listMemoryVectors(t.db, user.id, "m1", null)).map((v) => v.memoryId)).toEqual([
      b.id,
    ]);
    expect(await listMemoryVectors(t.db, user.id, "m2", null)).toEqual([]);
  });

  it("a deletion racing an insert never leaves a vector of a deleted memory", async () => {
    const user = await makeUser(t.db);
    const items = Array.from({ length: 20 }, (_, i) => newMemory(`r${i}`));
    await appendMemories(t.db, user.id, items);
    await Promise.all(
      items.flatMap((item) => [
        insertMemoryVectors(t.db, user.id, "race", [sealed(item.id)]),
        deleteMemory(t.db, user.id, item.id),
      ]),
    );
    expect(await listMemoryVectors(t.db, user.id, "race", null)).toEqual([]);
  });

  it("lists live memories without a vector of the model, in pages, and prunes other models", async () => {
    const user = await makeUser(t.db);
    const items = [newMemory("x"), newMemory("y"), newMemory("z")];
    await appendMemories(t.db, user.id, items);
    await insertMemoryVectors(t.db, user.id, "cur", [sealed(items[1]?.id as string)]);
    await insertMemoryVectors(t.db, user.id, "old", [sealed(items[0]?.id as string)]);
    const mine = async (after: { userId: string; leafIndex: number } | null, limit: number) =>
      (await listMemoriesWithoutVector(t.db, "cur", { after, limit })).filter(
        (row) => row.userId === user.id,
      );
    const all = await mine({ userId: user.id, leafIndex: -1 }, 10);
    expect(all.map((row) => row.id)).toEqual([items[0]?.id, items[2]?.id]);
    expect(all[0]?.wrappedDataKey).toEqual(user.wrappedDataKey);
    const page = await mine({ userId: user.id, leafIndex: 0 }, 1);
    expect(page.map((row) => row.id)).toEqual([items[2]?.id]);
    expect(await deleteVectorsOfOtherModels(t.db, "cur")).toBeGreaterThanOrEqual(1);
    expect(await listMemoryVectors(t.db, user.id, "old", null)).toEqual([]);
    expect(await listMemoryVectors(t.db, user.id, "cur", null)).toHaveLength(1);
  });
});
