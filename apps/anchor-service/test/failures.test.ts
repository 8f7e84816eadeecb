/**
 * The anchor sweep under failure (docs/protocol.md §1.8 "Failed reads", §7 operational
 * requirements; docs/protocol.md §7), on real PostgreSQL and the real local chain; the RPC
 * misbehaves through a proxy:
 * - an unfunded authority: writes still succeed, anchoring stops, batches fail, the metrics show a
 *   zero balance and a growing unanchored age;
 * - RPC failures injected mid-sweep: nothing is marked anchored without a confirmed batch, and the
 *   next healthy sweep catches up;
 * - a confirmation timeout (an RPC node that never reports the signature's status, or drops the
 *   transaction): the batch stays `submitted` (stuck), and the next healthy sweep's larger root
 *   subsumes it;
 * - a shortened log: refused before committing when the chain read shows it (`shortened_log`), and
 *   refused by the chain itself when a stale read hides it (`CountDecreasedError` → batch failed,
 *   `count_decreased`), reported in metrics and logs;
 * - an account initialized first by another authority (`foreign_authority`);
 * - a missing or drifted persisted tree: rebuilt from the leaves (`tree_drift`), then anchored
 *   with the root of the leaves.
 */
import { PublicKey } from "@solana/web3.js";
import {
  countBatchesByStatus,
  getLeafCount,
  latestAnchoredCheckpoint,
  listMemoriesSince,
  nodeSource,
  rebuildTree,
} from "@verifiable-memory/db-schema";
import { createTestDatabase, type TestDatabase } from "@verifiable-memory/db-schema/testing";
import {
  consistencyProof,
  rootFromLeafHashes,
  toHex,
  verifyConsistency,
} from "@verifiable-memory/merkle-log";
import { commitmentAddress } from "@verifiable-memory/verifier";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { AnchorChain } from "../src/chain.js";
import { type AnchorMetrics, createMetrics } from "../src/metrics.js";
import { runSweep } from "../src/sweep.js";
import { captureLogger, startTestChain, type TestChain } from "./_chain.js";
import { makeUser, seedMemories, type TestUser } from "./_memories.js";
import { type RpcProxy, startRpcProxy } from "./_rpc-proxy.js";

const INTERVAL_MS = 30_000;

let testChain: TestChain;
let t: TestDatabase;
beforeAll(async () => {
  testChain = await startTestChain();
});
afterAll(async () => {
  await testChain?.close();
});
afterEach(async () => {
  await t?.close();
});

function sweep(chain: AnchorChain, extra: { metrics?: AnchorMetrics; now?: () => number } = {}) {
  const { logger, lines } = captureLogger();
  const run = runSweep({
    db: t.db,
    chain,
    logger,
    config: { sealMaxPending: 256, sealMaxAgeMs: 0, maxInFlight: 4 },
    ...extra,
  });
  return run.then((report) => ({ report, lines }));
}

async function scrape(metrics: AnchorMetrics): Promise<(name: string) => number> {
  const text = await metrics.registry.metrics();
  return (name) => {
    const line = text.split("\n").find((l) => l.startsWith(`${name} `));
    return line === undefined ? 0 : Number(line.slice(name.length + 1));
  };
}

/**
 * The invariant: every anchored memory is covered by a checkpoint, every checkpoint has a
 * confirmed batch of its size and root, and the chain holds at least that much.
 */
async function expectNothingCorrupted(chain: AnchorChain, users: readonly TestUser[]) {
  for (const user of users) {
    const memories = await listMemoriesSince(t.db, user.id, -1);
    const checkpoint = await latestAnchoredCheckpoint(t.db, user.id);
    const anchored = memories.filter((m) => m.anchored).length;
    expect(anchored).toBe(checkpoint?.treeSize ?? 0);
    if (checkpoint) {
      const confirmed = await t.sql<{ n: string }[]>`
        select count(*) as n from commit_batches
        where user_id = ${user.id} and status = 'confirmed'
          and tree_size = ${checkpoint.treeSize} and root = ${Buffer.from(checkpoint.root)}`;
      expect(Number(confirmed[0]?.n)).toBeGreaterThan(0);
      const onChain = await chain.readCommitment(user.ownerPubkey);
      expect(onChain?.memoryCount).toBeGreaterThanOrEqual(checkpoint.treeSize);
    }
  }
}

