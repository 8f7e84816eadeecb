/**
 * Capability grants (`agent-cases`, docs/protocol.md §8) over real HTTP on PostgreSQL, with real
 * wallets and the real program on the local chain: creation and its bad input, anonymous use with
 * proofs that `@verifiable-memory/merkle-log` and the auditor verify, expiry by the injected clock, revocation
 * on the very next use, atomic use counting under concurrency, and an audit row for every attempt.
 */
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { Keypair } from "@solana/web3.js";
import { ChainClient } from "@verifiable-memory/chain-commit";
import { LOCAL_PROGRAM_ID } from "@verifiable-memory/commitment-program";
import { rootAtSize } from "@verifiable-memory/db-schema";
import { requestAirdrop, startLocalChain } from "@verifiable-memory/litesvm-rpc";
import { fromHex, hashLeaf, verifyInclusion } from "@verifiable-memory/merkle-log";
import type { HttpTarget } from "@verifiable-memory/testkit";
import {
  contentHashOf,
  leafDataBytes,
  type ProofBundle,
  verifyBundle,
} from "@verifiable-memory/verifier";
import bs58 from "bs58";
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

const run = promisify(execFile);

interface SharedMemory {
  id: string;
  leafIndex: number;
  leafHash: string;
  content: string;
  metadata: Record<string, unknown>;
  createdAt: string;
  anchored: boolean;
  proof: ProofBundle;
}

interface GrantAnswer {
  operation: Record<string, unknown>;
  expiresAt: string;
  usesRemaining: number;
  memories: SharedMemory[];
  omitted: number;
}

interface CreatedGrant {
  id: string;
  url: string;
  token: string;
  operation: Record<string, unknown>;
  label: string | null;
  expiresAt: string;
  maxUses: number;
  usesRemaining: number;
  createdAt: string;
}

let t: TestApp;
let chain: Awaited<ReturnType<typeof startLocalChain>>;
let chainDir: string;
let client: ChainClient;

beforeAll(async () => {
  chainDir = await mkdtemp(join(tmpdir(), "core-api-grants-"));
  chain = await startLocalChain({ port: 0, dataDir: chainDir, programId: LOCAL_PROGRAM_ID });
  const authority = Keypair.generate();
  await requestAirdrop(chain.url, authority.publicKey.toBase58(), 10e9);
  client = new ChainClient({
    rpcUrl: chain.url,
    programId: LOCAL_PROGRAM_ID,
    authority,
    confirmTimeoutMs: 20_000,
  });
  t = await startTestApp({
    env: { CHAIN_RPC_URL: chain.url, PUBLIC_BASE_URL: "https://memory.example/" },
  });
});
afterAll(async () => {
  await t.close();
  await chain.close();
  await rm(chainDir, { recursive: true, force: true });
});

async function write(user: TestUser, contents: readonly string[]): Promise<string[]> {
  const ids: string[] = [];
  for (const [i, content] of contents.entries()) {
    const res = await callAt<{ id: string }>(t.app, "/memories", {
      headers: user.headers,
      body: { content, metadata: { i } },
    });
    expect(res.status).toBe(201);
    ids.push(res.body.id);
  }
  return ids;
}

/** Commits the root at `size` on the local chain and records the checkpoint, as the anchor does. */
async function anchor(user: TestUser, size: number, expectedNonce: number): Promise<void> {
  const root = await rootAtSize(t.db, user.userId, size);
  const committed = await client.commit(user.wallet.publicKey, root, size, expectedNonce);
  await recordCheckpoint(t, user, size, committed.nonce, committed.signature);
}

function createGrant(user: TestUser, body: unknown) {
  return callAt<CreatedGrant>(t.app, "/agent-cases", { headers: user.headers, body });
}

/** Uses a grant with no credential, by its path on this test server. */
/** Uses a grant, in process unless `target` is a URL (the audit records a client address only over a socket). */
function useGrant(token: string, headers: Record<string, string> = {}, target: HttpTarget = t.app) {
  return callAt<GrantAnswer>(target, `/agent-cases/${token}`, { headers });
}

