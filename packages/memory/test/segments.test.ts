/**
 * Sealed recall segments (docs/data-model.md "Recall segments") against real PostgreSQL and real
 * AES-GCM: sealing full ranges (idempotent, two instances racing) and the tail segment after them
 * (re-sealed as it grows, replaced by the full range), cold loads from segments equal to cold loads
 * from the rows, deletion that re-seals in its own transaction (no trace of the
 * content in any segment; the root and the other proofs unchanged), a deletion racing a seal, and
 * a rebuild (drop every segment, seal again, same answers).
 */
import { randomBytes } from "node:crypto";
import { systemClock } from "@verifiable-memory/clock";
import {
  deleteMemory,
  deleteRecallSegments,
  listRecallSegments,
  type RecallSegmentRow,
} from "@verifiable-memory/db-schema";
import { createTestDatabase, type TestDatabase } from "@verifiable-memory/db-schema/testing";
import { DecryptionError, decryptSegment } from "@verifiable-memory/envelope-crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  AppendQueue,
  MemoryService,
  ProofService,
  RecallCache,
  type RecallQuery,
} from "../src/index.js";
import { entryId } from "../src/segment-format.js";
import { openSegment } from "../src/segments.js";
import {
  createTestOwner,
  offlineChain,
  persistedRoot,
  recordCheckpoint,
  type TestOwner,
} from "../src/testing/index.js";

let t: TestDatabase;
const masterKey = randomBytes(32);
const clock = systemClock;
const LEAVES = 64;

beforeAll(async () => {
  t = await createTestDatabase();
});
afterAll(async () => {
  await t.close();
});

function cache(segmentLeaves = LEAVES) {
  return new RecallCache({ db: t.db, clock, maxBytes: 1 << 30, segmentLeaves });
}

/** A user with `count` memories `memory <i> …`, written through the memory service. */
async function userWith(
  count: number,
): Promise<{ user: TestOwner; service: MemoryService; ids: string[] }> {
  const user = await createTestOwner(t.db, masterKey);
  const service = new MemoryService({
    db: t.db,
    clock,
    appendQueue: new AppendQueue(t.db),
    recall: cache(),
  });
  return { user, service, ids: await write(service, user, 0, count) };
}

/** Writes `count` memories `memory <i> …` from i = `from` on; returns their ids. */
async function write(
  service: MemoryService,
  user: TestOwner,
  from: number,
  count: number,
): Promise<string[]> {
  const ids: string[] = [];
  for (let i = from; i < from + count; i += 50) {
    const created = await service.createAll(
      user.owner,
      user.dataKey,
      Array.from({ length: Math.min(50, from + count - i) }, (_, k) => ({
        content: `memory ${i + k} ${k % 3 === 0 ? "ALPHA" : "beta"} ünïcode`,
        metadata: { i: i + k, even: (i + k) % 2 === 0 },
        ...(k % 5 === 0 ? { namespace: `ns/${k % 2}` } : {}),
      })),
    );
    ids.push(...created.map((m) => m.id));
  }
  return ids;
}

/** The user's segments as [firstLeaf, endLeaf, entries]. */
async function ranges(user: TestOwner): Promise<number[][]> {
  const segments = await listRecallSegments(t.db, user.owner.userId);
  return segments.map((s) => [s.firstLeaf, s.endLeaf, s.entries]);
}

/** Every entry of every segment of the user, decrypted. */
async function segmentContents(user: TestOwner): Promise<{ ids: string[]; plaintexts: Buffer[] }> {
  const segments = await listRecallSegments(t.db, user.owner.userId);
  const ids: string[] = [];
  const plaintexts = segments.map((segment: RecallSegmentRow) => {
    const decoded = openSegment(user.dataKey, segment);
    for (let k = 0; k < decoded.count; k++) {
      ids.push(entryId(decoded.strings, k));
    }
    // The whole plaintext, every byte of it searched.
    return Buffer.from(
      decryptSegment(
        user.dataKey,
        { iv: segment.iv, ciphertext: segment.ciphertext },
        { userId: segment.userId, firstLeaf: segment.firstLeaf, endLeaf: segment.endLeaf },
      ),
    );
  });
  return { ids, plaintexts };
}

