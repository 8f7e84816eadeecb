/**
 * A `search` grant's query is stored only sealed under its owner's data key (docs/protocol.md §8.1
 * "Creation"), over real HTTP on PostgreSQL: no clear text in the row, the grant still works through
 * its capability URL and lists its query, a sealed query moved to another grant does not open, and
 * the start-up task that seals rows written in clear is complete, idempotent and safe when two
 * runs race; a master-key rotation (re-wrapping data keys only) leaves sealed queries readable.
 */

import { randomBytes } from "node:crypto";
import { getGrant, getUserById } from "@verifiable-memory/db-schema";
import { DecryptionError } from "@verifiable-memory/envelope-crypto";
import { DataKeys, rotateDataKeys } from "@verifiable-memory/memory";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sealClearGrantQueries } from "../src/services/grant-queries.js";
import { grantQuery } from "../src/services/grants.js";
import { callAt, newUser, startTestApp, TEST_ENV, type TestApp, type TestUser } from "./helpers.js";

let t: TestApp;
let user: TestUser;
let memoryId: string;
let dataKeys: DataKeys;

const QUERY = "zebracorn";

beforeAll(async () => {
  t = await startTestApp();
  dataKeys = new DataKeys(t.config.masterKeys);
  user = await newUser(t.app);
  const res = await callAt<{ id: string }>(t.app, "/memories", {
    headers: user.headers,
    body: { content: `the ${QUERY} note` },
  });
  expect(res.status).toBe(201);
  memoryId = res.body.id;
  await callAt(t.app, "/memories", { headers: user.headers, body: { content: "unrelated" } });
});
afterAll(async () => {
  await t.close();
});

async function createSearchGrant(query = QUERY) {
  const res = await callAt<{ id: string; token: string; operation: Record<string, unknown> }>(
    t.app,
    "/agent-cases",
    { headers: user.headers, body: { operation: { type: "search", query }, maxUses: 10 } },
  );
  expect(res.status).toBe(201);
  return res.body;
}

async function useGrant(token: string) {
  const res = await callAt<{ operation: Record<string, unknown>; memories: { id: string }[] }>(
    t.app,
    `/agent-cases/${token}`,
  );
  expect(res.status).toBe(200);
  return res.body;
}

/** The row as PostgreSQL stores it: every column as text, and the sealed columns. */
async function rawRow(id: string) {
  const [row] = await t.sql<
    { whole: string; operation: Record<string, unknown>; ct: Buffer | null; iv: Buffer | null }[]
  >`select g::text as whole, operation, query_ciphertext as ct, query_iv as iv
      from capability_grants g where id = ${id}`;
  if (!row) {
    throw new Error(`no grant ${id}`);
  }
  return row;
}

/** Rewrites grant `id` as rows were written before queries were sealed: the query in clear. */
async function makeClear(id: string, query: string): Promise<void> {
  await t.sql`update capability_grants
    set operation = operation || jsonb_build_object('query', ${query}::text),
        query_ciphertext = null, query_iv = null
    where id = ${id}`;
}

