/**
 * Anchoring benchmark (docs/protocol.md §7.7 "Leader election and the anchor service's surface"):
 * one anchor sweep over 1 000 active users (3 memories each, seeded with appendMemories) against
 * the local chain running as its own process (as under `pnpm start`), with the default
 * ANCHOR_MAX_IN_FLIGHT (8): the first sweep creates every commitment account (initialize + commit),
 * the second updates them after one more write per user. Figures: users sealed per second, and
 * sweep duration, each beside the local chain's raw commit rate measured in the same run
 * (sequential ChainClient.commit calls, no database). Sizes: BENCH_ANCHOR_USERS (default 1000),
 * BENCH_ANCHOR_BASELINE (default 150). Database: DATABASE_URL's server when set, else an embedded
 * PostgreSQL in a temporary directory; a fresh database is created and dropped.
 * @module
 */
import { spawn } from "node:child_process";
import { randomBytes, randomUUID } from "node:crypto";
import { chmod, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  appendMemories,
  createDatabase,
  type Database,
  migrateDatabase,
  upsertUserByPubkey,
} from "@verifiable-memory/db-schema";
import { requestAirdrop } from "@verifiable-memory/litesvm-rpc";
import { hashLeaf } from "@verifiable-memory/merkle-log";
import { startEmbeddedPostgres } from "@verifiable-memory/runtime";
import bs58 from "bs58";
// Relative imports: the root package does not depend on these workspace packages.
import { runSweep } from "../apps/anchor-service/src/index.js";
import { ChainClient, loadKeypairFile } from "../packages/chain-commit/src/index.js";
import { LOCAL_PROGRAM_ID } from "../programs/commitment/src/index.js";
import { writeSolanaKeypairFile } from "../scripts/lib/first-run.js";
import { printFigures } from "./lib.js";

const USERS = Number(process.env.BENCH_ANCHOR_USERS ?? 1000);
const BASELINE_COMMITS = Number(process.env.BENCH_ANCHOR_BASELINE ?? 150);
const MEMORIES_PER_USER = 3;
const MAX_IN_FLIGHT = 8;

/** Starts apps/local-chain/src/main.ts as a child process on a free port pair. */
async function localChain(dataDir: string): Promise<{ url: string; close(): Promise<void> }> {
  const child = spawn(process.execPath, ["--import", "tsx", "apps/local-chain/src/main.ts"], {
    env: {
      ...process.env,
      LOCAL_CHAIN_PORT: "0",
      DATA_DIR: dataDir,
      SERVICE_PROGRAM_ID: LOCAL_PROGRAM_ID,
    },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const url = await new Promise<string>((resolve, reject) => {
    let out = "";
    child.stdout?.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      const match = /JSON-RPC (http:\/\/\S+)/.exec(out);
      if (match?.[1]) {
        resolve(match[1]);
      }
    });
    child.once("exit", (code) => reject(new Error(`local chain exited (${code}): ${out}`)));
  });
  return {
    url,
    close: async () => {
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      await exited;
    },
  };
}

/** A PostgreSQL server URL for the bench and how to stop it. */
async function server(dir: string): Promise<{ adminUrl: string; stop(): Promise<void> }> {
  if (process.env.DATABASE_URL) {
    return { adminUrl: process.env.DATABASE_URL, stop: async () => {} };
  }
  const dataDir = join(dir, "pg");
  await chmod(dir, 0o755);
  const pg = await startEmbeddedPostgres({ dataDir, port: 0 });
  return { adminUrl: pg.url, stop: () => pg.stop() };
}

const silent = {
  level: "silent",
  child: () => silent,
  info: () => {},
  warn: () => {},
  error: () => {},
  debug: () => {},
} as unknown as Parameters<typeof runSweep>[0]["logger"];

async function seed(db: Database, owners: readonly { id: string }[], perUser: number) {
  for (const owner of owners) {
    await appendMemories(
      db,
      owner.id,
      Array.from({ length: perUser }, () => ({
        id: randomUUID(),
        ciphertext: randomBytes(64),
        iv: randomBytes(12),
        leafHash: hashLeaf(randomBytes(48)),
        metadata: {},
        createdAt: new Date(),
      })),
    );
  }
}

