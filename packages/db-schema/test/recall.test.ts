/**
 * readRecallPage, the recall cache's loader: live rows only, in leaf order, paged, the columns
 * converted by hand (ids, leaf indices, epoch milliseconds, metadata text, bytes), deletions since
 * a time in the same statement, scoped to the user, a throwing callback rethrown cleanly, and one
 * plan per connection (PostgreSQL's generic plan, not a custom plan per call).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  appendMemories,
  createDatabase,
  deleteMemory,
  getMemory,
  type NewMemory,
  type RecallRow,
  readRecallPage,
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

/** Every row of one call, copied out of the callback. */
async function read(
  userId: string,
  afterLeafIndex: number,
  limit: number,
  deletedSince: Date | null = null,
) {
  const rows: RecallRow[] = [];
  const page = await readRecallPage(t.db, userId, { afterLeafIndex, limit, deletedSince }, (r) =>
    rows.push({
      ...r,
      leafHash: new Uint8Array(r.leafHash),
      iv: new Uint8Array(r.iv),
      ciphertext: new Uint8Array(r.ciphertext),
    }),
  );
  return { page, rows };
}

describe("readRecallPage", () => {
  it("hands out the live memories in leaf order with every column converted", async () => {
    const user = await makeUser(t.db);
    const items: NewMemory[] = [
      newMemory("a", { topic: "x", n: 1, nested: { é: [true, null] } }),
      newMemory("b"),
      newMemory("c", { topic: "y" }),
    ];
    await appendMemories(t.db, user.id, items);
    const { page, rows } = await read(user.id, -1, 10);
    expect(page).toEqual({ rows: 3, lastLeafIndex: 2, deletedLeafIndexes: [] });
    expect(rows.map((r) => r.id)).toEqual(items.map((m) => m.id));
    for (const [i, row] of rows.entries()) {
      const item = items[i] as NewMemory;
      const stored = await getMemory(t.db, user.id, item.id);
      expect(row.leafIndex).toBe(i);
      expect(row.createdAtMs).toBe(stored?.createdAt.getTime());
      expect(JSON.parse(row.metadataJson)).toEqual(item.metadata);
      expect(row.leafHash).toEqual(new Uint8Array(item.leafHash));
      expect(row.iv).toEqual(new Uint8Array(item.iv ?? []));
      expect(row.ciphertext).toEqual(new Uint8Array(item.ciphertext));
    }
    expect(rows[1]?.metadataJson).toBe("{}");
  });

  it("pages by leaf index and skips deleted memories, reporting deletions since a time", async () => {
    const user = await makeUser(t.db);
    const items = Array.from({ length: 7 }, (_, i) => newMemory(`m${i}`));
    await appendMemories(t.db, user.id, items);
    const before = new Date(Date.now() - 60_000);
    await deleteMemory(t.db, user.id, (items[1] as NewMemory).id);
    await deleteMemory(t.db, user.id, (items[4] as NewMemory).id);

    const first = await read(user.id, -1, 3, before);
    expect(first.rows.map((r) => r.leafIndex)).toEqual([0, 2, 3]);
    expect(first.page.lastLeafIndex).toBe(3);
    expect([...first.page.deletedLeafIndexes].sort()).toEqual([1, 4]);
    const second = await read(user.id, first.page.lastLeafIndex, 3);
    expect(second.rows.map((r) => r.leafIndex)).toEqual([5, 6]);
    expect(second.page).toMatchObject({ rows: 2, lastLeafIndex: 6, deletedLeafIndexes: [] });
    const end = await read(user.id, 6, 3, new Date(Date.now() + 60_000));
    expect(end.page).toEqual({ rows: 0, lastLeafIndex: 6, deletedLeafIndexes: [] });
  });

  it("never reads or reports another user's memories", async () => {
    const a = await makeUser(t.db);
    const b = await makeUser(t.db);
    const mine = newMemory("mine");
    const theirs = [newMemory("theirs"), newMemory("gone")];
    await appendMemories(t.db, a.id, [mine]);
    await appendMemories(t.db, b.id, theirs);
    await deleteMemory(t.db, b.id, (theirs[1] as NewMemory).id);
    const { page, rows } = await read(a.id, -1, 100, new Date(0));
    expect(rows.map((r) => r.id)).toEqual([mine.id]);
    expect(page.deletedLeafIndexes).toEqual([]);
  });

  it("rethrows what the callback threw once the statement is done; the pool stays usable", async () => {
    const user = await makeUser(t.db);
    await appendMemories(
      t.db,
      user.id,
      Array.from({ length: 50 }, (_, i) => newMemory(`m${i}`)),
    );
    let calls = 0;
    const failure = new Error("boom");
    await expect(
      readRecallPage(t.db, user.id, { afterLeafIndex: -1, limit: 100, deletedSince: null }, () => {
        calls++;
        if (calls === 3) {
          throw failure;
        }
      }),
    ).rejects.toBe(failure);
    expect(calls).toBe(3);
    expect((await read(user.id, -1, 100)).rows).toHaveLength(50);
  });

  it("is planned once per connection: PostgreSQL keeps its generic plan from the sixth call on", async () => {
    const user = await makeUser(t.db);
    // Enough rows, with statistics, for a custom plan of a bare parameter to look cheaper.
    const items = Array.from({ length: 3_000 }, (_, i) => newMemory(`m${i}`));
    await appendMemories(t.db, user.id, items);
    await t.sql`analyze memories`;
    const one = createDatabase({ url: t.url, max: 1 });
    try {
      const since = new Date(Date.now() - 60_000);
      for (let i = 0; i < 8; i++) {
        const page = await readRecallPage(
          one.db,
          user.id,
          { afterLeafIndex: 2_997, limit: 10, deletedSince: i % 3 ? since : null },
          () => {},
        );
        expect(page.rows).toBe(2);
      }
      const [plans] = await one.sql<{ generic: string; custom: string }[]>`
        select generic_plans::text as generic, custom_plans::text as custom
        from pg_prepared_statements where starts_with(statement, '(select id, leaf_index,')`;
      expect(Number(plans?.custom)).toBe(5);
      expect(Number(plans?.generic)).toBe(3);
    } finally {
      await one.close();
    }
  });

  it("refuses a live row without a well-formed body, bad options and a transaction", async () => {
    const user = await makeUser(t.db);
    await appendMemories(t.db, user.id, [{ ...newMemory("no-iv"), iv: null }]);
    await expect(read(user.id, -1, 10)).rejects.toThrow(/no well-formed body/);
    const options = { afterLeafIndex: -1, limit: 10, deletedSince: null };
    const noop = () => {};
    await expect(
      readRecallPage(t.db, user.id, { ...options, afterLeafIndex: -2 }, noop),
    ).rejects.toThrow(RangeError);
    await expect(readRecallPage(t.db, user.id, { ...options, limit: 0 }, noop)).rejects.toThrow(
      RangeError,
    );
    await expect(
      readRecallPage(t.db, user.id, { ...options, limit: 10_001 }, noop),
    ).rejects.toThrow(RangeError);
    await expect(
      t.db.transaction((tx) =>
        readRecallPage(tx as unknown as typeof t.db, user.id, options, noop),
      ),
    ).rejects.toThrow(TypeError);
  });
});
