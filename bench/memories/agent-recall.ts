/**
 * The agent recall figures of the memories bench, warm, over the same user's memories: relevance
 * ranking (BM25 over the cache) beside the raw substring scan, and a filter-only query
 * (`metadata: { n: 7 }`, no text) beside a raw in-process filter over the plaintexts and metadata;
 * over HTTP and in-process, and in-process beside the refresh statement alone (the one round trip
 * a warm search waits for).
 * @module
 */
import { systemClock } from "@verifiable-memory/clock";
import type { Config } from "@verifiable-memory/core-api";
import { type Database, readRecallPage } from "@verifiable-memory/db-schema";
import { RecallCache, type RecallQuery } from "@verifiable-memory/memory";
import { type Figure, percentile, timeRuns } from "../lib.js";
import { postJson } from "../sign-in.bench.js";
import {
  type BenchUser,
  metadataOf,
  NEEDLE,
  rawScan,
  WARM_QUERIES,
  WARM_ROUNDS,
} from "./common.js";

/** Two of WORDS: relevance ranks the memories holding either (most of them). */
const RELEVANCE_QUERY = "ledger anchor";

/** Raw filter baseline: newest-first `metadata.n === n` over the plaintext objects, stopping at `limit`. */
function rawFilter(
  items: readonly { content: string; metadata: { n: number } }[],
  n: number,
  limit: number,
): string[] {
  const found: string[] = [];
  for (let i = items.length - 1; i >= 0 && found.length < limit; i--) {
    const item = items[i] as { content: string; metadata: { n: number } };
    if (item.metadata.n === n) {
      found.push(item.content);
    }
  }
  return found;
}

/**
 * The agent memory model's recall figures, warm: relevance ranking (BM25 over
 * the cache) beside the raw substring scan, and a filter-only query (`metadata: { n: 7 }`, no
 * text) beside a raw in-process filter over the same plaintexts and metadata; HTTP and in-process.
 */
export async function agentRecallFigures(
  db: Database,
  config: Config,
  apiUrl: string,
  user: BenchUser,
  contents: readonly string[],
): Promise<Figure[]> {
  const items = contents.map((content, i) => ({ content, metadata: metadataOf(i) }));
  const expectedFiltered = rawFilter(items, 7, 20).length;
  const cache = new RecallCache({ db, clock: systemClock, maxBytes: config.recallCacheMaxBytes });
  const relevance: RecallQuery = {
    query: RELEVANCE_QUERY,
    caseSensitive: false,
    filter: {},
    rank: "relevance",
    limit: 20,
  };
  const filterOnly: RecallQuery = {
    caseSensitive: false,
    filter: { metadata: { n: 7 } },
    rank: "recency",
    limit: 20,
  };
  const httpSearch = async (body: Record<string, unknown>, expected: number) => {
    const res = await postJson<{ items: unknown[] }>(
      `${apiUrl}/memories/search`,
      body,
      user.headers,
    );
    if (res.status !== 200 || res.body.items.length !== expected) {
      throw new Error(`search ${JSON.stringify(body)}: ${res.status}, ${res.body.items?.length}`);
    }
  };
  const relevanceBody = { query: RELEVANCE_QUERY, rank: "relevance", limit: 20 };
  const filterBody = { metadata: { n: 7 }, limit: 20 };
  await cache.search(user.userId, user.dataKey, relevance);
  await httpSearch(relevanceBody, 20);
  await httpSearch(filterBody, expectedFiltered);
  const inFiltered = await cache.search(user.userId, user.dataKey, filterOnly);
  if (inFiltered.items.length !== expectedFiltered) {
    throw new Error("the filter-only search disagrees with the raw filter");
  }
  const samples: Record<string, number[]> = {
    scan: [],
    filter: [],
    relevanceHttp: [],
    relevanceIn: [],
    filterHttp: [],
    filterIn: [],
    refresh: [],
  };
  // What every warm search waits for: its refresh statement when nothing changed (no new leaf
  // after the last one, deletions since five minutes ago, as the cache asks).
  const refreshOnly = () =>
    readRecallPage(
      db,
      user.userId,
      {
        afterLeafIndex: contents.length - 1,
        limit: 10_000,
        deletedSince: new Date(Date.now() - 300_000),
      },
      () => {
        throw new Error("the bench user has no memory after its seeded ones");
      },
    );
  for (let round = 0; round < WARM_ROUNDS; round++) {
    samples.scan?.push(...(await timeRuns(() => rawScan(contents, NEEDLE, 20), WARM_QUERIES)));
    samples.filter?.push(...(await timeRuns(() => rawFilter(items, 7, 20), WARM_QUERIES)));
    samples.relevanceHttp?.push(
      ...(await timeRuns(() => httpSearch(relevanceBody, 20), WARM_QUERIES)),
    );
    samples.relevanceIn?.push(
      ...(await timeRuns(() => cache.search(user.userId, user.dataKey, relevance), WARM_QUERIES)),
    );
    samples.filterHttp?.push(
      ...(await timeRuns(() => httpSearch(filterBody, expectedFiltered), WARM_QUERIES)),
    );
    samples.filterIn?.push(
      ...(await timeRuns(() => cache.search(user.userId, user.dataKey, filterOnly), WARM_QUERIES)),
    );
    samples.refresh?.push(...(await timeRuns(refreshOnly, WARM_QUERIES)));
  }
  const p50 = (name: string) => percentile(samples[name] ?? [], 50);
  const rawScanName = "raw includes scan, in-process";
  const rawFilterName = "raw in-process filter over the plaintext objects";
  return [
    {
      name: `relevance recall warm p50 (HTTP, BM25, "${RELEVANCE_QUERY}")`,
      value: p50("relevanceHttp"),
      baseline: p50("scan"),
      unit: "ms",
      baselineName: rawScanName,
      target: "≤ 5×",
    },
    {
      name: "relevance recall warm p50, RecallCache.search in-process",
      value: p50("relevanceIn"),
      baseline: p50("scan"),
      unit: "ms",
      baselineName: rawScanName,
    },
    {
      name: "filter-only recall warm p50 (HTTP, metadata { n: 7 }, no query)",
      value: p50("filterHttp"),
      baseline: p50("filter"),
      unit: "ms",
      baselineName: rawFilterName,
    },
    {
      name: "filter-only recall warm p50, RecallCache.search in-process",
      value: p50("filterIn"),
      baseline: p50("filter"),
      unit: "ms",
      baselineName: rawFilterName,
      target: "≤ 2×",
    },
    {
      name: "filter-only recall warm p50, in-process, beside its refresh round trip",
      value: p50("filterIn"),
      baseline: p50("refresh"),
      unit: "ms",
      baselineName:
        "readRecallPage alone, nothing new (the round trip every warm search waits for)",
    },
  ];
}
