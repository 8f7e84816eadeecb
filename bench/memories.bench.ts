/**
 * Memories benchmark, on PostgreSQL, each figure beside its raw baseline measured
 * in the same run:
 * - recall of one user with 100 000 memories of ~200 bytes (POST /memories/search over HTTP, a
 *   query that scans every memory): warm p50/p95 beside a raw in-process `includes` scan of the
 *   same plaintexts; cold (the first query of a freshly started app on the same database, the
 *   user's log sealed in recall segments first) beside a raw per-row fetch-all with postgres.js +
 *   node:crypto AES-256-GCM decrypt of the same rows, and beside its floor: the same sealed
 *   segments fetched (one binary COPY, as the cold load does) and decrypted, not decoded;
 * - cold recall at 1 000 000 memories of one user: the first recall of a fresh
 *   process (bench/recall-cold-child.ts) beside one raw per-row fetch-all + decrypt, with the
 *   process's peak RSS and the cache's estimate of the log;
 * - agent recall at the same size: relevance ranking (BM25) beside the raw
 *   substring scan, and a filter-only query beside a raw in-process filter over the plaintexts;
 * - batch writes (POST /memories/batch, 4 clients × 64 items) beside raw single-row INSERTs with
 *   16 in flight, and beside raw 64-row INSERTs of the same rows;
 * - writes (POST /memories over HTTP to core-api run as its own process, src/main.ts as in
 *   production, from 16 concurrent clients with one keep-alive undici connection each), one user
 *   and 16 users, beside raw postgres.js single-row INSERTs, 16 in flight, into a plain table of
 *   the same columns; also the write path without HTTP, an empty hono route in its own process
 *   as the HTTP reference, and (Linux) the CPU per write of every side together;
 * - proofs (GET /memories/:id/proof over HTTP, and inclusionProof over nodeSource in-process) at
 *   100 000 and 1 000 000 leaves beside one SELECT by primary key;
 * - peak RSS (VmHWM in /proc/<pid>/status; Linux only) of core-api run as its own process
 *   once the 100 000-memory user is cached, beside the same process idle after start.
 * The 100 000 memories are written in-process through core-api's own write path (MemoryService
 * with its AppendQueue, in batches of 5 000): sealed bodies, real leaves, the persisted tree.
 * The 1 000 000-leaf tree is built in SQL in the node-hash store (sha256 level by level) around
 * 32 real memories placed at random leaf indices; proofs are then served by the real route.
 * Anchored checkpoints are inserted directly (no chain here). Sizes: BENCH_MEMORIES (100 000),
 * BENCH_BIG_TREE (1 000 000), BENCH_MILLION (the cold recall's user, 1 000 000; 0 skips it),
 * BENCH_WRITES (writes per case and round, 1 000).
 * Each figure is its own module under bench/memories/; this one seeds the users and runs them in
 * order. Database: DATABASE_URL's server when set, else an embedded PostgreSQL in a temporary directory;
 * a fresh database is created and dropped.
 * @module
 */

import { loadConfig } from "@verifiable-memory/core-api";
import { createDatabase, getTree } from "@verifiable-memory/db-schema";
import type { Hash } from "@verifiable-memory/merkle-log";
import { printFigures } from "./lib.js";
import { agentRecallFigures } from "./memories/agent-recall.js";
import { millionFigures } from "./memories/cold-million.js";
import { anchorAt, CLIENTS, memoryText, newUser, seed } from "./memories/common.js";
import { proofFigures, seedBigTree } from "./memories/proofs.js";
import { recallFigures } from "./memories/recall.js";
import { rssFigures } from "./memories/rss.js";
import { writeFigures } from "./memories/writes.js";
import { BENCH_ENV, benchDatabase, serveCoreApi } from "./sign-in.bench.js";

const MEMORIES = Number(process.env.BENCH_MEMORIES ?? 100_000);
const BIG_TREE = Number(process.env.BENCH_BIG_TREE ?? 1_000_000);
const MILLION = Number(process.env.BENCH_MILLION ?? 1_000_000);

/** Runs the benchmark and prints its figures. */
export async function run(): Promise<void> {
  const database = await benchDatabase("memories");
  const handle = createDatabase({ url: database.url, max: CLIENTS });
  const config = loadConfig(BENCH_ENV);
  const api = await serveCoreApi(handle.db, config);
  try {
    const db = handle.db;
    const reader = await newUser(api.url, db, config);
    const contents = Array.from({ length: MEMORIES }, (_, i) => memoryText(i));
    const ids = await seed(db, reader, contents);
    await handle.sql`analyze memories, merkle_nodes`;

    const n = MEMORIES.toLocaleString("en-US");
    const recall = await recallFigures(handle, config, api.url, reader, contents);
    printFigures(
      `recall: one user, ${n} memories of ~200 bytes, a query that scans them all`,
      recall,
    );
    printFigures(
      `agent recall: relevance ranking and filter-only queries over the same ${n} memories`,
      await agentRecallFigures(db, config, api.url, reader, contents),
    );
    if (process.platform === "linux") {
      const rss = await rssFigures(database.url, reader, contents);
      printFigures(`memory: core-api as its own process, ${n}-memory user cached`, rss);
    }

    const tree = await getTree(db, reader.userId);
    await anchorAt(db, reader.userId, MEMORIES, tree?.root as Hash);
    const big = await newUser(api.url, db, config);
    const bigIds = await seedBigTree(handle, big, BIG_TREE);
    printFigures("proofs (anchored checkpoint at the full size; 1 client)", [
      ...(await proofFigures(handle, api.url, reader, ids, MEMORIES)),
      ...(await proofFigures(handle, api.url, big, bigIds, BIG_TREE)),
    ]);

    const writer = await newUser(api.url, db, config);
    const writers = await Promise.all(
      Array.from({ length: CLIENTS }, () => newUser(api.url, db, config)),
    );
    printFigures("writes (~200-byte memories)", await writeFigures(database.url, writer, writers));

    // Last: a million rows just written keep autovacuum busy, which would slow the figures after.
    if (MILLION > 0) {
      const million = await newUser(api.url, db, config);
      printFigures(
        `cold recall at ${MILLION.toLocaleString("en-US")} memories (one user)`,
        await millionFigures(handle, database.url, million, MILLION),
      );
    }
  } finally {
    await api.close();
    await handle.close();
    await database.close();
  }
}
