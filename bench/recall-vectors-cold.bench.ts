/**
 * Cold semantic recall with and without recall vector segments (docs/protocol.md §4.5 "Recall",
 * docs/data-model.md "Recall segments"): one user's `BENCH_VECTOR_MEMORIES` (default 20 000)
 * memories with a sealed random 384-dimension vector each, their content sealed in recall
 * segments (full ranges of 4 096 and the tail). Each round times the first semantic search of a
 * fresh RecallCache twice: with the user's vector segments deleted first (the baseline: vectors
 * read and opened row by row, as before vector segments), then after they are sealed again (the
 * full ranges' vectors read from segments, the tail's from rows). The two answers must be equal.
 * Database: DATABASE_URL's server when set, else an embedded PostgreSQL; a fresh database.
 * @module
 */
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { systemClock } from "@verifiable-memory/clock";
import { createDatabase, insertMemoryVectors, migrateDatabase } from "@verifiable-memory/db-schema";
import { encryptVector } from "@verifiable-memory/envelope-crypto";
import {
  AppendQueue,
  MemoryService,
  RecallCache,
  type RecallQuery,
} from "@verifiable-memory/memory";
import { createTestOwner } from "@verifiable-memory/memory/testing";
import { server } from "./anchor-setup.js";
import { median, percentile, printFigures } from "./lib.js";

const COUNT = Number(process.env.BENCH_VECTOR_MEMORIES ?? 20_000);
const DIMENSIONS = 384;
const ROUNDS = 7;
const MODEL_ID = `openai|http://127.0.0.1:1|bench|${DIMENSIONS}`;

/** Deterministic values in [-0.5, 0.5) (a linear congruential generator). */
function values(seed: number): () => number {
  let s = seed;
  return () => {
    s = (s * 1103515245 + 12345) & 0x7fffffff;
    return s / 0x7fffffff - 0.5;
  };
}

/** Runs the benchmark and prints its figures. */
export async function run(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), "svc-bench-vectors-cold-"));
  const pg = await server(dir);
  const name = `svc_bench_vectors_${randomBytes(4).toString("hex")}`;
  const admin = createDatabase({ url: pg.adminUrl, max: 1 });
  await admin.sql.unsafe(`create database "${name}"`);
  const url = new URL(pg.adminUrl);
  url.pathname = `/${name}`;
  await migrateDatabase(url.toString());
  const handle = createDatabase({ url: url.toString(), max: 8 });
  const db = handle.db;
  try {
    const user = await createTestOwner(db, randomBytes(32));
    const { userId } = user.owner;
    const service = new MemoryService({
      db,
      clock: systemClock,
      appendQueue: new AppendQueue(db, { maxBatch: 256 }),
      recall: new RecallCache({ db, clock: systemClock, maxBytes: 0 }),
    });
    const next = values(1);
    for (let start = 0; start < COUNT; start += 256) {
      const made = await Promise.all(
        Array.from({ length: Math.min(256, COUNT - start) }, (_, k) =>
          service.create(user.owner, user.dataKey, {
            content: `memory number ${start + k} about things`,
            metadata: {},
          }),
        ),
      );
      const sealed = made.map(({ id }) => ({
        memoryId: id,
        ...encryptVector(user.dataKey, Float32Array.from({ length: DIMENSIONS }, next), {
          userId,
          memoryId: id,
          modelId: MODEL_ID,
        }),
      }));
      await insertMemoryVectors(db, userId, MODEL_ID, sealed);
    }
    const query: RecallQuery = {
      query: "things",
      rank: "semantic",
      caseSensitive: false,
      filter: {},
      limit: 10,
      vector: { modelId: MODEL_ID, values: Float32Array.from({ length: DIMENSIONS }, next) },
    };
    const cache = () => new RecallCache({ db, clock: systemClock, maxBytes: 1 << 30 });
    await cache().seal(userId, user.dataKey);
    const rows: number[] = [];
    const segments: number[] = [];
    const timed = async (into: number[]) => {
      const fresh = cache();
      const t0 = process.hrtime.bigint();
      const answer = await fresh.search(userId, user.dataKey, query);
      into.push(Number(process.hrtime.bigint() - t0) / 1e6);
      return { fresh, answer };
    };
    for (let round = 0; round < ROUNDS; round++) {
      await handle.sql`delete from recall_vector_segments where user_id = ${userId}`;
      const before = await timed(rows);
      await before.fresh.sealVectors(userId, user.dataKey);
      const after = await timed(segments);
      if (JSON.stringify(after.answer) !== JSON.stringify(before.answer)) {
        throw new Error("cold answers with and without vector segments differ");
      }
    }
    const [sealed] = await handle.sql<{ n: number }[]>`
      select count(*)::int as n from recall_vector_segments where user_id = ${userId}`;
    const baselineName = "vectors read row by row";
    const section = `cold semantic recall: ${COUNT} memories, ${DIMENSIONS}-dimension vectors, ${sealed?.n} vector segments`;
    printFigures(section, [
      {
        name: "first search, vector segments (median)",
        value: median(segments),
        baseline: median(rows),
        unit: "ms",
        baselineName,
      },
      {
        name: "first search, vector segments (worst)",
        value: percentile(segments, 100),
        baseline: percentile(rows, 100),
        unit: "ms",
        baselineName,
      },
    ]);
  } finally {
    await handle.sql.end();
    await admin.sql.unsafe(`drop database if exists "${name}" with (force)`);
    await admin.sql.end();
    await pg.stop();
    await rm(dir, { recursive: true, force: true });
  }
}
