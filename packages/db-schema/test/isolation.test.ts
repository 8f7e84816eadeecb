/**
 * docs/protocol.md §3 Authorization rule 1: every user-scoped query filters on the userId inside the SQL.
 * Two users' data side by side; every user-scoped query function called as the other user finds
 * nothing and changes nothing. Every exported function must be classified below, so a new query
 * function cannot be added without deciding (and testing) its scope.
 */
import { createHash, randomBytes } from "node:crypto";
import { inclusionProof } from "@verifiable-memory/merkle-log";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as api from "../src/index.js";
import {
  appendMemories,
  appendMemoriesForUsers,
  appendMemoriesToKnownTrees,
  checkTree,
  deleteMemory,
  deleteRecallSegments,
  deleteVectorsOf,
  dropRecallSegmentOf,
  getAnchoredCheckpointBySize,
  getApiKey,
  getCommitBatch,
  getGrant,
  getLeafCount,
  getMemoriesByIds,
  getMemory,
  getMemoryAtLatestCheckpoint,
  getPendingLeaves,
  getTree,
  insertAnchoredCheckpoint,
  insertApiKey,
  insertExtensionSession,
  insertGrant,
  insertGrantAudit,
  insertMemoryVectors,
  insertSubmittedBatch,
  latestAnchoredCheckpoint,
  latestEventId,
  listAnchoredCheckpoints,
  listApiKeys,
  listDeletedSince,
  listEventsAfter,
  listGrantAudit,
  listGrants,
  listMemories,
  listMemoriesSince,
  listMemoryVectors,
  listMemoryVersions,
  listNamespaces,
  listRecallSegments,
  listStakeLots,
  listSupersededBefore,
  markAnchored,
  markBatchConfirmed,
  markBatchFailed,
  nodeSource,
  readRecallPage,
  rebuildTree,
  replaceStakeLots,
  resealRecallSegmentOf,
  revokeApiKey,
  revokeExtensionSession,
  revokeGrant,
  revokeGrantsOfKey,
  rootAtSize,
  sealRecallSegment,
  sealRecallVectorSegment,
  streamMemoryVectors,
  streamRecallSegments,
  streamRecallVectorSegments,
  supersedeMemory,
  touchApiKeyLastUsed,
  trees,
} from "../src/index.js";
import { createTestDatabase, type TestDatabase } from "../src/testing/index.js";
import { makeUser, newMemory } from "./_fixtures.js";
import {
  CREDENTIAL_LOOKUPS,
  IDENTITY,
  INFRASTRUCTURE,
  SERVICE_WIDE,
  USER_INSERTS,
  USER_SCOPED,
} from "./_scopes.js";

/** The model id of the vectors stored for each user. */
const MODEL = "openai|http://127.0.0.1:1|test|8";

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase({ max: 4 });
});
afterAll(async () => {
  await t.close();
});

const hash = () => new Uint8Array(createHash("sha256").update(randomBytes(16)).digest());

/** A user with one of everything; returns the ids. */
async function populate() {
  const user = await makeUser(t.db);
  const kept = newMemory("kept");
  const gone = newMemory("gone");
  const since = new Date(Date.now() - 1000);
  await appendMemories(t.db, user.id, [kept, gone]);
  await deleteMemory(t.db, user.id, gone.id);
  const key = await insertApiKey(t.db, {
    userId: user.id,
    keyHash: hash(),
    prefix: "svc_12345678",
    label: "k",
  });
  const checkpoint = await insertAnchoredCheckpoint(t.db, {
    userId: user.id,
    treeSize: 2,
    root: hash(),
    nonce: 1,
    signature: `s${randomBytes(4).toString("hex")}`,
  });
  const batch = await insertSubmittedBatch(t.db, {
    userId: user.id,
    treeSize: 2,
    root: hash(),
    expectedNonce: 0,
  });
  const session = await insertExtensionSession(t.db, {
    userId: user.id,
    tokenHash: hash(),
    expiresAt: new Date(Date.now() + 3_600_000),
  });
  const grant = await insertGrant(t.db, {
    userId: user.id,
    tokenHash: hash(),
    operation: { type: "read_memories", memoryIds: [kept.id] },
    createdByKeyId: key.id,
    maxUses: 3,
    expiresAt: new Date(Date.now() + 3_600_000),
  });
  await insertGrantAudit(t.db, {
    grantId: grant.id,
    userId: user.id,
    outcome: "ok",
    ip: null,
    userAgent: null,
  });
  await sealRecallSegment(t.db, user.id, { firstLeaf: 0, endLeaf: 2 }, () => ({
    format: 1,
    entries: 1,
    iv: new Uint8Array(12),
    ciphertext: new Uint8Array(17),
  }));
  await insertMemoryVectors(t.db, user.id, MODEL, [
    { memoryId: kept.id, iv: new Uint8Array(12), ciphertext: new Uint8Array(33) },
  ]);
  await sealRecallVectorSegment(t.db, user.id, MODEL, { firstLeaf: 0, endLeaf: 2 }, () => ({
    format: 1,
    entries: 1,
    iv: new Uint8Array(12),
    ciphertext: new Uint8Array(17),
  }));
  await replaceStakeLots(
    t.db,
    user.id,
    [{ amountLamports: 1000n, unlockAt: new Date(Date.now() + 86_400_000) }],
    new Date(),
  );
  return { user, kept, gone, since, key, checkpoint, batch, session, grant };
}

