/**
 * Bounded tables: the leader's maintenance pass deletes expired sign-in challenges (a burst of
 * unauthenticated challenges leaves only the unexpired ones), ended extension sessions and old
 * audit rows of unknown grant tokens, keeps everything else; of two workers on one database only
 * the lock holder runs it.
 */
import { randomBytes } from "node:crypto";
import { issueChallenge } from "@verifiable-memory/auth";
import {
  insertExtensionSession,
  insertGrant,
  insertGrantAudit,
} from "@verifiable-memory/db-schema";
import { createTestDatabase, type TestDatabase } from "@verifiable-memory/db-schema/testing";
import bs58 from "bs58";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLeaderLock } from "../src/leader-lock.js";
import { runMaintenance } from "../src/maintenance.js";
import { startWorker } from "../src/worker.js";
import { makeUser } from "./_memories.js";
import { waitFor } from "./_wait.js";

const T0 = Date.parse("2026-11-25T10:00:00.000Z");
const DAY = 86_400_000;
const SIWS = {
  domain: "localhost:8787",
  uri: "http://localhost:8787",
  chainId: "localnet",
  serviceName: "Verifiable Memory",
};

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase({ max: 4 });
});
afterAll(async () => {
  await t.close();
});

async function count(table: string): Promise<number> {
  const rows = await t.sql.unsafe(`select count(*)::int as n from ${table}`);
  return Number(rows[0]?.n);
}

describe("runMaintenance", () => {
  it("leaves only the unexpired challenges of a burst", async () => {
    const burst = (at: number, n: number) =>
      Promise.all(
        Array.from({ length: n }, () =>
          issueChallenge({
            db: t.db,
            clock: { now: () => new Date(at) },
            config: SIWS,
            publicKey: bs58.encode(randomBytes(32)),
          }),
        ),
      );
    await burst(T0, 300);
    await burst(T0 + 4 * 60_000, 50);
    expect(await count("sign_in_nonces")).toBe(350);
    const report = await runMaintenance({
      db: t.db,
      now: new Date(T0 + 5 * 60_000 + 1),
      config: { unknownGrantAuditRetentionMs: 7 * DAY },
    });
    expect(report.expiredChallenges).toBe(300);
    expect(await count("sign_in_nonces")).toBe(50);
  });

  it("deletes expired and revoked extension sessions and old unknown-token audit rows only", async () => {
    const { id: userId } = await makeUser(t.db);
    const session = (expiresAt: number) =>
      insertExtensionSession(t.db, {
        userId,
        tokenHash: randomBytes(32),
        expiresAt: new Date(expiresAt),
      });
    await session(T0 - 1);
    const revoked = await session(T0 + DAY);
    const active = await session(T0 + DAY);
    await t.sql`update extension_sessions set revoked_at = ${new Date(T0 - 1000).toISOString()} where id = ${revoked.id}`;

    const grant = await insertGrant(t.db, {
      userId,
      tokenHash: randomBytes(32),
      operation: { type: "search", query: "x" },
      maxUses: 1,
      expiresAt: new Date(T0 + DAY),
    });
    const audit = (grantId: string | null, at: number) =>
      insertGrantAudit(t.db, {
        grantId,
        userId: grantId ? userId : null,
        outcome: grantId ? "ok" : "not_found",
        ip: "127.0.0.1",
        userAgent: "test",
        at: new Date(at),
      });
    await audit(null, T0 - 8 * DAY);
    await audit(null, T0 - 6 * DAY);
    await audit(grant.id, T0 - 30 * DAY);

    const report = await runMaintenance({
      db: t.db,
      now: new Date(T0),
      config: { unknownGrantAuditRetentionMs: 7 * DAY },
    });
    expect(report).toMatchObject({ endedExtensionSessions: 2, unknownGrantAudit: 1 });
    const sessions = await t.sql`select id from extension_sessions`;
    expect(sessions.map((r) => r.id)).toEqual([active.id]);
    const kept = await t.sql`select grant_id from grant_audit order by at`;
    expect(kept.map((r) => r.grant_id)).toEqual([grant.id, null]);
  });
});

describe("the worker", () => {
  it("runs maintenance on the lock holder only, at most once per interval", async () => {
    const ran = [0, 0];
    const sweeps = [0, 0];
    const workers = [0, 1].map((i) =>
      startWorker({
        lock: createLeaderLock(t.url),
        intervalMs: 100,
        logger: pino({ level: "silent" }),
        sweep: async () => {
          sweeps[i] = (sweeps[i] ?? 0) + 1;
          return {
            pending: 0,
            sealed: 0,
            committed: 0,
            failed: 0,
            skipped: 0,
            timedOut: 0,
            durationMs: 0,
            outcomes: [],
            waiting: [],
          };
        },
        maintenanceIntervalMs: 60_000,
        maintain: async () => {
          ran[i] = (ran[i] ?? 0) + 1;
          return {
            expiredChallenges: 0,
            endedExtensionSessions: 0,
            unknownGrantAudit: 0,
            prunedEvents: 0,
          };
        },
      }),
    );
    // Five sweeps of the leader, 100 ms apart: the standby tried the lock as often meanwhile, and
    // the maintenance interval (60 s) admitted one pass.
    await waitFor("five sweeps of the leader", async () => Math.max(...sweeps) >= 5);
    const leaders = workers.map((w) => w.leader);
    await Promise.all(workers.map((w) => w.stop()));
    expect(leaders.filter(Boolean)).toHaveLength(1);
    expect(ran.sort()).toEqual([0, 1]);
    expect(Math.min(...sweeps)).toBe(0);
  });
});