describe("unfunded authority", () => {
  it("writes succeed, anchoring stops, batches fail, balance 0 and the unanchored age grows", async () => {
    t = await createTestDatabase({ max: 6 });
    const broke = testChain.client(await testChain.authority(0));
    let now = Date.now();
    const metrics = createMetrics({ db: t.db, intervalMs: INTERVAL_MS, now: () => now });
    const user = await makeUser(t.db);
    await seedMemories(t.db, user, 3, new Date(now));

    const first = await sweep(broke, { metrics, now: () => now });
    expect(first.report.outcomes).toEqual([
      expect.objectContaining({ userId: user.id, outcome: "failed", reason: "insufficient_funds" }),
    ]);
    const m1 = await scrape(metrics);
    expect(m1("anchor_authority_balance_lamports")).toBe(0);
    expect(m1('anchor_commit_batches{status="failed"}')).toBe(1);
    expect(m1('anchor_commit_batches{status="confirmed"}')).toBe(0);

    now += INTERVAL_MS;
    await seedMemories(t.db, user, 2, new Date(now)); // writes still succeed
    await sweep(broke, { metrics, now: () => now });
    const m2 = await scrape(metrics);
    expect(m2('anchor_commit_batches{status="failed"}')).toBe(2);
    expect(m2("anchor_oldest_unanchored_age_seconds")).toBeGreaterThanOrEqual(
      m1("anchor_oldest_unanchored_age_seconds") + INTERVAL_MS / 1000,
    );
    const memories = await listMemoriesSince(t.db, user.id, -1);
    expect(memories).toHaveLength(5);
    expect(memories.every((m) => !m.anchored)).toBe(true);
    expect(await broke.readCommitment(user.ownerPubkey)).toBeNull();
    const [batch] = await t.sql<{ error: string }[]>`
      select error from commit_batches where user_id = ${user.id} limit 1`;
    expect(batch?.error).toMatch(/^insufficient_funds: /);
  });
});

describe("RPC failures mid-sweep", () => {
  let proxy: RpcProxy;
  afterEach(async () => {
    await proxy?.close();
  });

  it("never marks a memory anchored without a confirmed batch; the next sweep catches up", async () => {
    t = await createTestDatabase({ max: 10 });
    proxy = await startRpcProxy(testChain.url);
    const authority = await testChain.authority();
    const chain = testChain.client(authority, proxy.url);
    const metrics = createMetrics({ db: t.db, intervalMs: INTERVAL_MS });
    const users = await Promise.all(Array.from({ length: 8 }, () => makeUser(t.db)));
    // Half of them are anchored once first, so the faulty sweep both updates and initializes.
    for (const user of users.slice(0, 4)) {
      await seedMemories(t.db, user, 3);
    }
    expect((await sweep(chain)).report.committed).toBe(4);
    for (const user of users) {
      await seedMemories(t.db, user, 3);
    }
    const expectedSize = (i: number) => (i < 4 ? 6 : 3);

    // Every third call fails with HTTP 503, and every sendTransaction reaches the chain but its
    // answer is lost on the way back on alternate sends (outcome unknown to the client).
    let n = 0;
    let sends = 0;
    proxy.rule = (call) => {
      n += 1;
      if (call.method === "sendTransaction") {
        sends += 1;
        return sends % 2 === 0 ? { kind: "forward-then-fail" } : { kind: "pass" };
      }
      return n % 3 === 0 ? { kind: "fail" } : { kind: "pass" };
    };
    const faulty = await sweep(chain, { metrics });
    expect(faulty.report.sealed).toBe(8);
    expect(faulty.report.committed).toBeLessThan(8);
    expect(faulty.report.skipped).toBeGreaterThan(0); // reads failed: unknown, skipped
    expect(faulty.report.failed + faulty.report.timedOut).toBeGreaterThan(0); // sends failed
    await expectNothingCorrupted(testChain.client(authority), users);
    expect((await scrape(metrics))('anchor_chain_read_failures_total{op="commitment"}')).toBe(
      faulty.report.outcomes.filter(
        (o) => o.outcome === "skipped" && o.reason === "chain_unavailable",
      ).length,
    );

    proxy.rule = () => ({ kind: "pass" });
    const healthy = await sweep(chain, { metrics });
    expect(healthy.report.committed).toBe(healthy.report.sealed);
    for (const [i, user] of users.entries()) {
      const memories = await listMemoriesSince(t.db, user.id, -1);
      expect(memories.every((m) => m.anchored)).toBe(true);
      const checkpoint = await latestAnchoredCheckpoint(t.db, user.id);
      const onChain = await chain.readCommitment(user.ownerPubkey);
      expect(checkpoint?.treeSize).toBe(expectedSize(i));
      expect(onChain).toMatchObject({ memoryCount: expectedSize(i), nonce: checkpoint?.nonce });
      expect(toHex(onChain?.root ?? new Uint8Array())).toBe(
        toHex(checkpoint?.root ?? new Uint8Array()),
      );
    }
    await expectNothingCorrupted(chain, users);
  });
});

