/**
 * Grants delegate nothing their creator cannot do (docs/protocol.md §8 "Capability grants"), over
 * real HTTP on PostgreSQL: a matrix of the creating credential's scopes × the delegated operation ×
 * namespace confinement, each created grant then used anonymously to check what it reaches; the
 * creating key recorded on the grant; revoking that key, or its expiry, revokes its grants.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callAt, newUser, startTestApp, type TestApp, type TestUser } from "./helpers.js";

let t: TestApp;
let user: TestUser;
/** Memory ids by namespace: `team/a` (inside the confinement) and `other` (outside). */
let inside: string;
let outside: string;

beforeAll(async () => {
  t = await startTestApp();
  user = await newUser(t.app);
  const write = async (content: string, namespace: string) => {
    const res = await callAt<{ id: string }>(t.app, "/memories", {
      headers: user.headers,
      body: { content, namespace },
    });
    expect(res.status).toBe(201);
    return res.body.id;
  };
  inside = await write("matrix word inside", "team/a");
  outside = await write("matrix word outside", "other");
});
afterAll(async () => {
  await t.close();
});

interface KeyOptions {
  scopes?: string[];
  namespace?: string;
  expiresAt?: string;
}

async function createKey(options: KeyOptions): Promise<{ id: string; key: string }> {
  const res = await callAt<{ id: string; key: string }>(t.app, "/keys", {
    headers: user.headers,
    body: { label: "matrix", ...options },
  });
  expect(res.status).toBe(201);
  return res.body;
}

function createGrant(bearer: string, operation: Record<string, unknown>) {
  return callAt<{ id: string; token: string; operation: Record<string, unknown> }>(
    t.app,
    "/agent-cases",
    { headers: { authorization: `Bearer ${bearer}` }, body: { operation, maxUses: 10 } },
  );
}

function useGrant(token: string) {
  return callAt<{ memories: { id: string }[] }>(t.app, `/agent-cases/${token}`);
}

const SCOPE_SETS: readonly (readonly string[] | "session")[] = [
  ["grants:write"],
  ["memories:read"],
  ["grants:write", "memories:read"],
  ["grants:write", "memories:write", "memories:delete"],
  ["memories:read", "memories:write", "memories:delete", "grants:write"],
  "session",
];
const OPERATIONS = ["read_memories", "search"] as const;
const CONFINEMENTS = [null, "team/"] as const;

const cases = SCOPE_SETS.flatMap((scopes) =>
  OPERATIONS.flatMap((operation) =>
    CONFINEMENTS.filter((namespace) => scopes !== "session" || namespace === null).map(
      (namespace) => ({ scopes, operation, namespace }),
    ),
  ),
);

describe("creating a grant: scopes × operation × confinement", () => {
  it.each(cases)(
    "$scopes, $operation, confined to $namespace",
    async ({ scopes, operation, namespace }) => {
      const bearer =
        scopes === "session"
          ? user.token
          : (
              await createKey({
                scopes: [...scopes],
                ...(namespace === null ? {} : { namespace }),
              })
            ).key;
      const held = scopes === "session" ? ["grants:write", "memories:read"] : scopes;
      const allowed = held.includes("grants:write") && held.includes("memories:read");
      const body =
        operation === "search"
          ? { type: "search", query: "matrix word" }
          : { type: "read_memories", memoryIds: namespace === null ? [inside, outside] : [inside] };
      const count = async () =>
        (await t.sql`select 1 from capability_grants where user_id = ${user.userId}`).length;
      const before = await count();
      const created = await createGrant(bearer, body);
      if (!allowed) {
        expect(created.status).toBe(403);
        const missing = held.includes("grants:write") ? "memories:read" : "grants:write";
        expect(created.body).toMatchObject({
          error: { code: "insufficient_scope", message: expect.stringContaining(missing) },
        });
        expect(await count()).toBe(before);
        return;
      }
      expect(created.status).toBe(201);
      const used = await useGrant(created.body.token);
      expect(used.status).toBe(200);
      const ids = used.body.memories.map((m) => m.id).sort();
      expect(ids).toEqual(namespace === null ? [inside, outside].sort() : [inside]);
      if (namespace !== null && operation === "read_memories") {
        const past = await createGrant(bearer, { type: "read_memories", memoryIds: [outside] });
        expect(past.status).toBe(404);
      }
    },
  );
});

describe("the creating key", () => {
  it("is recorded on the grant; a session's grant records none", async () => {
    const { id, key } = await createKey({});
    const byKey = await createGrant(key, { type: "search", query: "matrix" });
    const bySession = await createGrant(user.token, { type: "search", query: "matrix" });
    const rows = await t.sql<{ id: string; created_by_key_id: string | null }[]>`
      select id, created_by_key_id from capability_grants
      where id in ${t.sql([byKey.body.id, bySession.body.id])}`;
    const byId = new Map(rows.map((r) => [r.id, r.created_by_key_id]));
    expect(byId.get(byKey.body.id)).toBe(id);
    expect(byId.get(bySession.body.id)).toBeNull();
  });

  it("revoked revokes its grants in the same request, and only its grants", async () => {
    const { id, key } = await createKey({});
    const other = await createKey({});
    const mine = await createGrant(key, { type: "read_memories", memoryIds: [inside] });
    const theirs = await createGrant(other.key, { type: "read_memories", memoryIds: [inside] });
    expect((await useGrant(mine.body.token)).status).toBe(200);
    const revoked = await callAt(t.app, `/keys/${id}`, { method: "DELETE", headers: user.headers });
    expect(revoked.status).toBe(204);
    expect(await useGrant(mine.body.token)).toMatchObject({
      status: 410,
      body: { error: { code: "grant_revoked" } },
    });
    expect((await useGrant(theirs.body.token)).status).toBe(200);
    const listed = await callAt<{ items: { id: string; status: string; revokedAt: string }[] }>(
      t.app,
      "/agent-cases?limit=200",
      { headers: user.headers },
    );
    const view = listed.body.items.find((g) => g.id === mine.body.id);
    expect(view).toMatchObject({ status: "revoked", revokedAt: t.clock.now().toISOString() });
    expect(listed.body.items.find((g) => g.id === theirs.body.id)?.status).toBe("active");
  });

  it("expired revokes its grants from its expiry on", async () => {
    const expiresAt = new Date(t.clock.now().getTime() + 120_000).toISOString();
    const { key } = await createKey({ expiresAt });
    const grant = await createGrant(key, { type: "search", query: "matrix" });
    expect(grant.status).toBe(201);
    expect((await useGrant(grant.body.token)).status).toBe(200);
    t.clock.advance(120_000);
    expect(await useGrant(grant.body.token)).toMatchObject({
      status: 410,
      body: { error: { code: "grant_revoked" } },
    });
    const listed = await callAt<{ items: { id: string; status: string; revokedAt: string }[] }>(
      t.app,
      "/agent-cases?limit=200",
      { headers: user.headers },
    );
    expect(listed.body.items.find((g) => g.id === grant.body.id)).toMatchObject({
      status: "revoked",
      revokedAt: expiresAt,
    });
    const audit = await t.sql<{ outcome: string }[]>`
      select outcome from grant_audit where grant_id = ${grant.body.id} order by id`;
    expect(audit.map((a) => a.outcome)).toEqual(["ok", "revoked"]);
  });
});
