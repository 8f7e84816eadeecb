/**
 * The anchor sweep end to end on real parts (docs/protocol.md §7 Memory anchored transition, §7.5
 * "Sealing policy"; docs/protocol.md §6, §7): real PostgreSQL, the local chain in process, memories
 * seeded with appendMemories. Covers the age and count seal policies with a controllable clock, and
 * 20 sweeps with writes in between after which every anchored memory's inclusion proof (cut at the
 * latest checkpoint) verifies against the root read from the chain, consecutive checkpoints are
 * consistent (RFC 9162 §2.1.4), and a bundle verifies with @verifiable-memory/verifier; and many
 * users anchored concurrently with at most `maxInFlight` commits in flight (counted at an RPC proxy
 * in front of the chain).
 */
import {
  countBatchesByStatus,
  getMemory,
  latestAnchoredCheckpoint,
  listMemoriesSince,
  nodeSource,
} from "@verifiable-memory/db-schema";
import { createTestDatabase, type TestDatabase } from "@verifiable-memory/db-schema/testing";
import {
  consistencyProof,
  inclusionProof,
  toHex,
  verifyConsistency,
  verifyInclusion,
} from "@verifiable-memory/merkle-log";
import { verifyBundle } from "@verifiable-memory/verifier";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AnchorChain } from "../src/chain.js";
import { createMetrics } from "../src/metrics.js";
import { runSweep, type SweepConfig } from "../src/sweep.js";
import { captureLogger, startTestChain, type TestChain } from "./_chain.js";
import {
  makeUser,
  proofBundle,
  type SeededMemory,
  seedMemories,
  type TestUser,
} from "./_memories.js";
import { type RpcProxy, startRpcProxy } from "./_rpc-proxy.js";

const INTERVAL_MS = 30_000;
const SEAL_MAX_AGE_MS = 300_000;

let t: TestDatabase;
let testChain: TestChain;
let chain: AnchorChain & ReturnType<TestChain["client"]>;

beforeAll(async () => {
  [t, testChain] = await Promise.all([createTestDatabase({ max: 10 }), startTestChain()]);
  chain = testChain.client(await testChain.authority());
});
afterAll(async () => {
  await Promise.all([t?.close(), testChain?.close()]);
});

function sweep(config: Partial<SweepConfig>, now?: () => number) {
  return runSweep({
    db: t.db,
    chain,
    logger: captureLogger().logger,
    config: { sealMaxPending: 256, sealMaxAgeMs: SEAL_MAX_AGE_MS, maxInFlight: 8, ...config },
    ...(now ? { now } : {}),
  });
}

const outcomeOf = (report: Awaited<ReturnType<typeof sweep>>, user: TestUser) =>
  report.outcomes.find((o) => o.userId === user.id);

describe("seal policy", () => {
  it("anchors a lone memory within SEAL_MAX_AGE_MS plus one interval (age policy, clock)", async () => {
    const createdAt = Date.now();
    const user = await makeUser(t.db);
    const [memory] = await seedMemories(t.db, user, 1, new Date(createdAt));
    let now = createdAt;
    let anchoredAt: number | null = null;
    while (anchoredAt === null && now <= createdAt + SEAL_MAX_AGE_MS + INTERVAL_MS) {
      const report = await sweep({}, () => now);
      const outcome = outcomeOf(report, user);
      if (now - createdAt < SEAL_MAX_AGE_MS) {
        expect(outcome).toBeUndefined(); // too young: not sealed
      } else if (outcome?.outcome === "confirmed") {
        anchoredAt = now;
      }
      now += INTERVAL_MS;
    }
    expect(anchoredAt).not.toBeNull();
    expect((anchoredAt ?? 0) - createdAt).toBeLessThanOrEqual(SEAL_MAX_AGE_MS + INTERVAL_MS);
    expect((await getMemory(t.db, user.id, memory?.id ?? ""))?.anchored).toBe(true);

    const checkpoint = await latestAnchoredCheckpoint(t.db, user.id);
    const onChain = await chain.readCommitment(user.ownerPubkey);
    expect(checkpoint).toMatchObject({ treeSize: 1, nonce: 1 });
    expect(onChain).toMatchObject({ memoryCount: 1, nonce: 1, authority: chain.authorityAddress });
    expect(toHex(onChain?.root ?? new Uint8Array())).toBe(
      toHex(checkpoint?.root ?? new Uint8Array()),
    );
  });

  it("seals a user as soon as SEAL_MAX_PENDING leaves are pending (count policy)", async () => {
    const user = await makeUser(t.db);
    await seedMemories(t.db, user, 4);
    expect(outcomeOf(await sweep({ sealMaxPending: 5 }), user)).toBeUndefined();
    await seedMemories(t.db, user, 1);
    const outcome = outcomeOf(await sweep({ sealMaxPending: 5 }), user);
    expect(outcome).toMatchObject({ outcome: "confirmed", treeSize: 5, nonce: 1 });
    const memories = await listMemoriesSince(t.db, user.id, -1);
    expect(memories.map((m) => m.anchored)).toEqual([true, true, true, true, true]);
  });
});

