/**
 * `GET /events` (docs/api.md "Events") over real HTTP and real PostgreSQL: Server-Sent Events of
 * `memory.created`, `memory.deleted` and `memory.anchored` written by the database triggers, read
 * as a client reads them (fetch, the body as text/event-stream). Resumption with `Last-Event-ID`,
 * a second core-api instance on the same database with its own LISTEN connection, isolation
 * between users, scopes and namespace confinement, ordering across transactions that commit out
 * of id order, LISTEN reconnects, heartbeats under the server's request timeout, retention, and
 * the process's shutdown ending open streams.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import {
  createDatabase,
  type DatabaseHandle,
  deleteEventsBefore,
  deleteMemory,
} from "@verifiable-memory/db-schema";
import { createTestDatabase, type TestDatabase } from "@verifiable-memory/db-schema/testing";
import { SERVER_OPTIONS } from "@verifiable-memory/http-kit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  closeStreams,
  createKey,
  createMemory,
  deleteOne,
  type EventsApp,
  freePort,
  openEvents,
  startEventsApp,
  until,
} from "./_events.js";
import { call, newUser, recordCheckpoint, TEST_ENV } from "./helpers.js";

let database: TestDatabase;
let t: EventsApp;
/** A second instance on the same database, with its own pool and LISTEN connection. */
let second: EventsApp;
let secondPool: DatabaseHandle;

beforeAll(async () => {
  database = await createTestDatabase();
  t = await startEventsApp(database.db);
  secondPool = createDatabase({ url: database.url, max: 4 });
  second = await startEventsApp(secondPool.db);
});
afterAll(async () => {
  closeStreams();
  await second?.close();
  await t?.close();
  await secondPool?.close();
  await database?.close();
});

