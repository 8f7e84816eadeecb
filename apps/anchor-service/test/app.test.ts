/**
 * The HTTP surface and the scrape-time metrics (docs/protocol.md §7.7 "Leader election and the
 * anchor service's surface"; docs/protocol.md §7 `GET /metrics`): every signal is exposed, the
 * database-derived gauges follow the database and the injected clock, and `/readyz` tells a
 * reachable, migrated database from the rest. Real PostgreSQL; no chain needed.
 */
import { randomBytes } from "node:crypto";
import { Writable } from "node:stream";
import {
  createDatabase,
  insertSubmittedBatch,
  markBatchFailed,
  treeSaveConflicts,
} from "@verifiable-memory/db-schema";
import { createTestDatabase, type TestDatabase } from "@verifiable-memory/db-schema/testing";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../src/app.js";
import { createMetrics } from "../src/metrics.js";
import { makeUser, seedMemories } from "./_memories.js";

const silent = pino({ level: "silent" });

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
  it("exposes every signal of docs/protocol.md §1, computed from the database at scrape time", async () => {
    let now = Date.now();
    const metrics = createMetrics({ db: t.db, intervalMs: 1000, now: () => now });
    const app = createApp({ db: t.db, metrics, logger: silent });
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
    const text = await (
      await createApp({ db: dead.db, metrics, logger: silent }).request("/metrics")
    ).text();
    expect(sample(text, "anchor_oldest_unanchored_age_seconds")).toBeNaN();
    expect(sample(text, 'anchor_commit_batches{status="failed"}')).toBeNaN();
    await dead.close();
  });
});

describe("health and readiness", () => {
  it("/healthz is 200; /readyz is 200 on a migrated database", async () => {
    const app = createApp({
      db: t.db,
      metrics: createMetrics({ db: t.db, intervalMs: 1000 }),
      logger: silent,
    });
    expect((await app.request("/healthz")).status).toBe(200);
    const ready = await app.request("/readyz");
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: "ready" });
    const missing = await app.request("/nope");
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ error: { code: "not_found" } });
  });

  it("/healthz and /readyz are http-kit's: an unknown query parameter is 400 invalid_request", async () => {
    const app = createApp({
      db: t.db,
      metrics: createMetrics({ db: t.db, intervalMs: 1000 }),
      logger: silent,
    });
    for (const path of ["/healthz?verbose=1", "/readyz?verbose=1"]) {
      const res = await app.request(path);
      expect(res.status, path).toBe(400);
      expect(await res.json()).toMatchObject({ error: { code: "invalid_request" } });
    }
  });

  it("/readyz is 503 migrations_pending on an unmigrated database", async () => {
    const bare = await createTestDatabase({ empty: true, max: 1 });
    try {
      const app = createApp({
        db: bare.db,
        metrics: createMetrics({ db: bare.db, intervalMs: 1000 }),
        logger: silent,
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
      logger: silent,
    });
    const res = await app.request("/readyz");
    expect(res.status).toBe(503);
    expect(await res.json()).toMatchObject({ error: { code: "database_unavailable" } });
    await dead.close();
  });
});

describe("request ids and request logs", () => {
  it("answers every response with x-request-id and logs one JSON line per request", async () => {
    const written: string[] = [];
    const sink = new Writable({
      write(chunk: Buffer | string, _encoding, done) {
        written.push(String(chunk));
        done();
      },
    });
    const app = createApp({
      db: t.db,
      metrics: createMetrics({ db: t.db, intervalMs: 1000 }),
      logger: pino({ level: "trace" }, sink),
    });
    const paths = ["/healthz", "/readyz", "/metrics", "/nope"];
    const ids: string[] = [];
    for (const path of paths) {
      const res = await app.request(path);
      const id = res.headers.get("x-request-id");
      expect(id, path).toMatch(/^[0-9a-f-]{36}$/);
      ids.push(id as string);
    }
    expect(new Set(ids).size).toBe(paths.length);
    const kept = await app.request("/healthz", { headers: { "x-request-id": "probe-42" } });
    expect(kept.headers.get("x-request-id")).toBe("probe-42");
    const unsafe = await app.request("/healthz", { headers: { "x-request-id": "a b<script>" } });
    expect(unsafe.headers.get("x-request-id")).not.toBe("a b<script>");

    const lines = written
      .join("")
      .split("\n")
      .filter((line) => line.length > 0)
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    const requests = lines.filter((line) => line.msg === "request");
    // Probes and metrics scrapes at debug (20), every other request at info (30).
    expect(requests.map((line) => [line.path, line.status, line.requestId, line.level])).toEqual([
      ["/healthz", 200, ids[0], 20],
      ["/readyz", 200, ids[1], 20],
      ["/metrics", 200, ids[2], 20],
      ["/nope", 404, ids[3], 30],
      ["/healthz", 200, "probe-42", 20],
      ["/healthz", 200, unsafe.headers.get("x-request-id"), 20],
    ]);
    for (const line of requests) {
      expect(line).toMatchObject({ method: "GET" });
      expect(typeof line.ms).toBe("number");
    }
  });

  it("logs a failing readiness check with its request id and no query parameters", async () => {
    const written: string[] = [];
    const sink = new Writable({
      write(chunk: Buffer | string, _encoding, done) {
        written.push(String(chunk));
        done();
      },
    });
    const dead = createDatabase({ url: "postgres://postgres@127.0.0.1:1/none", max: 1 });
    try {
      const app = createApp({
        db: dead.db,
        metrics: createMetrics({ db: dead.db, intervalMs: 1000 }),
        logger: pino({ level: "trace" }, sink),
      });
      const res = await app.request("/readyz");
      expect(res.status).toBe(503);
      const id = res.headers.get("x-request-id");
      const lines = written
        .join("")
        .split("\n")
        .filter((line) => line.length > 0)
        .map((line) => JSON.parse(line) as Record<string, unknown>);
      const warning = lines.find((line) => line.msg === "readiness: database unavailable");
      expect(warning).toMatchObject({ level: 40, requestId: id, err: { code: "ECONNREFUSED" } });
      expect(Object.keys(warning?.err as object).sort()).toEqual(
        expect.not.arrayContaining(["params", "query", "cause"]),
      );
      expect(lines.find((line) => line.msg === "request")).toMatchObject({
        requestId: id,
        status: 503,
      });
    } finally {
      await dead.close();
    }
  });
});