describe("20 sweeps with writes in between", () => {
  it("every anchored memory proves against the on-chain root; checkpoints are consistent", async () => {
    const users = await Promise.all([makeUser(t.db), makeUser(t.db), makeUser(t.db)]);
    const seeded = new Map<string, SeededMemory[]>(users.map((u) => [u.id, []]));
    const previous = new Map<string, { treeSize: number; root: Uint8Array }>();
    let consistencyChecks = 0;
    let seed = 7;
    const random = (n: number) => {
      seed = (seed * 48_271) % 2_147_483_647; // Park–Miller, exact in doubles
      return seed % n;
    };

    for (let round = 0; round < 20; round++) {
      for (const user of users) {
        const n = random(4); // 0..3 new memories per user per round
        if (n > 0) {
          seeded.get(user.id)?.push(...(await seedMemories(t.db, user, n)));
        }
      }
      const report = await sweep({ sealMaxAgeMs: 0 });
      expect(report.failed + report.timedOut).toBe(0);
      for (const user of users) {
        const checkpoint = await latestAnchoredCheckpoint(t.db, user.id);
        const before = previous.get(user.id);
        if (checkpoint && before && checkpoint.treeSize > before.treeSize) {
          const proof = await consistencyProof(
            before.treeSize,
            checkpoint.treeSize,
            nodeSource(t.db, user.id),
          );
          verifyConsistency(
            before.treeSize,
            checkpoint.treeSize,
            proof,
            before.root,
            checkpoint.root,
          );
          consistencyChecks += 1;
        }
        if (checkpoint) {
          previous.set(user.id, { treeSize: checkpoint.treeSize, root: checkpoint.root });
        }
      }
    }
    expect(consistencyChecks).toBeGreaterThan(20);

    for (const user of users) {
      const memories = seeded.get(user.id) ?? [];
      const checkpoint = await latestAnchoredCheckpoint(t.db, user.id);
      const onChain = await chain.readCommitment(user.ownerPubkey);
      expect(checkpoint?.treeSize).toBe(memories.length);
      expect(onChain?.memoryCount).toBe(memories.length);
      expect(onChain?.nonce).toBe(checkpoint?.nonce);
      const root = onChain?.root ?? new Uint8Array();
      const source = nodeSource(t.db, user.id);
      for (const memory of memories) {
        expect((await getMemory(t.db, user.id, memory.id))?.anchored).toBe(true);
        const proof = await inclusionProof(memory.leafIndex, onChain?.memoryCount ?? 0, source);
        verifyInclusion(
          memory.leafIndex,
          onChain?.memoryCount ?? 0,
          Buffer.from(memory.leafHash, "hex"),
          proof,
          root,
        );
      }
      const last = memories.at(-1);
      if (last) {
        const bundle = await proofBundle(
          t.db,
          last,
          { cluster: "localnet", programId: testChain.programId },
          true,
        );
        const verdict = await verifyBundle(bundle, {
          rpcUrl: testChain.url,
          authority: chain.authorityAddress,
        });
        expect(verdict).toMatchObject({ verified: true, reason: null, contentChecked: true });
      }
    }
    expect((await countBatchesByStatus(t.db)).failed).toBe(0);
  });

  it("an unanchored memory's bundle says not_anchored", async () => {
    const user = await makeUser(t.db);
    const [memory] = await seedMemories(t.db, user, 1);
    if (!memory) {
      throw new Error("no memory seeded");
    }
    const bundle = await proofBundle(t.db, memory, {
      cluster: "localnet",
      programId: testChain.programId,
    });
    expect(bundle).toMatchObject({ anchored: false, checkpoint: null, anchor: null });
    expect((await verifyBundle(bundle, { rpcUrl: testChain.url })).reason).toBe("not_anchored");
  });
});

