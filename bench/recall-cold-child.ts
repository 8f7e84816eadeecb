/**
 * One cold recall in a process of its own (run by bench/memories/cold-million.ts at 1 000 000
 * memories), so that its peak RSS is the load's own: connects to RECALL_DATABASE_URL, searches
 * RECALL_USER_ID's log with a fresh RecallCache (data key RECALL_DATA_KEY, hex) for
 * RECALL_QUERY, and prints one JSON line `{ coldMs, items, rssBeforeMiB, peakMiB, cachedMiB }`
 * (RSS from /proc/self/status; null off Linux).
 * @module
 */
import { systemClock } from "@verifiable-memory/clock";
import { createDatabase } from "@verifiable-memory/db-schema";
import { RecallCache } from "@verifiable-memory/memory";
import { procStatusMiB } from "./lib.js";

function required(name: string): string {
  const value = process.env[name];
  if (!value) {
    throw new Error(`${name} is not set`);
  }
  return value;
}

const handle = createDatabase({ url: required("RECALL_DATABASE_URL"), max: 4 });
try {
  const rssBeforeMiB = await procStatusMiB("self", "VmRSS");
  const cache = new RecallCache({ db: handle.db, clock: systemClock, maxBytes: 2 ** 32 });
  const started = performance.now();
  const result = await cache.search(
    required("RECALL_USER_ID"),
    Buffer.from(required("RECALL_DATA_KEY"), "hex"),
    {
      query: required("RECALL_QUERY"),
      caseSensitive: false,
      filter: {},
      rank: "recency",
      limit: 20,
    },
  );
  const coldMs = performance.now() - started;
  console.log(
    JSON.stringify({
      coldMs,
      items: result.items.length,
      rssBeforeMiB,
      peakMiB: await procStatusMiB("self", "VmHWM"),
      cachedMiB: cache.stats().bytes / 2 ** 20,
    }),
  );
} finally {
  await handle.close();
}