describe("confirmation timeout", () => {
  let proxy: RpcProxy;
  afterEach(async () => {
    await proxy?.close();
  });

  interface BatchRow {
    status: string;
    tree_size: string;
    root: Buffer;
    expected_nonce: string;
    signature: string | null;
  }
  const batchesOf = (user: TestUser) => t.sql<BatchRow[]>`
    select status, tree_size, root, expected_nonce, signature from commit_batches
    where user_id = ${user.id} order by created_at, tree_size`;

  it("leaves the batch submitted; the next healthy sweep's larger root subsumes it", async () => {
    t = await createTestDatabase({ max: 10 });
    proxy = await startRpcProxy(testChain.url);
    const authority = await testChain.authority();
    // Through the proxy, with a short confirmation wait; `truth` reads the chain directly.
    const chain = testChain.client(authority, proxy.url, 1500);
    const truth = testChain.client(authority);
    const [updated, initialized, dropped] = await Promise.all([
      makeUser(t.db),
      makeUser(t.db),
      makeUser(t.db),
    ]);
    const users = [updated, initialized, dropped];
    // `updated` is anchored once first (3 leaves), so its timed-out commit is an update.
    await seedMemories(t.db, updated, 3);
    expect((await sweep(chain)).report.committed).toBe(1);
    await seedMemories(t.db, updated, 2); // 5
    await seedMemories(t.db, initialized, 4); // 4
    await seedMemories(t.db, dropped, 2); // 2

    // The RPC node never reports a signature's status (every confirmation times out), and it
    // silently drops `dropped`'s transaction (answers sendTransaction without forwarding it).
    const droppedPda = Buffer.from(
      new PublicKey(commitmentAddress(dropped.ownerPubkey, testChain.programId)).toBytes(),
    );
    let statusPolls = 0;
    proxy.rule = (call) => {
      if (call.method === "getSignatureStatuses") {
        statusPolls += 1;
        const signatures = call.params[0] as string[];
        return {
          kind: "reply",
          result: { context: { slot: 1 }, value: signatures.map(() => null) },
        };
      }
      if (
        call.method === "sendTransaction" &&
        Buffer.from(call.params[0] as string, "base64").includes(droppedPda)
      ) {
        return { kind: "reply", result: "dropped-by-the-rpc-node" };
      }
      return { kind: "pass" };
    };
    const metrics = createMetrics({
      db: t.db,
      intervalMs: INTERVAL_MS,
      now: () => Date.now() + 3 * INTERVAL_MS, // scraped later than two intervals: stuck
    });
    const faulty = await sweep(chain, { metrics });
    expect(statusPolls).toBeGreaterThan(0);
    expect(faulty.report.sealed).toBe(3);
    expect(faulty.report.timedOut).toBe(3);
    expect(faulty.report.outcomes).toEqual(
      users.map((u) =>
        expect.objectContaining({
          userId: u.id,
          outcome: "timeout",
          reason: "confirmation_timeout",
        }),
      ),
    );
    // Every attempt stays submitted; nothing new is anchored or checkpointed.
    for (const [user, size, nonce] of [
      [updated, 5, 1],
      [initialized, 4, 0],
      [dropped, 2, 0],
    ] as const) {
      const last = (await batchesOf(user)).at(-1);
      expect(last).toMatchObject({
        status: "submitted",
        tree_size: String(size),
        expected_nonce: String(nonce),
        signature: null,
      });
    }
    expect((await latestAnchoredCheckpoint(t.db, updated.id))?.treeSize).toBe(3);
    expect(await latestAnchoredCheckpoint(t.db, initialized.id)).toBeNull();
    expect(await latestAnchoredCheckpoint(t.db, dropped.id)).toBeNull();
    await expectNothingCorrupted(truth, users);
    // Two of the transactions did land (the RPC only hid it); the dropped one did not.
    expect(await truth.readCommitment(updated.ownerPubkey)).toMatchObject({
      memoryCount: 5,
      nonce: 2,
    });
    expect(await truth.readCommitment(initialized.ownerPubkey)).toMatchObject({
      memoryCount: 4,
      nonce: 1,
    });
    expect(await truth.readCommitment(dropped.ownerPubkey)).toBeNull();
    const m = await scrape(metrics);
    expect(m('anchor_commits_total{outcome="timeout"}')).toBe(3);
    expect(m('anchor_commit_batches{status="submitted"}')).toBe(3);
    expect(m("anchor_commit_batches_stuck")).toBe(3);

    // More writes, then a healthy sweep: each user's larger root is committed on top of whatever
    // landed, every memory is anchored, and the timed-out batches stay submitted (the audit trail).
    for (const user of users) {
      await seedMemories(t.db, user, 2);
    }
    proxy.rule = () => ({ kind: "pass" });
    const healthy = await sweep(chain, { metrics });
    expect(healthy.report.committed).toBe(3);
    // Subsumed by the new confirmed roots: still `submitted` in the audit trail, no longer stuck.
    const after = await scrape(metrics);
    expect(after('anchor_commit_batches{status="submitted"}')).toBe(3);
    expect(after("anchor_commit_batches_stuck")).toBe(0);
    for (const [user, size, nonce, timedOut] of [
      [updated, 7, 3, 5],
      [initialized, 6, 2, 4],
      [dropped, 4, 1, 2],
    ] as const) {
      const checkpoint = await latestAnchoredCheckpoint(t.db, user.id);
      expect(checkpoint).toMatchObject({ treeSize: size, nonce });
      const onChain = await truth.readCommitment(user.ownerPubkey);
      expect(onChain).toMatchObject({ memoryCount: size, nonce });
      expect(toHex(onChain?.root ?? new Uint8Array())).toBe(
        toHex(checkpoint?.root ?? new Uint8Array()),
      );
      const memories = await listMemoriesSince(t.db, user.id, -1);
      expect(memories).toHaveLength(size);
      expect(memories.every((mem) => mem.anchored)).toBe(true);
      expect(toHex(rootFromLeafHashes(memories.map((mem) => mem.leafHash)))).toBe(
        toHex(checkpoint?.root ?? new Uint8Array()),
      );
      const batches = await batchesOf(user);
      const stuck = batches.filter((b) => b.status === "submitted");
      expect(stuck).toHaveLength(1);
      expect(Number(stuck[0]?.tree_size)).toBe(timedOut);
      expect(batches.at(-1)).toMatchObject({ status: "confirmed", tree_size: String(size) });
      // The new root extends the timed-out one (RFC 9162 consistency): it subsumes it.
      const proof = await consistencyProof(timedOut, size, nodeSource(t.db, user.id));
      verifyConsistency(
        timedOut,
        size,
        proof,
        new Uint8Array(stuck[0]?.root ?? []),
        checkpoint?.root ?? new Uint8Array(),
      );
    }
    await expectNothingCorrupted(truth, users);
    expect((await countBatchesByStatus(t.db)).failed).toBe(0);
  });
});

