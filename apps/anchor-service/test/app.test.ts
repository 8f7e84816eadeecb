/**
 * The HTTP surface and the scrape-time metrics (spec §8 "Signals to monitor"; CONTRACT §6
 * `GET /metrics`): every signal is exposed, the database-derived gauges follow the database and
 * the injected clock, and `/readyz` tells a reachable, migrated database from the rest. Real
 * PostgreSQL; no chain needed.
 */
import { randomBytes } from "node:crypto";
import {
  createDatabase,
  insertSubmittedBatch,
  markBatchFailed,
  treeSaveConflicts,
} from "@svc/db-schema";
import { createTestDatabase, type TestDatabase } from "@svc/db-schema/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../src/app.js";
import { createMetrics } from "../src/metrics.js";
import { makeUser, seedMemories } from "./_memories.js";

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase({ max: 4 });
});
afterAll(async () => {
  await t.close();
});

/** The value of `name` (with its label set, if any) in a Prometheus text exposition. */
function sample(text: string, name: string): number {
  const line = text.split("\n").find((l) => l.startsWith(`${name} `));
  if (!line) {
    throw new Error(`metric ${name} not exposed`);
  }
  return Number(line.slice(name.length + 1));
}

describe("GET /metrics", () => {
  it("exposes every signal of spec §8, computed from the database at scrape time", async () => {
    let now = Date.now();
    const metrics = createMetrics({ db: t.db, intervalMs: 1000, now: () => now });
    const app = createApp({ db: t.db, metrics });
    const scrape = async () => {
      const res = await app.request("/metrics");
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toContain("text/plain");
      return res.text();
    };

    const empty = await scrape();
    for (const name of [
      "anchor_authority_balance_lamports",
      "anchor_oldest_unanchored_age_seconds",
      'anchor_commit_batches{status="failed"}',
      'anchor_commit_batches{status="submitted"}',
      "anchor_commit_batches_stuck",
      "anchor_sweep_duration_seconds_count",
      "tree_save_conflicts_total",
      "anchor_users_sealed",
      "anchor_is_leader",
    ]) {
      expect(Number.isNaN(sample(empty, name)) || sample(empty, name) >= 0).toBe(true);
    }
    expect(sample(empty, "anchor_authority_balance_lamports")).toBeNaN();
    expect(sample(empty, "anchor_oldest_unanchored_age_seconds")).toBe(0);

    const user = await makeUser(t.db);
    await seedMemories(t.db, user, 2, new Date(now - 90_000));
    const failed = await insertSubmittedBatch(t.db, {
      userId: user.id,
      treeSize: 2,
      root: randomBytes(32),
      expectedNonce: 0,
    });
    await markBatchFailed(t.db, user.id, failed.id, "send_failed: test");
    await insertSubmittedBatch(t.db, {
      userId: user.id,
      treeSize: 2,
      root: randomBytes(32),
      expectedNonce: 0,
    });
    const conflictsBefore = treeSaveConflicts.value;
    treeSaveConflicts.inc();

    const first = await scrape();
    expect(sample(first, "anchor_oldest_unanchored_age_seconds")).toBeCloseTo(90, 0);
    expect(sample(first, 'anchor_commit_batches{status="failed"}')).toBe(1);
    expect(sample(first, 'anchor_commit_batches{status="submitted"}')).toBe(1);
    expect(sample(first, "anchor_commit_batches_stuck")).toBe(0);
    expect(sample(first, "tree_save_conflicts_total")).toBe(conflictsBefore + 1);

    now += 60_000; // the clock moves: the age grows and the submitted batch is now stuck
    const later = await scrape();
    expect(sample(later, "anchor_oldest_unanchored_age_seconds")).toBeCloseTo(150, 0);
    expect(sample(later, "anchor_commit_batches_stuck")).toBe(1);
  });

  it("reports the database gauges as NaN (unknown) when the database is unreachable", async () => {
    const dead = createDatabase({ url: "postgres://postgres@127.0.0.1:1/none" });
    const metrics = createMetrics({ db: dead.db, intervalMs: 1000 });
    const text = await (await createApp({ db: dead.db, metrics }).request("/metrics")).text();
    expect(sample(text, "anchor_oldest_unanchored_age_seconds")).toBeNaN();
    expect(sample(text, 'anchor_commit_batches{status="failed"}')).toBeNaN();
    await dead.close();
  });
});

describe("health and readiness", () => {
  it("/healthz is 200; /readyz is 200 on a migrated database", async () => {
    const app = createApp({ db: t.db, metrics: createMetrics({ db: t.db, intervalMs: 1000 }) });
    expect((await app.request("/healthz")).status).toBe(200);
    const ready = await app.request("/readyz");
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: "ready" });
    const missing = await app.request("/nope");
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ error: { code: "not_found" } });
  });

  it("/readyz is 503 migrations_pending on an unmigrated database", async () => {
    const bare = await createTestDatabase({ empty: true, max: 1 });
    try {
      const app = createApp({
        db: bare.db,
        metrics: createMetrics({ db: bare.db, intervalMs: 1000 }),
      });
      const res = await app.request("/readyz");
      expect(res.status).toBe(503);
      expect(await res.json()).toMatchObject({ error: { code: "migrations_pending" } });
    } finally {
      await bare.close();
    }
  });

  it("/readyz is 503 database_unavailable when the database does not answer", async () => {
    const dead = createDatabase({ url: "postgres://postgres@127.0.0.1:1/none" });
    const app = createApp({
      db: dead.db,
      metrics: createMetrics({ db: dead.db, intervalMs: 1000 }),
    });
    const res = await app.request("/readyz");
    expect(res.status).toBe(503);
    expect(await res.json()).toMatchObject({ error: { code: "database_unavailable" } });
    await dead.close();
  });
});
