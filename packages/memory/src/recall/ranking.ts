/**
 * Relevance ranking of recall over a user's cached log: Okapi BM25 (relevance.ts) through the
 * log's inverted index, the best `limit + 1` kept in a bounded sorted list.
 * @module
 */
import { inverseDocumentFrequency, termScore } from "./relevance.js";
import type { RecallQuery, RecallResult } from "./types.js";
import type { UserLog } from "./user-log.js";

/**
 * Relevance ranking over the log's inverted index: the query's terms (the log's analyser; a query
 * of stop words only reads the stop-word index), each term's postings giving its live document
 * frequency and the BM25 contributions; the memories passing `accept` and coming after the cursor
 * are kept in a bounded sorted list of `limit + 1` (score, then leaf index, both descending).
 * `scanned` is every live memory.
 */
export function rankByRelevance(
  log: UserLog,
  query: RecallQuery,
  accept: (position: number) => boolean,
): RecallResult {
  const { terms, stop } = log.analyser.queryTerms(query.query ?? "");
  const lengths = log.termIndex();
  const index = stop ? log.stopIndex() : lengths;
  const live = log.liveCount;
  const averageLength = live === 0 ? 0 : lengths.liveLength / live;
  const scores = new Float64Array(log.ids.length);
  const touched: number[] = [];
  for (const term of terms) {
    const postings = index.terms.get(term);
    if (!postings) {
      continue;
    }
    let documents = 0;
    for (let i = 0; i < postings.length; i++) {
      if (log.isLive(postings.positions[i] as number)) {
        documents++;
      }
    }
    const idf = inverseDocumentFrequency(live, documents);
    for (let i = 0; i < postings.length; i++) {
      const position = postings.positions[i] as number;
      if (!log.isLive(position)) {
        continue;
      }
      if (scores[position] === 0) {
        touched.push(position);
      }
      scores[position] =
        (scores[position] as number) +
        termScore(
          idf,
          postings.counts[i] as number,
          lengths.lengths[position] as number,
          averageLength,
        );
    }
  }
  const leafOf = (position: number) => log.leafIndexes[position] as number;
  const after = query.after?.rank === "relevance" ? query.after : undefined;
  const want = query.limit + 1;
  // best[0] is the best kept; a candidate enters when it beats the worst kept.
  const best: number[] = [];
  const ahead = (a: number, b: number) =>
    (scores[a] as number) > (scores[b] as number) ||
    (scores[a] === scores[b] && leafOf(a) > leafOf(b));
  for (const position of touched) {
    const score = scores[position] as number;
    if (
      after !== undefined &&
      !(score < after.score || (score === after.score && leafOf(position) < after.leafIndex))
    ) {
      continue;
    }
    if (best.length === want && !ahead(position, best[want - 1] as number)) {
      continue;
    }
    if (!accept(position)) {
      continue;
    }
    let low = 0;
    let high = best.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (ahead(best[middle] as number, position)) {
        low = middle + 1;
      } else {
        high = middle;
      }
    }
    best.splice(low, 0, position);
    if (best.length > want) {
      best.pop();
    }
  }
  const page = best.slice(0, query.limit);
  return {
    items: page.map((position) => ({ ...log.entry(position), score: scores[position] as number })),
    scanned: live,
    more: best.length > query.limit,
  };
}
