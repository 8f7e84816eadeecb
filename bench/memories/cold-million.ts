/**
 * The cold recall figure at 1 000 000 memories of one user (BENCH_MILLION): the first recall of
 * a fresh process (bench/recall-cold-child.ts) beside one raw per-row fetch-all + decrypt and
 * beside its floor, with the process's peak RSS and the cache's estimate of the log.
 * @module
 */
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { systemClock } from "@verifiable-memory/clock";
import type { DatabaseHandle } from "@verifiable-memory/db-schema";
import { RecallCache } from "@verifiable-memory/memory";
import { collectGarbage, type Figure, percentile, timeRuns } from "../lib.js";
import { FLOOR_NAME } from "./cold-floor.js";
import { type BenchUser, memoryText, NEEDLE, rawFetchAndDecrypt, rawScan, seed } from "./common.js";

/** Fresh processes, each loading the log cold once. */
const COLD_STARTS_BIG = 3;
const execFileAsync = promisify(execFile);

/** One cold recall measured by bench/recall-cold-child.ts in a process of its own. */
interface ChildColdLoad {
  readonly coldMs: number;
  readonly items: number;
  readonly rssBeforeMiB: number | null;
  readonly peakMiB: number | null;
  readonly cachedMiB: number;
}

/**
 * Cold recall at BENCH_MILLION memories (default 1 000 000, 0 skips): one user's
 * memories written through MemoryService and sealed into segments, then the database vacuumed
 * and checkpointed; then {@link COLD_STARTS_BIG} first recalls, each in a fresh process (so that
 * its peak RSS is the load's own), each after one run of its floor (the same segments fetched and
 * decrypted, in a fresh process too: the same JIT and heap conditions), beside one raw per-row
 * fetch-all + decrypt of the same rows; the process's peak RSS beside its RSS before the load;
 * the cache's estimate of the log beside the plaintexts' UTF-8 bytes.
 */
export async function millionFigures(
  pg: DatabaseHandle,
  databaseUrl: string,
  user: BenchUser,
  count: number,
): Promise<Figure[]> {
  const contents = Array.from({ length: count }, (_, i) => memoryText(i));
  await seed(pg.db, user, contents);
  const sealer = new RecallCache({ db: pg.db, clock: systemClock, maxBytes: 0 });
  const segments = await sealer.seal(user.userId, user.dataKey);
  const expected = rawScan(contents, NEEDLE, 20).length;
  const plaintextMiB = contents.reduce((sum, c) => sum + Buffer.byteLength(c), 0) / 2 ** 20;
  contents.length = 0;
  // A million rows just written (memories, their events, Merkle nodes, segments) leave autovacuum
  // due and hint bits unset: on two cores it would run beside the loads and time them, not the
  // recall (one run: 3.7 s with only memories and recall_segments vacuumed, 2.2 s in another).
  // A service's cold start reads settled rows: the whole database is vacuumed first, and a
  // checkpoint writes the dirty pages out before the timed loads rather than during them.
  await pg.sql`vacuum (analyze)`;
  await pg.sql`checkpoint`;
  const child = async <T>(floorOnly: boolean): Promise<T> => {
    // This process's garbage (a million writes) collected now, not beside the child's run.
    collectGarbage();
    const { stdout } = await execFileAsync(
      process.execPath,
      ["--import", "tsx", "bench/recall-cold-child.ts"],
      {
        env: {
          ...process.env,
          RECALL_DATABASE_URL: databaseUrl,
          RECALL_USER_ID: user.userId,
          RECALL_DATA_KEY: Buffer.from(user.dataKey).toString("hex"),
          RECALL_QUERY: NEEDLE,
          RECALL_FLOOR: floorOnly ? "1" : "0",
        },
        maxBuffer: 1 << 20,
      },
    );
    return JSON.parse(stdout.trim().split("\n").pop() ?? "") as T;
  };
  const loads: ChildColdLoad[] = [];
  const floor: number[] = [];
  for (let i = 0; i < COLD_STARTS_BIG; i++) {
    floor.push((await child<{ floorMs: number }>(true)).floorMs);
    const load = await child<ChildColdLoad>(false);
    if (load.items !== expected) {
      throw new Error(`cold recall at ${count}: ${load.items} of ${expected} matches`);
    }
    loads.push(load);
  }
  const raw = await timeRuns(() => rawFetchAndDecrypt(pg, user), 1, 0);
  const n = count.toLocaleString("en-US");
  const coldP50 = percentile(
    loads.map((l) => l.coldMs),
    50,
  );
  const figures: Figure[] = [
    {
      name: `recall cold p50 at ${n} memories (fresh process, ${segments} sealed segments, ${COLD_STARTS_BIG} runs)`,
      value: coldP50,
      baseline: percentile(raw, 50),
      unit: "ms",
      baselineName: "raw postgres.js per-row fetch-all + AES-GCM decrypt, 1 run",
      target: "≤ 0.2×",
    },
    {
      name: `recall cold p50 at ${n} memories beside its floor`,
      value: coldP50,
      baseline: percentile(floor, 50),
      unit: "ms",
      baselineName: `${FLOOR_NAME}, fresh process, ${COLD_STARTS_BIG} runs`,
      target: "≤ 2.5×",
    },
    {
      name: `recall cache estimate of the ${n}-memory log`,
      value: percentile(
        loads.map((l) => l.cachedMiB),
        50,
      ),
      baseline: plaintextMiB,
      unit: "MiB",
      baselineName: "the plaintexts' UTF-8 bytes",
    },
  ];
  const peaks = loads.flatMap((l) => (l.peakMiB === null ? [] : [l.peakMiB]));
  const before = loads.flatMap((l) => (l.rssBeforeMiB === null ? [] : [l.rssBeforeMiB]));
  if (peaks.length > 0 && before.length > 0) {
    figures.push({
      name: "peak RSS (VmHWM) of the process of that cold recall",
      value: percentile(peaks, 50),
      baseline: percentile(before, 50),
      unit: "MiB",
      baselineName: "the same process before the load",
    });
  }
  return figures;
}