const QUERIES: RecallQuery[] = [
  { query: "alpha", caseSensitive: false, filter: {}, rank: "recency", limit: 200 },
  { query: "ünïcode", caseSensitive: true, filter: {}, rank: "recency", limit: 7 },
  { caseSensitive: false, filter: { metadata: { even: true } }, rank: "recency", limit: 200 },
  { caseSensitive: false, filter: { namespacePrefix: "ns/" }, rank: "recency", limit: 200 },
  { query: "memory beta", caseSensitive: false, filter: {}, rank: "relevance", limit: 30 },
  {
    query: "memory",
    caseSensitive: false,
    filter: { includeSuperseded: true },
    rank: "recency",
    limit: 200,
  },
];

/** The answers of QUERIES on a fresh (cold) cache with the given segment size. */
async function coldAnswers(user: TestOwner, segmentLeaves: number) {
  const fresh = cache(segmentLeaves);
  const answers = [];
  for (const query of QUERIES) {
    const result = await fresh.search(user.owner.userId, user.dataKey, query);
    answers.push({
      ids: result.items.map((e) => e.id),
      contents: result.items.map((e) => e.content),
      scores: result.items.map((e) => e.score),
      superseded: result.items.map((e) => e.supersededBy),
      scanned: result.scanned,
      more: result.more,
    });
  }
  return answers;
}