describe("sealed grant queries", () => {
  it("stores no clear text, and the grant answers its query through the capability URL", async () => {
    const grant = await createSearchGrant();
    expect(grant.operation).toMatchObject({ type: "search", query: QUERY, limit: 20 });
    const row = await rawRow(grant.id);
    expect(row.operation).toEqual({ type: "search", limit: 20 });
    expect(row.whole).not.toContain(QUERY);
    expect(row.ct?.length).toBe(QUERY.length + 17);
    expect(row.iv?.length).toBe(12);
    expect(Buffer.from(row.ct as Buffer).includes(Buffer.from(QUERY))).toBe(false);
    const used = await useGrant(grant.token);
    expect(used.operation).toMatchObject({ type: "search", query: QUERY });
    expect(used.memories.map((m) => m.id)).toEqual([memoryId]);
    const list = await callAt<{ items: { id: string; operation: Record<string, unknown> }[] }>(
      t.app,
      "/agent-cases",
      { headers: user.headers },
    );
    expect(list.body.items.find((g) => g.id === grant.id)?.operation.query).toBe(QUERY);
  });

  it("does not open a sealed query moved onto another grant", async () => {
    const a = await createSearchGrant();
    const b = await createSearchGrant("other words");
    await t.sql`update capability_grants set (query_ciphertext, query_iv) =
      (select query_ciphertext, query_iv from capability_grants where id = ${a.id})
      where id = ${b.id}`;
    const owner = await getUserById(t.db, user.userId);
    const moved = await getGrant(t.db, user.userId, b.id);
    if (!owner || !moved) {
      throw new Error("missing rows");
    }
    const dataKey = dataKeys.of({ userId: owner.id, wrappedDataKey: owner.wrappedDataKey });
    expect(() => grantQuery(dataKey, moved)).toThrow(DecryptionError);
    const original = await getGrant(t.db, user.userId, a.id);
    expect(original && grantQuery(dataKey, original)).toBe(QUERY);
  });

  it("seals rows written in clear at start-up, once, even with two runs at once", async () => {
    const kept = await createSearchGrant();
    await makeClear(kept.id, QUERY);
    expect((await rawRow(kept.id)).whole).toContain(QUERY);
    // A clear grant still works before the task runs (rows written by an older version).
    expect((await useGrant(kept.token)).memories.map((m) => m.id)).toEqual([memoryId]);
    const extra = 150;
    await t.sql`insert into capability_grants (user_id, token_hash, operation, max_uses, expires_at)
      select ${user.userId}, sha256(('tok' || n)::bytea),
             jsonb_build_object('type', 'search', 'query', 'clear query ' || n, 'limit', 5),
             3, now() + interval '1 day'
      from generate_series(1, ${extra}) n`;
    const clearCount = async () =>
      Number(
        (
          await t.sql<{ n: string }[]>`select count(*) as n from capability_grants
          where operation ? 'query' or query_ciphertext is null and operation->>'type' = 'search'`
        )[0]?.n,
      );
    expect(await clearCount()).toBe(extra + 1);

    const [first, second] = await Promise.all([
      sealClearGrantQueries(t.db, new DataKeys(t.config.masterKeys)),
      sealClearGrantQueries(t.db, new DataKeys(t.config.masterKeys)),
    ]);
    expect((first ?? 0) + (second ?? 0)).toBe(extra + 1);
    expect(await clearCount()).toBe(0);
    const [{ n: leaked } = { n: "?" }] = await t.sql<{ n: string }[]>`select count(*) as n
      from capability_grants g where g::text like '%clear query%' or g::text like ${`%${QUERY}%`}`;
    expect(leaked).toBe("0");

    const before =
      await t.sql`select id, query_ciphertext, query_iv, operation from capability_grants order by id`;
    expect(await sealClearGrantQueries(t.db, dataKeys)).toBe(0);
    const after =
      await t.sql`select id, query_ciphertext, query_iv, operation from capability_grants order by id`;
    expect(after).toEqual(before);

    const used = await useGrant(kept.token);
    expect(used.operation).toMatchObject({ type: "search", query: QUERY });
    expect(used.memories.map((m) => m.id)).toEqual([memoryId]);
    const owner = await getUserById(t.db, user.userId);
    const sealedRow = await t.sql<{ id: string }[]>`select id from capability_grants
      where operation->>'limit' = '5' order by id limit 1`;
    const one = sealedRow[0] && (await getGrant(t.db, user.userId, sealedRow[0].id));
    if (!owner || !one) {
      throw new Error("missing rows");
    }
    const dataKey = dataKeys.of({ userId: owner.id, wrappedDataKey: owner.wrappedDataKey });
    expect(grantQuery(dataKey, one)).toMatch(/^clear query \d+$/);
  });

  it("still answers after a master-key rotation, with the old master key gone", async () => {
    const grant = await createSearchGrant();
    const sealedBefore = (await rawRow(grant.id)).ct;
    const NEW = randomBytes(32).toString("base64");
    const during = await startTestApp({
      shareDatabaseOf: t,
      env: {
        MASTER_ENCRYPTION_KEY: NEW,
        MASTER_ENCRYPTION_KEYS_PREVIOUS: TEST_ENV.MASTER_ENCRYPTION_KEY,
      },
    });
    try {
      const result = await rotateDataKeys(during.db, during.config.masterKeys);
      expect(result.rewrapped).toBeGreaterThanOrEqual(1);
    } finally {
      await during.close();
    }
    const after = await startTestApp({ shareDatabaseOf: t, env: { MASTER_ENCRYPTION_KEY: NEW } });
    try {
      const res = await callAt<{ operation: Record<string, unknown>; memories: { id: string }[] }>(
        after.app,
        `/agent-cases/${grant.token}`,
      );
      expect(res.status).toBe(200);
      expect(res.body.operation).toMatchObject({ type: "search", query: QUERY });
      expect(res.body.memories.map((m) => m.id)).toEqual([memoryId]);
      expect((await rawRow(grant.id)).ct).toEqual(sealedBefore);
    } finally {
      await after.close();
    }
  });
});