async function auditOf(user: TestUser, grantId: string) {
  const items: { outcome: string; ip: string | null; userAgent: string | null; at: string }[] = [];
  let cursor: string | null = null;
  do {
    const page: { status: number; body: { items: typeof items; nextCursor: string | null } } =
      await callAt(
        t.app,
        `/agent-cases/${grantId}/audit?limit=4${cursor ? `&cursor=${cursor}` : ""}`,
        { headers: user.headers },
      );
    expect(page.status).toBe(200);
    items.push(...page.body.items);
    cursor = page.body.nextCursor;
  } while (cursor);
  return items;
}

/** Checks a shared memory the way a third party would, with `@verifiable-memory/merkle-log` alone. */
function checkOffline(memory: SharedMemory): void {
  const { proof } = memory;
  expect(proof.memoryId).toBe(memory.id);
  expect(proof.leafData.contentHash).toBe(
    contentHashOf(Buffer.from(proof.salt, "base64"), memory.content),
  );
  const leafHash = hashLeaf(leafDataBytes(proof.leafData));
  expect(Buffer.from(leafHash).toString("hex")).toBe(proof.leafHash);
  expect(proof.checkpoint).not.toBeNull();
  verifyInclusion(
    proof.leafIndex,
    proof.checkpoint?.treeSize ?? 0,
    leafHash,
    (proof.inclusionProof ?? []).map(fromHex),
    fromHex(proof.checkpoint?.rootHash ?? ""),
  );
}

describe("POST /agent-cases", () => {
  it("creates a read_memories grant whose URL carries a 32-byte base58 token stored only as its SHA-256", async () => {
    const user = await newUser(t.app);
    const ids = await write(user, ["alpha", "beta"]);
    const res = await createGrant(user, {
      operation: { type: "read_memories", memoryIds: ids },
      label: "for the auditor",
    });
    expect(res.status).toBe(201);
    const grant = res.body;
    expect(bs58.decode(grant.token)).toHaveLength(32);
    expect(grant.url).toBe(`https://memory.example/agent-cases/${grant.token}`);
    expect(grant).toMatchObject({
      operation: { type: "read_memories", memoryIds: ids },
      label: "for the auditor",
      maxUses: 1,
      usesRemaining: 1,
      createdAt: t.clock.now().toISOString(),
      expiresAt: new Date(t.clock.now().getTime() + 86_400_000).toISOString(),
    });
    const rows = await t.sql<Record<string, unknown>[]>`
      select * from capability_grants where id = ${grant.id}`;
    expect(rows).toHaveLength(1);
    const stored = rows[0] as { token_hash: Buffer };
    expect(stored.token_hash.toString("hex")).toBe(
      createHash("sha256").update(grant.token).digest("hex"),
    );
    expect(JSON.stringify(rows)).not.toContain(grant.token);
  });

  it("accepts an API key as well as a session, and a search grant with its limit", async () => {
    const user = await newUser(t.app);
    const key = await mintApiKey(t.app, user.token);
    const res = await callAt<CreatedGrant>(t.app, "/agent-cases", {
      headers: { authorization: `Bearer ${key}` },
      body: { operation: { type: "search", query: "x" }, expiresInSeconds: 60, maxUses: 1000 },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      operation: { type: "search", query: "x", limit: 20 },
      maxUses: 1000,
      usesRemaining: 1000,
      label: null,
    });
  });

  it("refuses another user's memory, an unknown or deleted one with 404, and never creates the grant", async () => {
    const owner = await newUser(t.app);
    const other = await newUser(t.app);
    const [mine, gone] = await write(owner, ["mine", "gone"]);
    const [theirs] = await write(other, ["theirs"]);
    expect(
      (await callAt(t.app, `/memories/${gone}`, { method: "DELETE", headers: owner.headers }))
        .status,
    ).toBe(204);
    for (const memoryIds of [[mine, theirs], ["no-such-memory"], [gone]]) {
      const res = await createGrant(owner, { operation: { type: "read_memories", memoryIds } });
      expect(res.status, JSON.stringify(memoryIds)).toBe(404);
      expect(res.body).toMatchObject({ error: { code: "not_found" } });
    }
    const list = await callAt<{ items: unknown[] }>(t.app, "/agent-cases", {
      headers: owner.headers,
    });
    expect(list.body.items).toEqual([]);
  });

  it("answers 400 invalid_request to bad input and 401 without a credential", async () => {
    const user = await newUser(t.app);
    const [id] = await write(user, ["x"]);
    const many = Array.from({ length: 101 }, (_, i) => `id-${i}`);
    const bad: unknown[] = [
      {},
      { operation: { type: "read_memories", memoryIds: [] } },
      { operation: { type: "read_memories", memoryIds: many } },
      { operation: { type: "read_memories", memoryIds: [id, id] } },
      { operation: { type: "read_memories", memoryIds: [id] }, expiresInSeconds: 59 },
      { operation: { type: "read_memories", memoryIds: [id] }, expiresInSeconds: 2_592_001 },
      { operation: { type: "read_memories", memoryIds: [id] }, maxUses: 0 },
      { operation: { type: "read_memories", memoryIds: [id] }, maxUses: 1001 },
      { operation: { type: "read_memories", memoryIds: [id] }, label: "" },
      { operation: { type: "search", query: "" } },
      { operation: { type: "search", query: "x", limit: 201 } },
      { operation: { type: "write_memories" } },
    ];
    for (const body of bad) {
      const res = await createGrant(user, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body).toMatchObject({ error: { code: "invalid_request" } });
    }
    const anonymous = await callAt(t.app, "/agent-cases", {
      body: { operation: { type: "search", query: "x" } },
    });
    expect(anonymous.status).toBe(401);
  });
});