describe("shortened log", () => {
  let proxy: RpcProxy;
  afterEach(async () => {
    await proxy?.close();
  });

  /** Fault injection: deletes the user's leaves from `size` on and rebuilds the tree. */
  async function shorten(user: TestUser, size: number) {
    await t.sql`delete from memories where user_id = ${user.id} and leaf_index >= ${size}`;
    expect((await rebuildTree(t.db, user.id)).size).toBe(size);
    expect(await getLeafCount(t.db, user.id)).toBe(size);
  }

  it("is refused before committing when the chain read shows more leaves (shortened_log)", async () => {
    t = await createTestDatabase({ max: 6 });
    const chain = testChain.client(await testChain.authority());
    const metrics = createMetrics({ db: t.db, intervalMs: INTERVAL_MS });
    const user = await makeUser(t.db);
    await seedMemories(t.db, user, 10);
    expect((await sweep(chain)).report.committed).toBe(1);

    await shorten(user, 6);
    await seedMemories(t.db, user, 2); // size 8 < 10 on chain
    const { report, lines } = await sweep(chain, { metrics });
    expect(report.outcomes).toEqual([
      expect.objectContaining({ userId: user.id, outcome: "skipped", reason: "shortened_log" }),
    ]);
    expect((await scrape(metrics))('anchor_integrity_reports_total{kind="shortened_log"}')).toBe(1);
    expect(lines).toContainEqual(
      expect.objectContaining({ level: 50, kind: "shortened_log", onChainCount: 10, localSize: 8 }),
    );
    const memories = await listMemoriesSince(t.db, user.id, -1);
    expect(memories.filter((m) => !m.anchored).map((m) => m.leafIndex)).toEqual([6, 7]);
    expect(await chain.readCommitment(user.ownerPubkey)).toMatchObject({
      memoryCount: 10,
      nonce: 1,
    });
  });

  it("is refused by the chain when a stale RPC read hides it (CountDecreasedError → failed)", async () => {
    t = await createTestDatabase({ max: 6 });
    proxy = await startRpcProxy(testChain.url);
    const chain = testChain.client(await testChain.authority(), proxy.url);
    const metrics = createMetrics({ db: t.db, intervalMs: INTERVAL_MS });
    const user = await makeUser(t.db);
    const pda = commitmentAddress(user.ownerPubkey, testChain.programId);
    let snapshot: unknown = null;
    proxy.onResult = (call, result) => {
      if (call.method === "getAccountInfo" && call.params[0] === pda && snapshot === null) {
        const value = (result as { value: unknown } | undefined)?.value;
        if (value) {
          snapshot = result; // the account as it was after the first commit (4 leaves)
        }
      }
    };
    await seedMemories(t.db, user, 4);
    expect((await sweep(chain)).report.committed).toBe(1);
    await chain.readCommitment(user.ownerPubkey); // recorded by the proxy
    expect(snapshot).not.toBeNull();
    await seedMemories(t.db, user, 6);
    expect((await sweep(chain)).report.committed).toBe(1); // 10 on chain, nonce 2

    await shorten(user, 6);
    await seedMemories(t.db, user, 2); // size 8 < 10 on chain
    // A lagging RPC node answers with the account as of 4 leaves (nonce 1).
    proxy.rule = (call) =>
      call.method === "getAccountInfo" && call.params[0] === pda
        ? { kind: "reply", result: snapshot }
        : { kind: "pass" };
    const { report, lines } = await sweep(chain, { metrics });
    expect(report.outcomes).toEqual([
      expect.objectContaining({ userId: user.id, outcome: "failed", reason: "count_decreased" }),
    ]);
    const [batch] = await t.sql<{ status: string; error: string; tree_size: string }[]>`
      select status, error, tree_size from commit_batches
      where user_id = ${user.id} order by created_at desc limit 1`;
    expect(batch).toMatchObject({ status: "failed", tree_size: "8" });
    expect(batch?.error).toMatch(/^count_decreased: /);
    expect((await scrape(metrics))('anchor_integrity_reports_total{kind="count_decreased"}')).toBe(
      1,
    );
    expect(lines).toContainEqual(expect.objectContaining({ level: 50, kind: "count_decreased" }));
    const onChain = await testChain
      .client(await testChain.authority(0))
      .readCommitment(user.ownerPubkey);
    expect(onChain).toMatchObject({ memoryCount: 10, nonce: 2 });
    const memories = await listMemoriesSince(t.db, user.id, -1);
    expect(memories.filter((m) => !m.anchored).map((m) => m.leafIndex)).toEqual([6, 7]);
    expect((await countBatchesByStatus(t.db)).failed).toBe(1);
  });
});