describe("recall segments", () => {
  it("seals every full range once, then the tail, and a cold load from them answers as one from the rows", async () => {
    const { user, service, ids } = await userWith(LEAVES * 3 + 10);
    // An update of an early memory: its supersededBy must survive the segments.
    const update = await service.update(user.owner, user.dataKey, ids[3] as string, {
      content: "memory 3 again",
      metadata: {},
    });
    const sealer = cache();
    expect(await sealer.seal(user.owner.userId, user.dataKey)).toBe(4);
    expect(await sealer.seal(user.owner.userId, user.dataKey)).toBe(0);
    expect(await ranges(user)).toEqual([
      [0, 64, 64],
      [64, 128, 64],
      [128, 192, 64],
      [192, 203, 11],
    ]);
    const inside = await segmentContents(user);
    expect(inside.ids).toEqual([...ids, update.id]);
    expect(await coldAnswers(user, LEAVES)).toEqual(await coldAnswers(user, 0));
  });

  it("a tail segment: sealed from a sixteenth of a range on, read cold, re-sealed as it grows, replaced by the full range", async () => {
    const { user, service, ids } = await userWith(LEAVES + 3);
    // 3 leaves after the full range: fewer than a sixteenth of 64, no tail segment.
    expect(await cache().seal(user.owner.userId, user.dataKey)).toBe(1);
    ids.push(...(await write(service, user, LEAVES + 3, 17)));
    expect(await cache().seal(user.owner.userId, user.dataKey)).toBe(1);
    expect(await ranges(user)).toEqual([
      [0, 64, 64],
      [64, 84, 20],
    ]);
    // A cold load reads the tail segment: it knows the tail is sealed and seals nothing.
    const cold = cache();
    await cold.search(user.owner.userId, user.dataKey, QUERIES[0] as RecallQuery);
    expect(await cold.seal(user.owner.userId, user.dataKey)).toBe(0);
    expect(await coldAnswers(user, LEAVES)).toEqual(await coldAnswers(user, 0));

    // The tail grows by fewer than 4 leaves: kept; by 4 or more: sealed again over the longer range.
    ids.push(...(await write(service, user, 84, 2)));
    expect(await cold.seal(user.owner.userId, user.dataKey)).toBe(0);
    ids.push(...(await write(service, user, 86, 3)));
    expect(await cold.seal(user.owner.userId, user.dataKey)).toBe(1);
    expect(await ranges(user)).toEqual([
      [0, 64, 64],
      [64, 89, 25],
    ]);
    // A deletion inside the tail segment re-seals it without the memory.
    await service.delete(user.owner, user.dataKey, ids[70] as string);
    expect(await ranges(user)).toEqual([
      [0, 64, 64],
      [64, 89, 24],
    ]);
    expect((await segmentContents(user)).ids).not.toContain(ids[70]);
    expect(await coldAnswers(user, LEAVES)).toEqual(await coldAnswers(user, 0));

    // Once the range is whole, the full segment replaces the tail one at the same first leaf.
    ids.push(...(await write(service, user, 89, 41)));
    expect(await cache().seal(user.owner.userId, user.dataKey)).toBe(1);
    expect(await ranges(user)).toEqual([
      [0, 64, 64],
      [64, 128, 63],
    ]);
    expect(await coldAnswers(user, LEAVES)).toEqual(await coldAnswers(user, 0));
  });

  it("two instances sealing one user at once insert each range exactly once", async () => {
    const { user } = await userWith(LEAVES * 2);
    const [a, b] = await Promise.all([
      cache().seal(user.owner.userId, user.dataKey),
      cache().seal(user.owner.userId, user.dataKey),
    ]);
    expect(a + b).toBe(2);
    expect(await listRecallSegments(t.db, user.owner.userId)).toHaveLength(2);
  });

  it("a deletion re-seals its segment in the same transaction: no trace of the content, the root and other proofs unchanged", async () => {
    const { user, service, ids } = await userWith(LEAVES * 2);
    await cache().seal(user.owner.userId, user.dataKey);
    await recordCheckpoint(t.db, user.owner.userId, LEAVES * 2, 1);
    const proofs = new ProofService(t.db, offlineChain);
    const other = ids[11] as string;
    const proofBefore = await proofs.proofOf(user.owner, user.dataKey, other);
    const rootBefore = await persistedRoot(t.db, user.owner.userId);
    const victim = ids[10] as string;
    const secret = "memory 10 beta ünïcode";
    expect((await segmentContents(user)).plaintexts.some((p) => p.includes(secret))).toBe(true);

    await service.delete(user.owner, user.dataKey, victim);

    const after = await segmentContents(user);
    expect(after.ids).not.toContain(victim);
    expect(after.ids).toHaveLength(LEAVES * 2 - 1);
    for (const plaintext of after.plaintexts) {
      expect(plaintext.includes(secret)).toBe(false);
      expect(plaintext.includes(Buffer.from(victim))).toBe(false);
    }
    expect(await persistedRoot(t.db, user.owner.userId)).toEqual(rootBefore);
    expect(await proofs.proofOf(user.owner, user.dataKey, other)).toEqual(proofBefore);
    expect(await coldAnswers(user, LEAVES)).toEqual(await coldAnswers(user, 0));
  });

  it("never seals a memory deleted while the seal runs", async () => {
    for (let round = 0; round < 5; round++) {
      const { user, ids } = await userWith(LEAVES);
      const victim = ids[round * 7] as string;
      const sealer = cache();
      await sealer.search(user.owner.userId, user.dataKey, QUERIES[0] as RecallQuery);
      await Promise.all([
        sealer.seal(user.owner.userId, user.dataKey),
        // A deletion without a re-sealer (as another process might): it drops a covering segment.
        deleteMemory(t.db, user.owner.userId, victim),
      ]);
      expect((await segmentContents(user)).ids).not.toContain(victim);
    }
  });

  it("rebuilds: drop every segment, seal again, the same answers", async () => {
    const { user } = await userWith(LEAVES * 2 + 5);
    await cache().seal(user.owner.userId, user.dataKey);
    const before = await coldAnswers(user, LEAVES);
    expect(await deleteRecallSegments(t.db, user.owner.userId)).toBe(3);
    expect(await listRecallSegments(t.db, user.owner.userId)).toEqual([]);
    expect(await coldAnswers(user, 0)).toEqual(before);
    await cache().seal(user.owner.userId, user.dataKey);
    expect(await listRecallSegments(t.db, user.owner.userId)).toHaveLength(3);
    expect(await coldAnswers(user, LEAVES)).toEqual(before);
  });

  it("a segment opens only for its own user and leaf range", async () => {
    const { user } = await userWith(LEAVES);
    await cache().seal(user.owner.userId, user.dataKey);
    const [segment] = await listRecallSegments(t.db, user.owner.userId);
    const sealed = { iv: segment?.iv as Uint8Array, ciphertext: segment?.ciphertext as Uint8Array };
    const open = (context: { userId: string; firstLeaf: number; endLeaf: number }) => () =>
      decryptSegment(user.dataKey, sealed, context);
    expect(open({ userId: user.owner.userId, firstLeaf: 0, endLeaf: LEAVES })).not.toThrow();
    for (const context of [
      { userId: "someone-else", firstLeaf: 0, endLeaf: LEAVES },
      { userId: user.owner.userId, firstLeaf: LEAVES, endLeaf: 2 * LEAVES },
    ]) {
      expect(open(context)).toThrow(DecryptionError);
    }
  });

  it("seals in the background after a search finds a full range unsealed", async () => {
    const { user } = await userWith(LEAVES + 1);
    const background = cache();
    await background.search(user.owner.userId, user.dataKey, QUERIES[0] as RecallQuery);
    for (let i = 0; i < 50 && background.stats().segmentsSealed === 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(background.stats()).toMatchObject({ segmentsSealed: 1, sealFailures: 0 });
    expect(await listRecallSegments(t.db, user.owner.userId)).toHaveLength(1);
  });
});