describe("GET /agent-cases/:token", () => {
  it("opened with plain curl, returns the memories with proofs that @verifiable-memory/merkle-log and the auditor verify", async () => {
    const user = await newUser(t.app);
    const ids = await write(user, ["first shared", "second shared", "third shared", "later"]);
    await anchor(user, 3, 0);
    const grant = (
      await createGrant(user, {
        operation: { type: "read_memories", memoryIds: [ids[2], ids[0], ids[3]] },
        maxUses: 2,
      })
    ).body;
    const { stdout } = await run("curl", [
      "-sS",
      "--fail",
      "-i",
      `${t.url}/agent-cases/${grant.token}`,
    ]);
    const [headers = "", body = ""] = stdout.split("\r\n\r\n");
    expect(headers.toLowerCase()).toContain("cache-control: no-store");
    const answer = JSON.parse(body) as GrantAnswer;
    expect(answer.operation).toEqual({
      type: "read_memories",
      memoryIds: [ids[2], ids[0], ids[3]],
    });
    expect(answer.usesRemaining).toBe(1);
    expect(answer.omitted).toBe(0);
    expect(answer.memories.map((m) => m.content)).toEqual([
      "third shared",
      "first shared",
      "later",
    ]);
    for (const memory of answer.memories.slice(0, 2)) {
      expect(memory.anchored).toBe(true);
      expect(memory.proof.anchored).toBe(true);
      checkOffline(memory);
      const audited = await verifyBundle(memory, { rpcUrl: chain.url });
      expect(audited.verified, JSON.stringify(audited)).toBe(true);
    }
    const unanchored = answer.memories[2] as SharedMemory;
    expect(unanchored.anchored).toBe(false);
    expect(unanchored.proof).toMatchObject({ anchored: false, checkpoint: null, anchor: null });
  });

  it("leaves out memories deleted after the grant was made and counts them in omitted", async () => {
    const user = await newUser(t.app);
    const ids = await write(user, ["keep", "delete me", "keep too"]);
    const grant = (
      await createGrant(user, { operation: { type: "read_memories", memoryIds: ids } })
    ).body;
    await callAt(t.app, `/memories/${ids[1]}`, { method: "DELETE", headers: user.headers });
    const res = await useGrant(grant.token);
    expect(res.status).toBe(200);
    expect(res.body.omitted).toBe(1);
    const raw = await t.app.request(`/agent-cases/${grant.token}`);
    expect(raw.status).toBe(410);
    expect(raw.headers.get("x-request-id")).toBeTruthy();
    expect(res.body.memories.map((m) => m.id)).toEqual([ids[0], ids[2]]);
  });

  it("a search grant answers the owner's matching memories, newest first, each with its proof", async () => {
    const owner = await newUser(t.app);
    const other = await newUser(t.app);
    await write(other, ["Needle of another user"]);
    const ids = await write(owner, ["a NEEDLE here", "nothing", "needle again", "needle deleted"]);
    await callAt(t.app, `/memories/${ids[3]}`, { method: "DELETE", headers: owner.headers });
    await anchor(owner, 4, 0);
    const grant = (
      await createGrant(owner, { operation: { type: "search", query: "needle", limit: 5 } })
    ).body;
    const res = await useGrant(grant.token);
    expect(res.status).toBe(200);
    expect(res.body.memories.map((m) => m.content)).toEqual(["needle again", "a NEEDLE here"]);
    expect(res.body.omitted).toBe(0);
    for (const memory of res.body.memories) {
      checkOffline(memory);
    }
  });

  it("expires by the injected clock: usable one second before, 410 grant_expired at expiry", async () => {
    const user = await newUser(t.app);
    const [id] = await write(user, ["ephemeral"]);
    const grant = (
      await createGrant(user, {
        operation: { type: "read_memories", memoryIds: [id] },
        expiresInSeconds: 60,
        maxUses: 5,
      })
    ).body;
    t.clock.advance(59_000);
    expect((await useGrant(grant.token)).status).toBe(200);
    t.clock.advance(1_000);
    const expired = await useGrant(grant.token);
    expect(expired.status).toBe(410);
    expect(expired.body).toMatchObject({ error: { code: "grant_expired" } });
    const audit = await auditOf(user, grant.id);
    expect(audit.map((a) => a.outcome)).toEqual(["expired", "ok"]);
  });

  it("revocation takes effect on the very next use; revoking is idempotent and owner-only", async () => {
    const owner = await newUser(t.app);
    const other = await newUser(t.app);
    const [id] = await write(owner, ["revocable"]);
    const grant = (
      await createGrant(owner, {
        operation: { type: "read_memories", memoryIds: [id] },
        maxUses: 5,
      })
    ).body;
    expect((await useGrant(grant.token)).status).toBe(200);
    const del = (user: TestUser) =>
      callAt(t.app, `/agent-cases/${grant.id}`, { method: "DELETE", headers: user.headers });
    expect((await del(other)).status).toBe(404);
    expect((await useGrant(grant.token)).status).toBe(200);
    expect((await del(owner)).status).toBe(204);
    const revoked = await useGrant(grant.token);
    expect(revoked.status).toBe(410);
    expect(revoked.body).toMatchObject({ error: { code: "grant_revoked" } });
    expect((await del(owner)).status).toBe(204);
    const unknown = await callAt(t.app, "/agent-cases/not-a-grant", {
      method: "DELETE",
      headers: owner.headers,
    });
    expect(unknown.status).toBe(404);
  });

  it("ranks refusals revoked, then expired, then exhausted", async () => {
    const user = await newUser(t.app);
    const [id] = await write(user, ["ranked"]);
    const grant = (
      await createGrant(user, {
        operation: { type: "read_memories", memoryIds: [id] },
        expiresInSeconds: 60,
      })
    ).body;
    expect((await useGrant(grant.token)).status).toBe(200);
    expect((await useGrant(grant.token)).body).toMatchObject({
      error: { code: "grant_exhausted" },
    });
    t.clock.advance(61_000);
    expect((await useGrant(grant.token)).body).toMatchObject({ error: { code: "grant_expired" } });
    await callAt(t.app, `/agent-cases/${grant.id}`, { method: "DELETE", headers: user.headers });
    expect((await useGrant(grant.token)).body).toMatchObject({ error: { code: "grant_revoked" } });
    const list = await callAt<{ items: { id: string; status: string; usesRemaining: number }[] }>(
      t.app,
      "/agent-cases",
      { headers: user.headers },
    );
    expect(list.body.items).toEqual([
      expect.objectContaining({ id: grant.id, status: "revoked", usesRemaining: 0 }),
    ]);
  });

  it("10 concurrent uses of a grant with maxUses 3: exactly 3 succeed, and the audit counts all 10", async () => {
    const user = await newUser(t.app);
    const [id] = await write(user, ["contended"]);
    const grant = (
      await createGrant(user, { operation: { type: "read_memories", memoryIds: [id] }, maxUses: 3 })
    ).body;
    const results = await Promise.all(
      Array.from({ length: 10 }, () => useGrant(grant.token, { "user-agent": "racer/1.0" }, t.url)),
    );
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([200, 200, 200, 410, 410, 410, 410, 410, 410, 410]);
    expect(
      results
        .filter((r) => r.status === 200)
        .map((r) => r.body.usesRemaining)
        .sort(),
    ).toEqual([0, 1, 2]);
    const audit = await auditOf(user, grant.id);
    expect(audit).toHaveLength(10);
    expect(audit.filter((a) => a.outcome === "ok")).toHaveLength(3);
    expect(audit.filter((a) => a.outcome === "exhausted")).toHaveLength(7);
    for (const attempt of audit) {
      expect(attempt.ip).toMatch(/127\.0\.0\.1/);
      expect(attempt.userAgent).toBe("racer/1.0");
    }
  });

  it("an unknown token is 404 and still leaves an audit row; the audit of another user's grant is 404", async () => {
    const owner = await newUser(t.app);
    const other = await newUser(t.app);
    const [id] = await write(owner, ["x"]);
    const grant = (
      await createGrant(owner, { operation: { type: "read_memories", memoryIds: [id] } })
    ).body;
    const count = async () =>
      Number(
        (
          await t.sql<{ n: string }[]>`
            select count(*) as n from grant_audit where grant_id is null and outcome = 'not_found'`
        )[0]?.n,
      );
    const before = await count();
    const unknown = await useGrant(bs58.encode(new Uint8Array(32).fill(1)));
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ error: { code: "not_found" } });
    expect((await useGrant("%E2%98%83")).status).toBe(404);
    expect(await count()).toBe(before + 2);
    expect(
      (await callAt(t.app, `/agent-cases/${grant.id}/audit`, { headers: other.headers })).status,
    ).toBe(404);
    expect(await auditOf(owner, grant.id)).toEqual([]);
  });
});