describe("first-initializer caveat", () => {
  it("refuses to commit to an account another authority initialized (foreign_authority)", async () => {
    t = await createTestDatabase({ max: 6 });
    const ours = testChain.client(await testChain.authority());
    const squatter = testChain.client(await testChain.authority());
    const metrics = createMetrics({ db: t.db, intervalMs: INTERVAL_MS });
    const user = await makeUser(t.db);
    await seedMemories(t.db, user, 2);
    await squatter.commit(user.ownerPubkey, new Uint8Array(32), 0, 0);

    const { report, lines } = await sweep(ours, { metrics });
    expect(report.outcomes).toEqual([
      expect.objectContaining({ userId: user.id, outcome: "skipped", reason: "foreign_authority" }),
    ]);
    expect(
      (await scrape(metrics))('anchor_integrity_reports_total{kind="foreign_authority"}'),
    ).toBe(1);
    expect(lines).toContainEqual(
      expect.objectContaining({ level: 50, authority: squatter.authorityAddress }),
    );
    expect(await countBatchesByStatus(t.db)).toEqual({ submitted: 0, confirmed: 0, failed: 0 });
    expect((await listMemoriesSince(t.db, user.id, -1)).every((m) => !m.anchored)).toBe(true);
  });
});

describe("missing or drifted tree", () => {
  it("rebuilds the tree from the leaves, reports it, and anchors the leaves' root", async () => {
    t = await createTestDatabase({ max: 6 });
    const chain = testChain.client(await testChain.authority());
    const metrics = createMetrics({ db: t.db, intervalMs: INTERVAL_MS });
    const drifted = await makeUser(t.db);
    const missing = await makeUser(t.db);
    await seedMemories(t.db, drifted, 5);
    await seedMemories(t.db, missing, 3);
    // Fault injection: a wrong stored root and a lost node; a tree row and nodes gone entirely.
    await t.sql`update trees set root = ${Buffer.alloc(32, 1)} where user_id = ${drifted.id}`;
    await t.sql`delete from merkle_nodes where user_id = ${drifted.id} and level = 1 and idx = 0`;
    await t.sql`delete from merkle_nodes where user_id = ${missing.id}`;
    await t.sql`delete from trees where user_id = ${missing.id}`;

    const { report, lines } = await sweep(chain, { metrics });
    expect(report.committed).toBe(2);
    const m = await scrape(metrics);
    expect(m('anchor_integrity_reports_total{kind="tree_drift"}')).toBe(2);
    expect(m("anchor_tree_rebuilds_total")).toBe(2);
    expect(lines.filter((l) => l.kind === "tree_drift")).toHaveLength(2);
    for (const user of [drifted, missing]) {
      const leaves = await listMemoriesSince(t.db, user.id, -1);
      const expected = rootFromLeafHashes(leaves.map((l) => l.leafHash));
      const onChain = await chain.readCommitment(user.ownerPubkey);
      expect(onChain?.memoryCount).toBe(leaves.length);
      expect(toHex(onChain?.root ?? new Uint8Array())).toBe(toHex(expected));
      expect(leaves.every((l) => l.anchored)).toBe(true);
    }
  });
});
