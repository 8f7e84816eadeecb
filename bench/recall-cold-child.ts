/**
 * One cold recall in a process of its own (run by bench/memories/cold-million.ts at 1 000 000
 * memories), so that its peak RSS is the load's own: connects to RECALL_DATABASE_URL, searches
 * RECALL_USER_ID's log with a fresh RecallCache (data key RECALL_DATA_KEY, hex) for
 * RECALL_QUERY, and prints one JSON line `{ coldMs, items, rssBeforeMiB, peakMiB, cachedMiB }`
 * (RSS from /proc/self/status; null off Linux). With RECALL_FLOOR=1 it times the cold load's floor
 * instead, in the same fresh-process conditions: the user's segments fetched by one binary COPY and
 * decrypted, nothing decoded or kept; it prints `{ floorMs, bytes }`.
 * @module
 */
import { systemClock } from "@verifiable-memory/clock";
import { createDatabase, type Database } from "@verifiable-memory/db-schema";
import { RecallCache } from "@verifiable-memory/memory";
import { procStatusMiB } from "./lib.js";
import { segmentsFetchAndDecrypt } from "./memories/cold-floor.js";

function required(name: string): string {
  const value = process.env[name];
  if (!value) {
    throw new Error(`${name} is not set`);
  }
  return value;
}

/** The floor in this fresh process: its time and the plaintext bytes opened. */
async function floorLoad(db: Database, userId: string, dataKey: Uint8Array): Promise<object> {
  const started = performance.now();
  const bytes = await segmentsFetchAndDecrypt(db, userId, dataKey);
  return { floorMs: performance.now() - started, bytes };
}

/** The first recall of a fresh RecallCache, with the process's RSS before and at its peak. */
async function coldLoad(db: Database, userId: string, dataKey: Uint8Array): Promise<object> {
  const rssBeforeMiB = await procStatusMiB("self", "VmRSS");
  const cache = new RecallCache({ db, clock: systemClock, maxBytes: 2 ** 32 });
  const started = performance.now();
  const result = await cache.search(userId, dataKey, {
    query: required("RECALL_QUERY"),
    caseSensitive: false,
    filter: {},
    rank: "recency",
    limit: 20,
  });
  const coldMs = performance.now() - started;
  return {
    coldMs,
    items: result.items.length,
    rssBeforeMiB,
    peakMiB: await procStatusMiB("self", "VmHWM"),
    cachedMiB: cache.stats().bytes / 2 ** 20,
  };
}

const handle = createDatabase({ url: required("RECALL_DATABASE_URL"), max: 4 });
try {
  const load = process.env.RECALL_FLOOR === "1" ? floorLoad : coldLoad;
  const userId = required("RECALL_USER_ID");
  const dataKey = Buffer.from(required("RECALL_DATA_KEY"), "hex");
  console.log(JSON.stringify(await load(handle.db, userId, dataKey)));
} finally {
  await handle.close();
}