describe("bounded concurrency", () => {
  let proxy: RpcProxy | undefined;
  afterAll(async () => {
    await proxy?.close();
  });

  it("commits many users concurrently with at most maxInFlight in flight", async () => {
    // A slow RPC node: each sendTransaction is held 400 ms before it reaches the chain, so the
    // commits of concurrently anchored users overlap at the proxy, which counts them.
    proxy = await startRpcProxy(testChain.url);
    const slow = testChain.client(await testChain.authority(), proxy.url);
    proxy.rule = (call) =>
      call.method === "sendTransaction" ? { kind: "pass", delayMs: 400 } : { kind: "pass" };
    for (const maxInFlight of [2, 5]) {
      const users = await Promise.all(Array.from({ length: 12 }, () => makeUser(t.db)));
      for (const user of users) {
        await seedMemories(t.db, user, 2);
      }
      proxy.maxInFlight.clear();
      const report = await runSweep({
        db: t.db,
        chain: slow,
        logger: captureLogger().logger,
        config: { sealMaxPending: 1, sealMaxAgeMs: SEAL_MAX_AGE_MS, maxInFlight },
      });
      for (const user of users) {
        expect(outcomeOf(report, user)).toMatchObject({ outcome: "confirmed", treeSize: 2 });
        const memories = await listMemoriesSince(t.db, user.id, -1);
        expect(memories.every((m) => m.anchored)).toBe(true);
      }
      // More users than the bound, all committed, never more than the bound at once, and the
      // bound reached (the sweep is concurrent, not sequential).
      expect(proxy.calls.filter((c) => c.method === "sendTransaction").length).toBeGreaterThan(0);
      expect(proxy.maxInFlight.get("sendTransaction"), `maxInFlight ${maxInFlight}`).toBe(
        maxInFlight,
      );
      expect(proxy.inFlight.get("sendTransaction")).toBe(0);
    }
  });
});

describe("metrics from a sweep", () => {
  it("records the sweep duration, users sealed, outcomes and the authority balance", async () => {
    const metrics = createMetrics({ db: t.db, intervalMs: INTERVAL_MS });
    const user = await makeUser(t.db);
    await seedMemories(t.db, user, 2);
    const balanceBefore = await chain.authorityBalance(); // the sweep reads it before committing
    const report = await runSweep({
      db: t.db,
      chain,
      logger: captureLogger().logger,
      metrics,
      config: { sealMaxPending: 1, sealMaxAgeMs: SEAL_MAX_AGE_MS, maxInFlight: 8 },
    });
    expect(outcomeOf(report, user)?.outcome).toBe("confirmed");
    const text = await metrics.registry.metrics();
    const value = (name: string) =>
      Number(
        text
          .split("\n")
          .find((l) => l.startsWith(`${name} `))
          ?.split(" ")[1],
      );
    expect(value("anchor_authority_balance_lamports")).toBe(balanceBefore);
    expect(await chain.authorityBalance()).toBeLessThan(balanceBefore); // fees were paid
    expect(value("anchor_users_sealed")).toBe(report.sealed);
    expect(value("anchor_sweep_duration_seconds_count")).toBe(1);
    expect(value('anchor_commits_total{outcome="confirmed"}')).toBe(report.committed);
  });
});
