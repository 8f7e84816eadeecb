/**
 * Semantic and hybrid ranking of recall (docs/protocol.md §4.5 "Recall") over a user's cached
 * log and its vectors (vector-store.ts). `semantic`: the cosine similarity of the query's vector
 * with each memory's, highest first; memories without a vector of the query's model are left out
 * and counted in `unranked`. `hybrid`: reciprocal rank fusion (Cormack, Clarke & Büttcher, SIGIR
 * 2009) of the BM25 list and the cosine list, each cut at its best {@link FUSION_DEPTH}:
 * score = Σ 1 / (k + rank), k = {@link RRF_K}, rank from 1; a memory without a vector is ranked by
 * its BM25 rank alone (and counted in `unranked`). Ties and pages go by (score, leaf index), both
 * descending.
 * @module
 */
import { BestList, forEachBm25Score } from "./ranking.js";
import type { RecallQuery, RecallResult } from "./types.js";
import type { UserLog } from "./user-log.js";

/** Reciprocal rank fusion's k. */
export const RRF_K = 60;
/** How deep each list fused by `hybrid` goes. */
export const FUSION_DEPTH = 1000;

/** The live memories passing `accept` that have no vector of the log's current model. */
function unrankedCount(log: UserLog, accept: (position: number) => boolean): number {
  const store = log.vectors;
  let unranked = 0;
  for (let position = 0; position < log.count; position++) {
    if (!store?.has(position) && log.isLive(position) && accept(position)) {
      unranked++;
    }
  }
  return unranked;
}

/**
 * The cosine ranking: every stored vector scored (an exhaustive scan), the best `want` passing
 * `accept` after the cursor kept. Vectors of another model than the query's are never compared:
 * the log holds the vectors of `query.vector.modelId` only (the cache loads them so).
 */
function cosineBest(
  log: UserLog,
  query: RecallQuery,
  accept: (position: number) => boolean,
  want: number,
  after?: { score: number; leafIndex: number },
): BestList {
  const best = new BestList(want, (position) => log.leafIndexes[position] as number, accept, after);
  const store = log.vectors;
  if (store !== null && query.vector !== undefined && store.modelId === query.vector.modelId) {
    store.scan(query.vector.values, (position, score) => {
      if (log.isLive(position)) {
        best.offer(position, score);
      }
    });
  }
  return best;
}

/** `rank: "semantic"`: cosine similarity, highest first; `unranked` counts those without a vector. */
export function rankBySemantic(
  log: UserLog,
  query: RecallQuery,
  accept: (position: number) => boolean,
): RecallResult {
  const after = query.after?.rank === "semantic" ? query.after : undefined;
  const best = cosineBest(log, query, accept, query.limit + 1, after);
  return best.page(log, query.limit, log.liveCount, unrankedCount(log, accept));
}

/** `rank: "hybrid"`: reciprocal rank fusion of BM25 and cosine, each cut at its best 1 000. */
export function rankByHybrid(
  log: UserLog,
  query: RecallQuery,
  accept: (position: number) => boolean,
): RecallResult {
  const leafOf = (position: number) => log.leafIndexes[position] as number;
  const lexical = new BestList(FUSION_DEPTH, leafOf, accept);
  forEachBm25Score(log, query.query ?? "", (position, score) => lexical.offer(position, score));
  const semantic = cosineBest(log, query, accept, FUSION_DEPTH);
  const fused = new Map<number, number>();
  for (const list of [lexical, semantic]) {
    list.positions.forEach((position, i) => {
      fused.set(position, (fused.get(position) ?? 0) + 1 / (RRF_K + i + 1));
    });
  }
  const after = query.after?.rank === "hybrid" ? query.after : undefined;
  const best = new BestList(query.limit + 1, leafOf, () => true, after);
  for (const [position, score] of fused) {
    best.offer(position, score);
  }
  return best.page(log, query.limit, log.liveCount, unrankedCount(log, accept));
}