describe("authorization: every query is scoped to its userId", () => {
  it("classifies every exported function", () => {
    const exported = Object.entries(api)
      .filter(([, value]) => typeof value === "function")
      .map(([name]) => name)
      .sort();
    const classified = [
      ...USER_SCOPED,
      ...USER_INSERTS,
      ...CREDENTIAL_LOOKUPS,
      ...IDENTITY,
      ...SERVICE_WIDE,
      ...INFRASTRUCTURE,
    ].sort();
    expect(exported).toEqual(classified);
  });
});

describe("authorization: called as another user, every user-scoped function finds nothing and changes nothing", () => {
  // One case per function, run in USER_SCOPED order over the same two users (later checks count
  // the leaves earlier ones appended).
  let a: Awaited<ReturnType<typeof populate>>;
  let b: Awaited<ReturnType<typeof populate>>;
  let A: string;
  beforeAll(async () => {
    a = await populate();
    b = await populate();
    A = a.user.id;
  });
  const checks: Record<string, () => Promise<void>> = {
    appendMemories: async () => {
      const treeB = await getTree(t.db, b.user.id);
      await appendMemories(t.db, A, [newMemory("a-only")]);
      expect(await getTree(t.db, b.user.id)).toEqual(treeB);
    },
    appendMemoriesForUsers: async () => {
      // Writes exactly the users it names: a batch for a third user leaves A and B untouched
      // (A's later checks count its leaves).
      const c = await makeUser(t.db);
      const [treeA, treeB] = [await getTree(t.db, A), await getTree(t.db, b.user.id)];
      const [result] = await appendMemoriesForUsers(t.db, [
        { userId: c.id, items: [newMemory("c-only")] },
      ]);
      expect(result?.userId).toBe(c.id);
      expect(await getTree(t.db, A)).toEqual(treeA);
      expect(await getTree(t.db, b.user.id)).toEqual(treeB);
    },
    appendMemoriesToKnownTrees: async () => {
      // B's stored tree given as A's: A's row does not have B's root, so A is stale and
      // neither tree changes (the version alone could coincide).
      const [treeA, treeB] = [await getTree(t.db, A), await getTree(t.db, b.user.id)];
      const [row] = await t.db.select().from(trees).where(eq(trees.userId, b.user.id));
      if (!row || !treeA || !treeB) {
        throw new Error("trees missing");
      }
      const [result] = await appendMemoriesToKnownTrees(t.db, [
        { userId: A, items: [newMemory("a-on-b")], tree: { ...row, version: treeA.version } },
      ]);
      expect(result).toEqual({ userId: A, stale: true });
      expect(await getTree(t.db, A)).toEqual(treeA);
      expect(await getTree(t.db, b.user.id)).toEqual(treeB);
    },
    checkTree: async () => {
      const check = await checkTree(t.db, A);
      expect(check.size).toBe(3);
      expect(check.drifted).toBe(false);
    },
    deleteMemory: async () => {
      expect(await deleteMemory(t.db, A, b.kept.id)).toBe(false);
      expect(await getMemory(t.db, b.user.id, b.kept.id)).not.toBeNull();
    },
    getAnchoredCheckpointBySize: async () => {
      expect(await getAnchoredCheckpointBySize(t.db, A, 2)).toEqual(a.checkpoint);
    },
    getApiKey: async () => {
      expect(await getApiKey(t.db, A, b.key.id)).toBeNull();
      expect(await getApiKey(t.db, b.user.id, b.key.id)).not.toBeNull();
    },
    getCommitBatch: async () => {
      expect(await getCommitBatch(t.db, A, b.batch.id)).toBeNull();
      expect(await getCommitBatch(t.db, b.user.id, b.batch.id)).not.toBeNull();
    },
    getGrant: async () => {
      expect(await getGrant(t.db, A, b.grant.id)).toBeNull();
      expect(await getGrant(t.db, b.user.id, b.grant.id)).not.toBeNull();
    },
    getLeafCount: async () => {
      // Checks run in USER_SCOPED order: A has 3 leaves by now (one deleted), B 2.
      expect(await getLeafCount(t.db, A)).toBe(3);
      expect(await getLeafCount(t.db, b.user.id)).toBe(2);
      const stranger = await makeUser(t.db);
      expect(await getLeafCount(t.db, stranger.id)).toBe(0);
    },
    getMemoriesByIds: async () => {
      const ids = [b.kept.id, b.gone.id];
      expect(await getMemoriesByIds(t.db, A, ids, { includeDeleted: true })).toEqual([]);
      expect(await getMemoriesByIds(t.db, b.user.id, ids, { includeDeleted: true })).toHaveLength(
        2,
      );
    },
    getMemory: async () => {
      expect(await getMemory(t.db, A, b.kept.id, { includeDeleted: true })).toBeNull();
      expect(await getMemory(t.db, A, b.gone.id, { includeDeleted: true })).toBeNull();
      expect(await getMemory(t.db, b.user.id, b.kept.id)).not.toBeNull();
    },
    readRecallPage: async () => {
      const seen: string[] = [];
      const page = await readRecallPage(
        t.db,
        A,
        { afterLeafIndex: -1, limit: 100, deletedSince: new Date(0) },
        (row) => seen.push(row.id),
      );
      expect(seen).toContain(a.kept.id);
      expect(seen).not.toContain(b.kept.id);
      expect(page.deletedLeafIndexes).toEqual([1]); // A's `gone` only, not B's
    },
    getMemoryAtLatestCheckpoint: async () => {
      expect(await getMemoryAtLatestCheckpoint(t.db, A, b.kept.id)).toBeNull();
      const own = await getMemoryAtLatestCheckpoint(t.db, A, a.kept.id);
      expect(own?.memory.id).toBe(a.kept.id);
      expect(own?.checkpoint?.id).toBe(a.checkpoint.id);
      const theirs = await getMemoryAtLatestCheckpoint(t.db, b.user.id, b.kept.id);
      expect(theirs?.checkpoint?.id).toBe(b.checkpoint.id);
    },
    getPendingLeaves: async () => {
      // Checks run in USER_SCOPED order: A has 3 leaves by now, B 2.
      expect((await getPendingLeaves(t.db, A)).count).toBe(3);
      expect((await getPendingLeaves(t.db, b.user.id)).count).toBe(2);
    },
    getTree: async () => {
      expect((await getTree(t.db, A))?.size).toBe(3);
      expect((await getTree(t.db, b.user.id))?.size).toBe(2);
    },
    latestAnchoredCheckpoint: async () => {
      expect((await latestAnchoredCheckpoint(t.db, A))?.id).toBe(a.checkpoint.id);
    },
    listApiKeys: async () => {
      expect((await listApiKeys(t.db, A)).items.map((k) => k.id)).toEqual([a.key.id]);
    },
    listDeletedSince: async () => {
      expect((await listDeletedSince(t.db, A, a.since)).map((d) => d.id)).toEqual([a.gone.id]);
    },
    listGrantAudit: async () => {
      expect((await listGrantAudit(t.db, A, b.grant.id)).items).toEqual([]);
      expect((await listGrantAudit(t.db, b.user.id, b.grant.id)).items).toHaveLength(1);
    },
    listGrants: async () => {
      expect((await listGrants(t.db, A)).items.map((g) => g.id)).toEqual([a.grant.id]);
    },
    listMemories: async () => {
      const ids = (await listMemories(t.db, A)).items.map((m) => m.id);
      expect(ids).not.toContain(b.kept.id);
      expect(ids).toContain(a.kept.id);
    },
    listMemoryVersions: async () => {
      expect(await listMemoryVersions(t.db, A, b.kept.id)).toEqual([]);
      expect(await listMemoryVersions(t.db, b.user.id, b.kept.id)).toHaveLength(1);
    },
    supersedeMemory: async () => {
      const next = { ...newMemory("never"), supersedes: b.kept.id };
      expect(await supersedeMemory(t.db, A, b.kept.id, next)).toEqual({ status: "not_found" });
      expect(await getMemory(t.db, b.user.id, b.kept.id)).toMatchObject({ supersededBy: null });
      expect(await getMemory(t.db, A, next.id)).toBeNull();
    },
    listRecallSegments: async () => {
      expect((await listRecallSegments(t.db, A)).map((segment) => segment.userId)).toEqual([A]);
      expect(await listRecallSegments(t.db, b.user.id)).toHaveLength(1);
    },
    streamRecallSegments: async () => {
      const seen: string[] = [];
      await streamRecallSegments(t.db, A, (segment) => seen.push(segment.userId));
      expect(seen).toEqual([A]);
    },
    insertMemoryVectors: async () => {
      // A cannot store a vector for B's memory.
      const sealed = {
        memoryId: b.kept.id,
        iv: new Uint8Array(12),
        ciphertext: new Uint8Array(33),
      };
      expect(await insertMemoryVectors(t.db, A, "other|model", [sealed])).toBe(0);
      expect(await listMemoryVectors(t.db, b.user.id, "other|model", null)).toEqual([]);
    },
    listMemoryVectors: async () => {
      const ids = (await listMemoryVectors(t.db, A, MODEL, null)).map((v) => v.memoryId);
      expect(ids).toEqual([a.kept.id]);
    },
    streamMemoryVectors: async () => {
      const seen: string[] = [];
      await streamMemoryVectors(t.db, A, MODEL, null, (v) => seen.push(v.memoryId));
      expect(seen).toEqual([a.kept.id]);
    },
    streamRecallVectorSegments: async () => {
      const seen: string[] = [];
      await streamRecallVectorSegments(t.db, A, MODEL, (segment) => seen.push(segment.userId));
      expect(seen).toEqual([A]);
    },
    sealRecallVectorSegment: async () => {
      // B has a vector of another model at leaf 0; sealing A's range of that model sees none.
      const other = "iso|other";
      const sealed = {
        memoryId: b.kept.id,
        iv: new Uint8Array(12),
        ciphertext: new Uint8Array(33),
      };
      expect(await insertMemoryVectors(t.db, b.user.id, other, [sealed])).toBe(1);
      let seen: string[] = ["not called"];
      const done = await sealRecallVectorSegment(
        t.db,
        A,
        other,
        { firstLeaf: 0, endLeaf: 2 },
        (v) => {
          seen = v.map((row) => row.memoryId);
          return { format: 1, entries: 0, iv: new Uint8Array(12), ciphertext: new Uint8Array(17) };
        },
      );
      expect(done).toBe(true);
      expect(seen).toEqual([]);
      const mine: string[] = [];
      await streamRecallVectorSegments(t.db, b.user.id, other, (row) => mine.push(row.userId));
      expect(mine).toEqual([]);
    },
    deleteVectorsOf: async () => {
      await deleteVectorsOf(t.db, A, b.kept.id);
      expect(await listMemoryVectors(t.db, b.user.id, MODEL, null)).toHaveLength(1);
    },
    listSupersededBefore: async () => {
      expect(await listSupersededBefore(t.db, A, 1000)).toEqual([]);
    },
    sealRecallSegment: async () => {
      // Sealing A's range [0, 2) sees only A's live memories, never B's.
      let seen: string[] = [];
      await sealRecallSegment(t.db, A, { firstLeaf: 0, endLeaf: 2 }, (ids) => {
        seen = [...ids];
        return { format: 1, entries: 0, iv: new Uint8Array(12), ciphertext: new Uint8Array(17) };
      });
      expect(seen).toEqual([a.kept.id]);
      await deleteRecallSegments(t.db, A);
    },
    resealRecallSegmentOf: async () => {
      const touched = await resealRecallSegmentOf(t.db, A, 0, () => {
        throw new Error("B's segment must not reach A's re-seal");
      });
      expect(touched).toBe(false);
    },
    dropRecallSegmentOf: async () => {
      await dropRecallSegmentOf(t.db, A, 0);
      expect(await listRecallSegments(t.db, b.user.id)).toHaveLength(1);
    },
    deleteRecallSegments: async () => {
      expect(await deleteRecallSegments(t.db, A)).toBe(0);
      expect(await listRecallSegments(t.db, b.user.id)).toHaveLength(1);
    },
    listMemoriesSince: async () => {
      const ids = (await listMemoriesSince(t.db, A, -1)).map((m) => m.id);
      expect(ids).not.toContain(b.kept.id);
      expect(ids).toContain(a.kept.id);
    },
    replaceStakeLots: async () => {
      await replaceStakeLots(t.db, A, [], new Date());
      expect(await listStakeLots(t.db, A)).toEqual([]);
      expect((await listStakeLots(t.db, b.user.id)).map((l) => l.amountLamports)).toEqual([1000n]);
    },
    listStakeLots: async () => {
      const lots = await listStakeLots(t.db, A);
      expect(lots.map((l) => l.userId)).toEqual([A]);
    },
    markAnchored: async () => {
      await markAnchored(t.db, A, 100);
      expect((await getPendingLeaves(t.db, b.user.id)).count).toBe(2);
      expect((await getPendingLeaves(t.db, A)).count).toBe(0);
    },
    markBatchConfirmed: async () => {
      expect(await markBatchConfirmed(t.db, A, b.batch.id, "x")).toBe(false);
      expect((await getCommitBatch(t.db, b.user.id, b.batch.id))?.status).toBe("submitted");
    },
    markBatchFailed: async () => {
      expect(await markBatchFailed(t.db, A, b.batch.id, "x")).toBe(false);
      expect((await getCommitBatch(t.db, b.user.id, b.batch.id))?.status).toBe("submitted");
    },
    nodeSource: async () => {
      const { size } = (await getTree(t.db, b.user.id)) ?? { size: 0 };
      await expect(nodeSource(t.db, A).getNodes([{ level: 0, index: 3 }])).rejects.toThrow();
      expect(await inclusionProof(0, size, nodeSource(t.db, b.user.id))).toHaveLength(1);
    },
    rebuildTree: async () => {
      const treeB = await getTree(t.db, b.user.id);
      expect((await rebuildTree(t.db, A)).size).toBe(3);
      expect(await getTree(t.db, b.user.id)).toEqual(treeB);
      expect((await checkTree(t.db, b.user.id)).drifted).toBe(false);
    },
    revokeApiKey: async () => {
      expect(await revokeApiKey(t.db, A, b.key.id)).toBe(false);
      expect((await getApiKey(t.db, b.user.id, b.key.id))?.revokedAt).toBeNull();
    },
    revokeExtensionSession: async () => {
      expect(await revokeExtensionSession(t.db, A, b.session.id)).toBe(false);
      const row = await t.sql`select revoked_at from extension_sessions where id = ${b.session.id}`;
      expect(row[0]?.revoked_at).toBeNull();
    },
    revokeGrant: async () => {
      expect(await revokeGrant(t.db, A, b.grant.id)).toBe(false);
      expect((await getGrant(t.db, b.user.id, b.grant.id))?.revokedAt).toBeNull();
    },
    revokeGrantsOfKey: async () => {
      expect(await revokeGrantsOfKey(t.db, A, b.key.id, new Date())).toBe(0);
      expect((await getGrant(t.db, b.user.id, b.grant.id))?.revokedAt).toBeNull();
    },
    rootAtSize: async () => {
      // A's tree has 3 leaves, B's 2: A's root at 2 is A's, never B's.
      const rootA = await rootAtSize(t.db, A, 2);
      const rootB = await rootAtSize(t.db, b.user.id, 2);
      expect(rootA).not.toEqual(rootB);
      expect(rootB).toEqual((await getTree(t.db, b.user.id))?.root);
    },
    touchApiKeyLastUsed: async () => {
      expect(await touchApiKeyLastUsed(t.db, A, b.key.id)).toBe(false);
      expect((await getApiKey(t.db, b.user.id, b.key.id))?.lastUsedAt).toBeNull();
    },
    listEventsAfter: async () => {
      // The triggers wrote both users' events (created, deleted, anchored); A reads only A's.
      const events = await listEventsAfter(t.db, A, 0, { limit: 1000 });
      expect(events.length).toBeGreaterThan(0);
      expect(events.every((e) => e.userId === A)).toBe(true);
      expect(events.map((e) => e.data.id)).not.toContain(b.kept.id);
    },
    listAnchoredCheckpoints: async () => {
      const page = await listAnchoredCheckpoints(t.db, A);
      expect(page.items.map((c) => c.id)).toEqual([a.checkpoint.id]);
    },
    listNamespaces: async () => {
      // A's live, current memories only, all without a namespace: B's are not counted.
      const page = await listNamespaces(t.db, A);
      const live = await listMemories(t.db, A, { limit: 200 });
      expect(page.items.map((n) => [n.namespace, n.count])).toEqual([[null, live.items.length]]);
    },
    latestEventId: async () => {
      const [own] = await t.sql`select max(id)::int as id from memory_events where user_id = ${A}`;
      expect(await latestEventId(t.db, A)).toBe(own?.id);
    },
  };

  it("has a check for every user-scoped function", () => {
    expect(Object.keys(checks).sort()).toEqual([...USER_SCOPED].sort());
  });
  for (const name of USER_SCOPED) {
    it(name, async () => {
      await (checks[name] as () => Promise<void>)();
    });
  }
});