describe("GET /agent-cases", () => {
  it("lists only the owner's grants, newest first, with uses left and status, paginated", async () => {
    const owner = await newUser(t.app);
    const other = await newUser(t.app);
    const [id] = await write(owner, ["listed"]);
    const created: string[] = [];
    for (let i = 0; i < 3; i++) {
      t.clock.advance(1000);
      const grant = await createGrant(owner, {
        operation: { type: "read_memories", memoryIds: [id] },
        maxUses: 2,
        label: `share ${i}`,
      });
      created.push(grant.body.id);
      if (i === 0) {
        await useGrant(grant.body.token);
      }
    }
    const first = await callAt<{
      items: { id: string; usesRemaining: number; status: string }[];
      nextCursor: string;
    }>(t.app, "/agent-cases?limit=2", { headers: owner.headers });
    const second = await callAt<{
      items: { id: string; usesRemaining: number }[];
      nextCursor: null;
    }>(t.app, `/agent-cases?limit=2&cursor=${first.body.nextCursor}`, { headers: owner.headers });
    const items = [...first.body.items, ...second.body.items];
    expect(items.map((g) => g.id)).toEqual([...created].reverse());
    expect(items.map((g) => g.usesRemaining)).toEqual([2, 2, 1]);
    expect(first.body.items.map((g) => g.status)).toEqual(["active", "active"]);
    expect(second.body.nextCursor).toBeNull();
    const theirs = await callAt<{ items: unknown[] }>(t.app, "/agent-cases", {
      headers: other.headers,
    });
    expect(theirs.body.items).toEqual([]);
    const badCursor = await callAt(t.app, "/agent-cases?cursor=nonsense", {
      headers: owner.headers,
    });
    expect(badCursor.status).toBe(400);
  });
});