describe("GET /events", () => {
  it("streams memory.created, memory.deleted and memory.anchored as SSE", async () => {
    const user = await newUser(t.url);
    const { stream, position } = await openEvents(t.url, user.headers);
    expect(position).toBe(0);
    expect(stream.response.headers.get("content-type")).toMatch(/^text\/event-stream/);
    expect(stream.response.headers.get("cache-control")).toBe("no-cache");
    expect(stream.response.headers.get("x-accel-buffering")).toBe("no");
    expect(stream.response.headers.get("connection")).toBe("close");
    expect(stream.response.headers.get("x-request-id")).toEqual(expect.any(String));

    const first = await createMemory(t.url, user);
    const [created] = await stream.events(1);
    expect(created).toMatchObject({
      event: "memory.created",
      data: {
        id: first.id,
        leafIndex: 0,
        namespace: null,
        createdAt: first.createdAt,
        supersedes: null,
      },
    });
    expect(created?.id).toBeGreaterThan(0);

    await deleteOne(t.url, user, first.id);
    const [deleted] = await stream.events(1);
    expect(deleted).toMatchObject({
      event: "memory.deleted",
      data: { id: first.id, leafIndex: 0, namespace: null },
    });
    expect(deleted?.id).toBeGreaterThan(created?.id ?? 0);

    const root = await recordCheckpoint(t, user, 1, 1, "5igSignatureOfTheCommit");
    const [anchored] = await stream.events(1);
    expect(anchored).toMatchObject({
      event: "memory.anchored",
      data: {
        treeSize: 1,
        rootHash: Buffer.from(root).toString("hex"),
        signature: "5igSignatureOfTheCommit",
      },
    });
    expect(anchored?.id).toBeGreaterThan(deleted?.id ?? 0);
  });

  it("starts after the latest event, and replays exactly the missed events after Last-Event-ID", async () => {
    const user = await newUser(t.url);
    await createMemory(t.url, user);
    await createMemory(t.url, user);
    const { stream, position } = await openEvents(t.url, user.headers);
    expect(position).toBeGreaterThan(0); // the latest event's id: the old ones are not replayed
    const third = await createMemory(t.url, user);
    const [seen] = await stream.events(1);
    expect(seen?.data).toMatchObject({ id: third.id, leafIndex: 2 });
    stream.close();

    // Missed while disconnected: two writes and a delete.
    const fourth = await createMemory(t.url, user);
    const fifth = await createMemory(t.url, user);
    await deleteOne(t.url, user, third.id);

    const lastEventId = String(seen?.id);
    const resumed = await openEvents(t.url, { ...user.headers, "last-event-id": lastEventId });
    expect(resumed.position).toBe(seen?.id);
    const replay = await resumed.stream.events(3);
    expect(replay.map((e) => [e.event, e.data.id])).toEqual([
      ["memory.created", fourth.id],
      ["memory.created", fifth.id],
      ["memory.deleted", third.id],
    ]);
    expect(replay.map((e) => e.id)).toEqual([...replay.map((e) => e.id)].sort((a, b) => a - b));
    // Nothing else was replayed: the next event is a new write.
    const sixth = await createMemory(t.url, user);
    expect((await resumed.stream.events(1))[0]?.data.id).toBe(sixth.id);

    // The same replay with ?lastEventId=; the header wins over the query parameter.
    const byQuery = await openEvents(t.url, user.headers, `?lastEventId=${lastEventId}`);
    expect((await byQuery.stream.events(4)).map((e) => e.data.id)).toEqual([
      fourth.id,
      fifth.id,
      third.id,
      sixth.id,
    ]);
    const both = await openEvents(
      t.url,
      { ...user.headers, "last-event-id": String(replay[2]?.id) },
      "?lastEventId=0",
    );
    expect((await both.stream.events(1))[0]?.data.id).toBe(sixth.id);
  });

  it("delivers events written through another core-api instance on the same database", async () => {
    const user = await newUser(t.url);
    const onSecond = await openEvents(second.url, user.headers);
    const onFirst = await openEvents(t.url, user.headers);
    const written = await createMemory(t.url, user);
    const viaFirst = await createMemory(second.url, user);
    for (const { stream } of [onSecond, onFirst]) {
      const got = await stream.events(2);
      expect(got.map((e) => e.data.id)).toEqual([written.id, viaFirst.id]);
    }
  });

  it("never sends another user's events", async () => {
    const alice = await newUser(t.url);
    const bob = await newUser(t.url);
    const { stream } = await openEvents(t.url, alice.headers);
    const bobs = await createMemory(t.url, bob);
    await deleteOne(t.url, bob, bobs.id);
    await recordCheckpoint(t, bob, 1, 1);
    const alices = await createMemory(t.url, alice);
    const [first] = await stream.events(1);
    expect(first?.data.id).toBe(alices.id);
    // Replaying from the very start shows Alice's event only.
    const replay = await openEvents(t.url, { ...alice.headers, "last-event-id": "0" });
    expect((await replay.stream.events(1))[0]?.data.id).toBe(alices.id);
    expect(await replay.stream.nextEvent(300)).toBeNull();
  });

  it("refuses a missing credential (401), a key without memories:read (403), a bad event id (400)", async () => {
    const unauthenticated = await call(`${t.url}/events`);
    expect(unauthenticated.status).toBe(401);
    expect(unauthenticated.body).toMatchObject({ error: { code: "unauthorized" } });

    const user = await newUser(t.url);
    const writer = await createKey(t.url, user, { scopes: ["memories:write"] });
    const forbidden = await call(`${t.url}/events`, { headers: writer.headers });
    expect(forbidden.status).toBe(403);
    expect(forbidden.body).toMatchObject({ error: { code: "insufficient_scope" } });

    for (const [headers, query] of [
      [{ "last-event-id": "abc" }, ""],
      [{ "last-event-id": "-1" }, ""],
      [{ "last-event-id": "99999999999999999" }, ""],
      [{}, "?lastEventId=1.5"],
      [{}, "?namespace=bad%20namespace"],
      [{}, "?follow=true"],
    ] as const) {
      const bad = await call(`${t.url}/events${query}`, {
        headers: { ...user.headers, ...headers },
      });
      expect(bad.status, `${JSON.stringify(headers)} ${query}`).toBe(400);
      expect(bad.body).toMatchObject({ error: { code: "invalid_request" } });
    }
  });

  it("confines an API key with a namespace to its prefix (plus anchored events); filters narrow it", async () => {
    const user = await newUser(t.url);
    const confined = await createKey(t.url, user, { namespace: "a/" });
    const keyStream = await openEvents(t.url, confined.headers);
    const outside = await openEvents(t.url, confined.headers, "?namespacePrefix=b/");
    const exact = await openEvents(t.url, user.headers, "?namespace=b/x");
    const prefixed = await openEvents(t.url, user.headers, "?namespacePrefix=a/");

    const b = await createMemory(t.url, user, { namespace: "b/x" });
    const none = await createMemory(t.url, user);
    const a = await createMemory(t.url, user, { namespace: "a/run:1" });
    await deleteOne(t.url, user, b.id);
    await deleteOne(t.url, user, a.id);
    await recordCheckpoint(t, user, 3, 1);

    const seen = (events: { event: string; data: Record<string, unknown> }[]) =>
      events.map((e) => `${e.event} ${e.data.id ?? e.data.treeSize}`);
    expect(seen(await keyStream.stream.events(3))).toEqual([
      `memory.created ${a.id}`,
      `memory.deleted ${a.id}`,
      "memory.anchored 3",
    ]);
    expect(seen(await prefixed.stream.events(3))).toEqual([
      `memory.created ${a.id}`,
      `memory.deleted ${a.id}`,
      "memory.anchored 3",
    ]);
    expect(seen(await exact.stream.events(3))).toEqual([
      `memory.created ${b.id}`,
      `memory.deleted ${b.id}`,
      "memory.anchored 3",
    ]);
    // A filter outside the confinement matches no memory event: only the anchored one comes.
    expect(seen(await outside.stream.events(1))).toEqual(["memory.anchored 3"]);
    expect(none.namespace).toBeNull();
  });

  it("holds back an event until the transactions holding smaller ids have committed", async () => {
    const user = await newUser(t.url);
    const early = await createMemory(t.url, user);
    const { stream } = await openEvents(t.url, user.headers);

    // A delete whose transaction draws its event id first but commits last.
    let commit = (): void => {};
    const held = new Promise<void>((resolve) => {
      commit = resolve;
    });
    let drawn = (): void => {};
    const idDrawn = new Promise<void>((resolve) => {
      drawn = resolve;
    });
    const slowDelete = t.db.transaction(async (tx) => {
      expect(await deleteMemory(tx, user.userId, early.id)).toBe(true);
      drawn();
      await held;
    });
    await idDrawn;
    const later = await createMemory(t.url, user);
    // The later event is committed, but an earlier id is still open: nothing is sent.
    expect(await stream.nextEvent(600)).toBeNull();
    commit();
    await slowDelete;
    const got = await stream.events(2);
    expect(got.map((e) => [e.event, e.data.id])).toEqual([
      ["memory.deleted", early.id],
      ["memory.created", later.id],
    ]);
    expect(got[0]?.id).toBeLessThan(got[1]?.id ?? 0);
  });

  it("delivers every event once, in id order, under concurrent writes from two instances", async () => {
    const user = await newUser(t.url);
    const seeded = await Promise.all(
      Array.from({ length: 10 }, () => createMemory(second.url, user)),
    );
    const { stream } = await openEvents(t.url, user.headers);
    const { stream: onSecond } = await openEvents(second.url, user.headers);
    await Promise.all([
      ...Array.from({ length: 20 }, (_, i) => createMemory(i % 2 ? t.url : second.url, user)),
      ...seeded.map((m, i) => deleteOne(i % 2 ? t.url : second.url, user, m.id)),
      recordCheckpoint(t, user, 10, 1),
    ]);
    const stored = await database.sql`select id::int as id from memory_events
      where user_id = ${user.userId} order by id offset 10`;
    const expected = stored.map((row) => Number(row.id));
    expect(expected).toHaveLength(31);
    for (const s of [stream, onSecond]) {
      expect((await s.events(31)).map((e) => e.id)).toEqual(expected);
      expect(await s.nextEvent(200)).toBeNull();
    }
  });

  it("loses nothing when the LISTEN connection drops (postgres.js re-listens, feeds re-read)", async () => {
    const user = await newUser(second.url);
    const { stream } = await openEvents(second.url, user.headers);
    await until(() => second.hub.listenCount >= 1);
    const before = second.hub.listenCount;
    const killed = await secondPool.sql`
      select pg_terminate_backend(pid) as done from pg_stat_activity
      where datname = current_database() and query ilike 'listen%'`;
    expect(killed.length).toBeGreaterThan(0);
    const written = await createMemory(t.url, user);
    expect((await stream.events(1))[0]?.data.id).toBe(written.id);
    await until(() => second.hub.listenCount > before);
    const after = await createMemory(t.url, user);
    expect((await stream.events(1))[0]?.data.id).toBe(after.id);
  });

  it("ends the feed when the client goes away", async () => {
    const user = await newUser(t.url);
    const baseline = t.hub.openFeeds;
    const { stream } = await openEvents(t.url, user.headers);
    expect(t.hub.openFeeds).toBe(baseline + 1);
    stream.close();
    await until(() => t.hub.openFeeds === baseline);
  });

  it("prunes events past the retention; a replay shows the kept ones", async () => {
    const user = await newUser(t.url);
    const old = await createMemory(t.url, user);
    const kept = await createMemory(t.url, user);
    // Time passes for every event up to the old memory's: they are 8 days old.
    const aged = await database.sql`update memory_events set at = now() - interval '8 days'
      where id <= (select id from memory_events where data->>'id' = ${old.id}) returning id`;
    const pruned = await deleteEventsBefore(t.db, new Date(Date.now() - 7 * 24 * 3600_000));
    expect(pruned).toBe(aged.length);
    const left = await database.sql`select count(*)::int as n from memory_events
      where at < now() - interval '7 days'`;
    expect(left[0]?.n).toBe(0);
    const replay = await openEvents(t.url, { ...user.headers, "last-event-id": "0" });
    expect((await replay.stream.events(1))[0]?.data.id).toBe(kept.id);
    expect(await replay.stream.nextEvent(300)).toBeNull();
  });
});

