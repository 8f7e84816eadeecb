/**
 * Two memory domains on one database, as two processes (core-api and extension-api, or two
 * core-api instances) build them: each with its own postgres.js pool, append queue, recall cache
 * and services. Appending for one user from both at once must keep one append-only log: leaf
 * indices 0..n-1 handed out once, the persisted root equal to a full recomputation over the
 * leaves (RFC 9162 §2.1.1), and every memory's inclusion proof (§2.1.3) valid in either domain.
 * @module
 */
import { randomBytes } from "node:crypto";
import { systemClock } from "@verifiable-memory/clock";
import {
  createDatabase,
  type DatabaseHandle,
  treeSaveConflicts,
} from "@verifiable-memory/db-schema";
import { createTestDatabase, type TestDatabase } from "@verifiable-memory/db-schema/testing";
import { MasterKeyring } from "@verifiable-memory/envelope-crypto";
import { fromHex, rootFromLeafHashes, toHex, verifyInclusion } from "@verifiable-memory/merkle-log";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CreatedMemory, createMemoryDomain, type MemoryDomain } from "../src/index.js";
import {
  createTestOwner,
  fullRoot,
  offlineChain,
  persistedRoot,
  recordCheckpoint,
} from "../src/testing/index.js";

const masterKey = randomBytes(32);
let t: TestDatabase;
let second: DatabaseHandle;
let domains: [MemoryDomain, MemoryDomain];

beforeAll(async () => {
  t = await createTestDatabase();
  second = createDatabase({ url: t.url, max: 10 }); // the other process's own pool
  const build = (db: TestDatabase["db"]) =>
    createMemoryDomain({
      db,
      clock: systemClock,
      masterKeys: new MasterKeyring(masterKey),
      recallCacheMaxBytes: 1 << 26,
      chain: offlineChain,
    });
  domains = [build(t.db), build(second.db)];
});
afterAll(async () => {
  await second?.close();
  await t.close();
});

describe("two memory domains on one database", () => {
  it("appending for one user from both at once (2 × 200, interleaved) keeps one log", async () => {
    const { owner, wrappedDataKey } = await createTestOwner(t.db, masterKey);
    const auth = { userId: owner.userId, wrappedDataKey };
    const perDomain = 200;
    const writes = 2 * perDomain;
    // Each domain serves 8 clients writing one after another (25 writes each), all 16 at once:
    // the two queues' batches interleave and race on the user's tree.
    const clients = 8;
    const conflictsBefore = treeSaveConflicts.value;
    const created = (
      await Promise.all(
        Array.from({ length: 2 * clients }, async (_, client) => {
          const domain = domains[client % 2] as MemoryDomain;
          const mine: CreatedMemory[] = [];
          for (let i = 0; i < perDomain / clients; i++) {
            const content = `memory ${i} of client ${client}`;
            mine.push(
              await domain.memories.create(owner, domain.dataKeys.of(auth), {
                content: content,
                metadata: { client },
              }),
            );
          }
          return mine;
        }),
      )
    ).flat();
    expect(created).toHaveLength(writes);
    // Some batches lost the compare-and-swap to the other domain's and were retried.
    expect(treeSaveConflicts.value).toBeGreaterThan(conflictsBefore);

    const byIndex: CreatedMemory[] = [];
    for (const memory of created) {
      expect(
        byIndex[memory.leafIndex],
        `leaf ${memory.leafIndex} handed out twice`,
      ).toBeUndefined();
      byIndex[memory.leafIndex] = memory;
    }
    expect(Object.keys(byIndex).map(Number)).toEqual(Array.from({ length: writes }, (_, i) => i));
    const leaves = byIndex.map((m) => fromHex(m.leafHash));
    const root = fullRoot(leaves);
    expect(root).toBe(toHex(rootFromLeafHashes(leaves)));
    expect(await persistedRoot(t.db, owner.userId)).toEqual({ size: writes, root });
    const stored = await t.sql<{ leaf_hash: Buffer }[]>`
      select leaf_hash from memories where user_id = ${owner.userId} order by leaf_index`;
    expect(stored.map((r) => toHex(r.leaf_hash))).toEqual(byIndex.map((m) => m.leafHash));

    // Anchored at the full size, every memory's proof, served by either domain, verifies.
    const anchoredRoot = await recordCheckpoint(t.db, owner.userId, writes, 1);
    expect(toHex(anchoredRoot)).toBe(root);
    for (const memory of created) {
      const domain = domains[memory.leafIndex % 2] as MemoryDomain;
      const bundle = await domain.proofs.proofOf(owner, domain.dataKeys.of(auth), memory.id);
      expect(bundle).toMatchObject({
        leafIndex: memory.leafIndex,
        leafHash: memory.leafHash,
        anchored: true,
        checkpoint: { treeSize: writes, rootHash: root },
      });
      expect(() =>
        verifyInclusion(
          memory.leafIndex,
          writes,
          fromHex(memory.leafHash),
          (bundle.inclusionProof ?? []).map(fromHex),
          anchoredRoot,
        ),
      ).not.toThrow();
    }

    // And each domain recalls all of them, newest first.
    for (const domain of domains) {
      const found = await domain.memories.search(owner, domain.dataKeys.of(auth), {
        query: "memory",
        limit: writes,
        caseSensitive: true,
        rank: "recency",
      });
      expect(found.items.map((m) => m.leafIndex)).toEqual(
        Array.from({ length: writes }, (_, i) => writes - 1 - i),
      );
    }
  });
});