/** Runs the benchmark and prints its figures. */
export async function run(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), "svc-bench-anchor-"));
  const pg = await server(dir);
  const name = `svc_bench_anchor_${randomBytes(4).toString("hex")}`;
  const admin = createDatabase({ url: pg.adminUrl, max: 1 });
  await admin.sql.unsafe(`create database "${name}"`);
  const url = new URL(pg.adminUrl);
  url.pathname = `/${name}`;
  await migrateDatabase(url.toString());
  const handle = createDatabase({ url: url.toString(), max: MAX_IN_FLIGHT + 2 });
  const chain = await localChain(dir);
  try {
    const keypairPath = join(dir, "authority.json");
    await writeSolanaKeypairFile(keypairPath);
    const authority = loadKeypairFile(keypairPath);
    await requestAirdrop(chain.url, authority.publicKey.toBase58(), 1_000 * 1e9);
    const client = new ChainClient({ rpcUrl: chain.url, programId: LOCAL_PROGRAM_ID, authority });
    while ((await client.authorityBalance()) === 0) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }

    // Baseline: sequential commits straight through the chain client (no database).
    const baselineOwners = Array.from({ length: BASELINE_COMMITS }, () =>
      bs58.encode(randomBytes(32)),
    );
    const root = randomBytes(32);
    let t0 = performance.now();
    for (const owner of baselineOwners) {
      await client.commit(owner, root, 1, 0);
    }
    const firstRate = BASELINE_COMMITS / ((performance.now() - t0) / 1000);
    t0 = performance.now();
    for (const owner of baselineOwners) {
      await client.commit(owner, root, 2, 1);
    }
    const updateRate = BASELINE_COMMITS / ((performance.now() - t0) / 1000);

    const users = [];
    for (let i = 0; i < USERS; i++) {
      const { user } = await upsertUserByPubkey(handle.db, {
        ownerPubkey: bs58.encode(randomBytes(32)),
        makeWrappedKey: () => randomBytes(60),
      });
      users.push(user);
    }
    await seed(handle.db, users, MEMORIES_PER_USER);
    const sweep = () =>
      runSweep({
        db: handle.db,
        chain: client,
        logger: silent,
        config: { sealMaxPending: 256, sealMaxAgeMs: 0, maxInFlight: MAX_IN_FLIGHT },
      });
    const first = await sweep();
    await seed(handle.db, users, 1);
    const second = await sweep();
    for (const report of [first, second]) {
      if (report.committed !== USERS) {
        throw new Error(`sweep committed ${report.committed} of ${USERS} users`);
      }
    }

    const figure = (label: string, report: typeof first, rate: number, kind: string) => [
      {
        name: `sweep, ${USERS} users (${label}): users sealed/s`,
        value: report.committed / (report.durationMs / 1000),
        baseline: rate,
        unit: "commits/s",
        baselineName: `sequential ChainClient.commit (${kind})`,
        target: `≥ 1× (in flight ${MAX_IN_FLIGHT})`,
      },
      {
        name: `sweep, ${USERS} users (${label}): duration`,
        value: report.durationMs / 1000,
        baseline: USERS / rate,
        unit: "s",
        baselineName: `${USERS} sequential commits (${kind})`,
        target: "≪ ANCHOR_INTERVAL_MS (30 s)",
      },
    ];
    printFigures(`anchor sweep (${USERS} users × ${MEMORIES_PER_USER} memories, local chain)`, [
      ...figure("first anchors", first, firstRate, "initialize + commit"),
      ...figure("updates", second, updateRate, "commit"),
    ]);
  } finally {
    await chain.close();
    await handle.close();
    await admin.sql.unsafe(`drop database if exists "${name}" with (force)`);
    await admin.close();
    await pg.stop();
    await rm(dir, { recursive: true, force: true });
  }
}
