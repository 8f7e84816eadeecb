/**
 * Exactly one active anchor worker (docs/protocol.md §7.7 "Leader election and the anchor service's
 * surface"): two real anchor-service processes (`main.ts` under tsx) against one PostgreSQL
 * database and one local chain. The second never sweeps or commits while the first holds the lock;
 * after `kill -9` of the leader the standby takes over within one interval and anchors what was
 * written meanwhile; SIGTERM stops gracefully and frees the lock.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { countBatchesByStatus, listMemoriesSince } from "@verifiable-memory/db-schema";
import { createTestDatabase, type TestDatabase } from "@verifiable-memory/db-schema/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ANCHOR_LOCK_KEY } from "../src/leader-lock.js";
import { startTestChain, type TestChain } from "./_chain.js";
import { makeUser, seedMemories, type TestUser } from "./_memories.js";
import { waitFor } from "./_wait.js";

const INTERVAL_MS = 1500;
const appDir = fileURLToPath(new URL("..", import.meta.url));

let t: TestDatabase;
let testChain: TestChain;
let dir: string;
let keypairPath: string;
const children: ChildProcess[] = [];

beforeAll(async () => {
  [t, testChain, dir] = await Promise.all([
    createTestDatabase({ max: 4 }),
    startTestChain(),
    mkdtemp(join(tmpdir(), "svc-anchor-worker-")),
  ]);
  const authority = await testChain.authority();
  keypairPath = join(dir, "authority.json");
  await writeFile(keypairPath, JSON.stringify([...authority.secretKey]), { mode: 0o600 });
});

afterAll(async () => {
  for (const child of children) {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill("SIGKILL");
    }
  }
  await Promise.all([t?.close(), testChain?.close(), rm(dir, { recursive: true, force: true })]);
});

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

interface Instance {
  readonly child: ChildProcess;
  readonly port: number;
  readonly output: string[];
}

async function startInstance(): Promise<Instance> {
  const port = await freePort();
  const child = spawn(process.execPath, ["--import", "tsx", "src/main.ts"], {
    cwd: appDir,
    env: {
      PATH: process.env.PATH,
      DATABASE_URL: t.url,
      CHAIN_RPC_URL: testChain.url,
      SERVICE_PROGRAM_ID: testChain.programId,
      AUTHORITY_KEYPAIR_PATH: keypairPath,
      ANCHOR_PORT: String(port),
      ANCHOR_INTERVAL_MS: String(INTERVAL_MS),
      SEAL_MAX_AGE_MS: "0",
      // Leader election, not batching: each sweep commits every sealed user (the default batches
      // existing users once an hour, and this test anchors their later writes after a takeover).
      USER_ANCHOR_INTERVAL_MS: "0",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(child);
  const output: string[] = [];
  child.stdout?.on("data", (chunk: Buffer) => output.push(chunk.toString()));
  child.stderr?.on("data", (chunk: Buffer) => output.push(chunk.toString()));
  return { child, port, output };
}

/** The instance's metrics as name → value, or null while it does not answer. */
async function metricsOf(instance: Instance): Promise<Map<string, number> | null> {
  try {
    const res = await fetch(`http://127.0.0.1:${instance.port}/metrics`);
    const text = await res.text();
    return new Map(
      text
        .split("\n")
        .filter((line) => line && !line.startsWith("#"))
        .map((line) => {
          const at = line.lastIndexOf(" ");
          return [line.slice(0, at), Number(line.slice(at + 1))] as const;
        }),
    );
  } catch {
    return null;
  }
}

const leaderOf = async (instance: Instance) => (await metricsOf(instance))?.get("anchor_is_leader");

async function allAnchored(users: readonly TestUser[]): Promise<boolean> {
  for (const user of users) {
    const memories = await listMemoriesSince(t.db, user.id, -1);
    if (memories.some((m) => !m.anchored)) {
      return false;
    }
  }
  return true;
}

describe("two anchor-service processes", () => {
  it("one leads, the standby never commits, and takes over within one interval after kill -9", async () => {
    const first = await startInstance();
    await waitFor("the first instance to lead", async () => (await leaderOf(first)) === 1);
    const second = await startInstance();
    await waitFor(
      "the second instance to serve metrics",
      async () => (await metricsOf(second)) !== null,
    );

    const users = await Promise.all([makeUser(t.db), makeUser(t.db), makeUser(t.db)]);
    for (const user of users) {
      await seedMemories(t.db, user, 2);
    }
    await waitFor("the leader to anchor the first writes", () => allAnchored(users));
    // Two more sweeps of the leader: the standby tried the lock as often meanwhile, never sweeping.
    const sweeps = async () => (await metricsOf(first))?.get("anchor_sweeps_total") ?? 0;
    const swept = await sweeps();
    await waitFor("two more sweeps of the leader", async () => (await sweeps()) >= swept + 2);
    const standby = await metricsOf(second);
    expect(standby?.get("anchor_is_leader")).toBe(0);
    expect(standby?.get("anchor_sweeps_total")).toBe(0);
    expect(standby?.get('anchor_commits_total{outcome="confirmed"}') ?? 0).toBe(0);
    expect((await metricsOf(first))?.get('anchor_commits_total{outcome="confirmed"}')).toBe(3);

    first.child.kill("SIGKILL");
    const killedAt = Date.now();
    await once(first.child, "exit");
    await waitFor("the standby to take over", async () => (await leaderOf(second)) === 1, 10_000);
    const takeoverMs = Date.now() - killedAt;
    // Within one interval (plus scheduling slack on a busy 2-core machine).
    expect(takeoverMs).toBeLessThanOrEqual(INTERVAL_MS + 1000);

    for (const user of users) {
      await seedMemories(t.db, user, 1);
    }
    await waitFor("the new leader to anchor the later writes", () => allAnchored(users));
    const leader = await metricsOf(second);
    expect(leader?.get('anchor_commits_total{outcome="confirmed"}')).toBe(3);
    expect(await countBatchesByStatus(t.db)).toEqual({ submitted: 0, confirmed: 6, failed: 0 });

    second.child.kill("SIGTERM");
    const [code] = (await once(second.child, "exit")) as [number | null];
    expect(code).toBe(0);
    expect(second.output.join("")).toContain("anchor worker stopped");
    const held = await t.sql<{ n: string }[]>`
      select count(*) as n from pg_locks where locktype = 'advisory' and granted and objsubid = 1
        and classid::bigint = ${Math.floor(ANCHOR_LOCK_KEY / 2 ** 32)}
        and objid::bigint = ${ANCHOR_LOCK_KEY % 2 ** 32}`;
    expect(Number(held[0]?.n)).toBe(0);
  });
});