describe("a long-lived stream", () => {
  it("outlives the server's request timeout, with heartbeat comments", async () => {
    const app = await startEventsApp(database.db, {
      heartbeatMs: 200,
      serverOptions: {
        ...SERVER_OPTIONS,
        requestTimeout: 500,
        headersTimeout: 500,
        connectionsCheckingInterval: 100,
      },
    });
    try {
      const user = await newUser(app.url);
      const { stream } = await openEvents(app.url, user.headers);
      const started = Date.now();
      let heartbeats = 0;
      while (Date.now() - started < 1500) {
        const message = await stream.nextMessage(1000);
        expect(message, "the stream ended").not.toBeNull();
        if (message?.comment === "heartbeat") {
          heartbeats++;
        }
      }
      expect(heartbeats).toBeGreaterThanOrEqual(4);
      const written = await createMemory(app.url, user);
      expect((await stream.events(1))[0]?.data.id).toBe(written.id);
    } finally {
      await app.close();
    }
  });
});

describe("core-api main", () => {
  const children: ChildProcess[] = [];
  afterAll(() => {
    for (const child of children) {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill("SIGKILL");
      }
    }
  });

  it("on SIGTERM ends the open event streams and exits 0", async () => {
    const own = await createTestDatabase();
    try {
      const port = await freePort();
      const main = fileURLToPath(new URL("../src/main.ts", import.meta.url));
      const child = spawn(process.execPath, ["--import", "tsx", main], {
        env: { ...process.env, ...TEST_ENV, DATABASE_URL: own.url, PORT: String(port) },
        stdio: ["ignore", "pipe", "pipe"],
      });
      children.push(child);
      let output = "";
      child.stdout?.on("data", (chunk: Buffer) => {
        output += chunk.toString();
      });
      child.stderr?.on("data", (chunk: Buffer) => {
        output += chunk.toString();
      });
      const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
      const url = `http://127.0.0.1:${port}`;
      await until(async () => {
        try {
          return (await fetch(`${url}/readyz`)).ok;
        } catch {
          return false;
        }
      }, 60_000);

      const user = await newUser(url);
      const { stream } = await openEvents(url, user.headers);
      const written = await createMemory(url, user);
      expect((await stream.events(1))[0]?.data.id).toBe(written.id);

      const signalled = Date.now();
      child.kill("SIGTERM");
      await stream.ended;
      expect(await exited, output).toBe(0);
      expect(Date.now() - signalled).toBeLessThan(10_000);
      expect(output).toContain("core-api stopped");
    } finally {
      await own.close();
    }
  }, 90_000);
});
