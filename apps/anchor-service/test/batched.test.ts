/**
 * Batched anchoring (USER_ANCHOR_INTERVAL_MS > 0) on real parts: PostgreSQL, the local chain in
 * process and the real program. Sealed users are committed together with commit_many once per
 * interval, a user without an account at once, the others wait; a stale nonce fails only its
 * user (batch failed, nonce_race) while the rest of the transaction lands.
 * Source: docs/protocol.md §7.6 "One user's anchoring and the commit batches".
 * @module
 */
import { latestAnchoredCheckpoint } from "@verifiable-memory/db-schema";
import { createTestDatabase, type TestDatabase } from "@verifiable-memory/db-schema/testing";
import { toHex } from "@verifiable-memory/merkle-log";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AnchorChain } from "../src/chain.js";
import { runSweep, type UserAnchorState } from "../src/sweep.js";
import { captureLogger, startTestChain, type TestChain } from "./_chain.js";
import { makeUser, seedMemories, type TestUser } from "./_memories.js";

const HOUR = 3_600_000;

let t: TestDatabase;
let testChain: TestChain;
let client: ReturnType<TestChain["client"]>;

beforeAll(async () => {
  [t, testChain] = await Promise.all([createTestDatabase({ max: 10 }), startTestChain()]);
  client = testChain.client(await testChain.authority());
});
afterAll(async () => {
  await Promise.all([t?.close(), testChain?.close()]);
});

function sweep(chain: AnchorChain, state: UserAnchorState, at: number) {
  return runSweep({
    db: t.db,
    chain,
    logger: captureLogger().logger,
    userAnchorState: state,
    now: () => at,
    config: {
      sealMaxPending: 1,
      sealMaxAgeMs: 300_000,
      maxInFlight: 4,
      userAnchorIntervalMs: HOUR,
    },
  });
}

async function usersWithMemories(n: number): Promise<TestUser[]> {
  const users: TestUser[] = [];
  for (let i = 0; i < n; i++) {
    const user = await makeUser(t.db);
    await seedMemories(t.db, user, 2, new Date());
    users.push(user);
  }
  return users;
}

describe("USER_ANCHOR_INTERVAL_MS", () => {
  it("commits sealed users together once per interval; a new user's account at once", async () => {
    const state: UserAnchorState = { lastAt: null };
    const start = Date.now();
    const [a, b, c] = (await usersWithMemories(3)) as [TestUser, TestUser, TestUser];
    const first = await sweep(client, state, start);
    const signatures = new Set(first.outcomes.map((o) => o.signature));
    expect(first.outcomes.map((o) => o.outcome)).toEqual(["confirmed", "confirmed", "confirmed"]);
    expect(signatures.size).toBe(1); // three initializations and one commit_many
    const tx = await client.getTransaction([...signatures][0] as string);
    expect(tx?.logs).toContain("Program log: Instruction: CommitMany");

    await seedMemories(t.db, a, 1, new Date());
    await seedMemories(t.db, b, 1, new Date());
    const [d] = (await usersWithMemories(1)) as [TestUser];
    const soon = await sweep(client, state, start + 30_000);
    const outcome = (report: typeof soon, user: TestUser) =>
      report.outcomes.find((o) => o.userId === user.id);
    expect(outcome(soon, d)?.outcome).toBe("confirmed");
    expect(outcome(soon, a)).toMatchObject({ outcome: "skipped", reason: "user_anchor_interval" });
    expect(outcome(soon, b)).toMatchObject({ outcome: "skipped", reason: "user_anchor_interval" });
    expect((await latestAnchoredCheckpoint(t.db, a.id))?.treeSize).toBe(2);

    const later = await sweep(client, state, start + HOUR);
    expect(outcome(later, a)?.outcome).toBe("confirmed");
    expect(outcome(later, b)?.outcome).toBe("confirmed");
    expect(outcome(later, a)?.signature).toBe(outcome(later, b)?.signature);
    expect(outcome(later, c)).toBeUndefined(); // nothing pending
    const onChain = await client.readCommitment(a.ownerPubkey);
    const checkpoint = await latestAnchoredCheckpoint(t.db, a.id);
    expect(checkpoint?.treeSize).toBe(3);
    expect(onChain?.memoryCount).toBe(3);
    expect(toHex(onChain?.root ?? new Uint8Array())).toBe(
      toHex(checkpoint?.root ?? new Uint8Array()),
    );
  });

  it("a stale nonce fails only its user; the others of the transaction land", async () => {
    const state: UserAnchorState = { lastAt: null };
    const start = Date.now();
    const users = await usersWithMemories(3);
    await sweep(client, state, start);
    for (const user of users) {
      await seedMemories(t.db, user, 1, new Date());
    }
    const victim = users[1] as TestUser;
    // A stale read of the victim's account: its nonce one behind the chain's.
    const stale: AnchorChain = {
      authorityAddress: client.authorityAddress,
      authorityBalance: () => client.authorityBalance(),
      commit: (...args) => client.commit(...args),
      commitMany: (...args) => client.commitMany(...args),
      readCommitment: async (owner) => {
        const account = await client.readCommitment(owner);
        return account && owner === victim.ownerPubkey
          ? { ...account, nonce: account.nonce - 1 }
          : account;
      },
    };
    const report = await sweep(stale, state, start + HOUR);
    const byUser = new Map(report.outcomes.map((o) => [o.userId, o]));
    expect(byUser.get(victim.id)).toMatchObject({ outcome: "failed", reason: "nonce_race" });
    expect(byUser.get((users[0] as TestUser).id)?.outcome).toBe("confirmed");
    expect(byUser.get((users[2] as TestUser).id)?.outcome).toBe("confirmed");
    expect((await client.readCommitment(victim.ownerPubkey))?.memoryCount).toBe(2);
    expect((await latestAnchoredCheckpoint(t.db, victim.id))?.treeSize).toBe(2);
  });
});
