/**
 * The recall figures of the memories bench: one user's 100 000 memories (BENCH_MEMORIES) over
 * HTTP, warm p50/p95 beside a raw in-process `includes` scan of the same plaintexts, and cold (the
 * first query of a freshly started app, the log sealed in recall segments first) beside a raw
 * per-row fetch-all + AES-256-GCM decrypt and beside its floor, the sealed segments fetched and
 * decrypted without decoding.
 * @module
 */
import { systemClock } from "@verifiable-memory/clock";
import type { Config } from "@verifiable-memory/core-api";
import type { DatabaseHandle } from "@verifiable-memory/db-schema";
import { RecallCache, type RecallQuery } from "@verifiable-memory/memory";
import { collectGarbage, type Figure, percentile, timeRuns } from "../lib.js";
import { serveCoreApi } from "../sign-in.bench.js";
import { FLOOR_NAME, segmentsFetchAndDecrypt } from "./cold-floor.js";
import {
  type BenchUser,
  NEEDLE,
  rawFetchAndDecrypt,
  rawScan,
  search,
  WARM_QUERIES,
  WARM_ROUNDS,
} from "./common.js";

/** Fresh apps started for the cold figures. */
const COLD_STARTS = 7;

/** Recall figures: warm and cold, over HTTP, beside the raw scan and the raw fetch + decrypt. */
export async function recallFigures(
  pg: DatabaseHandle,
  config: Config,
  apiUrl: string,
  user: BenchUser,
  contents: readonly string[],
): Promise<Figure[]> {
  const db = pg.db;
  const expected = rawScan(contents, NEEDLE, 20).length;
  if ((await rawFetchAndDecrypt(pg, user)).join("\n") !== contents.join("\n")) {
    throw new Error("the raw baseline does not open the seeded rows");
  }
  // Seal the user's full ranges into recall segments, as core-api does in the background.
  const sealer = new RecallCache({ db, clock: systemClock, maxBytes: config.recallCacheMaxBytes });
  const segments = await sealer.seal(user.userId, user.dataKey);
  // Cold: a fresh app (fresh recall cache) per start, interleaved with the raw baselines.
  const cold: number[] = [];
  const rawCold: number[] = [];
  const floor: number[] = [];
  for (let i = 0; i < COLD_STARTS; i++) {
    collectGarbage();
    rawCold.push(...(await timeRuns(() => rawFetchAndDecrypt(pg, user), 1, 0)));
    collectGarbage();
    floor.push(
      ...(await timeRuns(() => segmentsFetchAndDecrypt(db, user.userId, user.dataKey), 1, 0)),
    );
    const fresh = await serveCoreApi(db, config);
    collectGarbage();
    cold.push(...(await timeRuns(() => search(fresh.url, user, expected), 1, 0)));
    await fresh.close();
  }
  // Warm: the long-running app (cached by now) and an in-process RecallCache, beside the scan.
  await search(apiUrl, user, expected);
  const cache = new RecallCache({ db, clock: systemClock, maxBytes: config.recallCacheMaxBytes });
  const query: RecallQuery = {
    query: NEEDLE,
    caseSensitive: false,
    filter: {},
    rank: "recency",
    limit: 20,
  };
  await cache.search(user.userId, user.dataKey, query);
  const warm: number[] = [];
  const inProcess: number[] = [];
  const scan: number[] = [];
  for (let round = 0; round < WARM_ROUNDS; round++) {
    scan.push(...(await timeRuns(() => rawScan(contents, NEEDLE, 20), WARM_QUERIES)));
    warm.push(...(await timeRuns(() => search(apiUrl, user, expected), WARM_QUERIES)));
    inProcess.push(
      ...(await timeRuns(() => cache.search(user.userId, user.dataKey, query), WARM_QUERIES)),
    );
  }
  const rawScanName = "raw includes scan, in-process";
  const rawColdName = "raw postgres.js per-row fetch-all + AES-GCM decrypt";
  return [
    {
      name: "recall warm p50 (HTTP)",
      value: percentile(warm, 50),
      baseline: percentile(scan, 50),
      unit: "ms",
      baselineName: rawScanName,
      target: "≤ 5×",
    },
    {
      name: "recall warm p95 (HTTP)",
      value: percentile(warm, 95),
      baseline: percentile(scan, 95),
      unit: "ms",
      baselineName: rawScanName,
    },
    {
      name: "recall warm p50, RecallCache.search in-process",
      value: percentile(inProcess, 50),
      baseline: percentile(scan, 50),
      unit: "ms",
      baselineName: rawScanName,
    },
    {
      name: `recall cold p50 (HTTP, fresh app, ${COLD_STARTS} starts, ${segments} sealed segments)`,
      value: percentile(cold, 50),
      baseline: percentile(rawCold, 50),
      unit: "ms",
      baselineName: rawColdName,
      target: "≤ 0.2×",
    },
    {
      name: "recall cold p50 beside its floor",
      value: percentile(cold, 50),
      baseline: percentile(floor, 50),
      unit: "ms",
      baselineName: FLOOR_NAME,
      target: "≤ 2.5×",
    },
    {
      name: `recall cold p95 (HTTP, fresh app, ${COLD_STARTS} starts)`,
      value: percentile(cold, 95),
      baseline: percentile(rawCold, 95),
      unit: "ms",
      baselineName: rawColdName,
    },
  ];
}
