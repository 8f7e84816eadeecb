/**
 * Relevance ranking of recall over a user's cached log: Okapi BM25 (relevance.ts) through the
 * log's inverted index, the best `limit + 1` kept in a bounded sorted list; and that bounded list
 * itself, which the semantic and hybrid ranks (semantic.ts) share.
 * @module
 */
import { inverseDocumentFrequency, termScore } from "./relevance.js";
import type { RecallQuery, RecallResult } from "./types.js";
import type { UserLog } from "./user-log.js";

/** Where a scored page starts: after this (score, leaf index), both descending. */
export interface ScoreCursor {
  readonly score: number;
  readonly leafIndex: number;
}

/**
 * A bounded list of the best `want` positions by (score, leaf index), both descending: a
 * candidate enters when it comes after the cursor, beats the worst kept and passes `accept`
 * (asked last: the costliest check).
 */
export class BestList {
  /** Positions kept, best first. */
  readonly positions: number[] = [];
  private readonly scores: number[] = [];

  constructor(
    private readonly want: number,
    private readonly leafOf: (position: number) => number,
    private readonly accept: (position: number) => boolean,
    private readonly after?: ScoreCursor,
  ) {}

  /** Offers `position` with `score`. */
  offer(position: number, score: number): void {
    const leaf = this.leafOf(position);
    const { after, positions, scores, want } = this;
    if (
      after !== undefined &&
      !(score < after.score || (score === after.score && leaf < after.leafIndex))
    ) {
      return;
    }
    if (positions.length === want) {
      const worst = scores[want - 1] as number;
      if (score < worst || (score === worst && leaf < this.leafOf(positions[want - 1] as number))) {
        return;
      }
    }
    if (!this.accept(position)) {
      return;
    }
    let low = 0;
    let high = positions.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      const s = scores[middle] as number;
      if (s > score || (s === score && this.leafOf(positions[middle] as number) > leaf)) {
        low = middle + 1;
      } else {
        high = middle;
      }
    }
    positions.splice(low, 0, position);
    scores.splice(low, 0, score);
    if (positions.length > want) {
      positions.pop();
      scores.pop();
    }
  }

  /** One page of `limit`: the entries with their scores, and whether more follow. */
  page(log: UserLog, limit: number, scanned: number, unranked?: number): RecallResult {
    const items = this.positions
      .slice(0, limit)
      .map((position, i) => ({ ...log.entry(position), score: this.scores[i] as number }));
    return {
      items,
      scanned,
      more: this.positions.length > limit,
      ...(unranked === undefined ? {} : { unranked }),
    };
  }
}

/**
 * Scratch arrays of {@link forEachBm25Score}, grown to the largest log searched and reused by every
 * search (one runs at a time): allocating 8 + 4 bytes per memory afresh for each search cost
 * about 3 ms at 100 000 memories on a host where new pages are slow to touch, more than the
 * scoring itself. Outside `RECALL_CACHE_MAX_BYTES` (12 bytes per memory of the largest log).
 */
let scratchScores = new Float64Array(0);
let scratchTouched = new Int32Array(0);

/**
 * Calls `visit(position, score)` with the BM25 score of every live memory holding a query term,
 * in the order the postings first reach it: the query's terms (the log's analyser; a query of stop
 * words only reads the stop-word index), each term's postings giving its live document frequency
 * and the contributions. `visit` must not start another search.
 */
export function forEachBm25Score(
  log: UserLog,
  text: string,
  visit: (position: number, score: number) => void,
): void {
  const { terms, stop } = log.analyser.queryTerms(text);
  const lengths = log.termIndex();
  const index = stop ? log.stopIndex() : lengths;
  const live = log.liveCount;
  const averageLength = live === 0 ? 0 : lengths.liveLength / live;
  if (scratchScores.length < log.count) {
    scratchScores = new Float64Array(log.count);
    scratchTouched = new Int32Array(log.count);
  }
  const scores = scratchScores;
  const touched = scratchTouched;
  let count = 0;
  try {
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
          touched[count++] = position;
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
    for (let i = 0; i < count; i++) {
      const position = touched[i] as number;
      visit(position, scores[position] as number);
    }
  } finally {
    for (let i = 0; i < count; i++) {
      scores[touched[i] as number] = 0;
    }
  }
}

/**
 * Relevance ranking over the log's inverted index ({@link forEachBm25Score}); the memories passing
 * `accept` and coming after the cursor are kept in a {@link BestList} of `limit + 1` (score, then
 * leaf index, both descending). `scanned` is every live memory.
 */
export function rankByRelevance(
  log: UserLog,
  query: RecallQuery,
  accept: (position: number) => boolean,
): RecallResult {
  const after = query.after?.rank === "relevance" ? query.after : undefined;
  const best = new BestList(
    query.limit + 1,
    (position) => log.leafIndexes[position] as number,
    accept,
    after,
  );
  forEachBm25Score(log, query.query ?? "", (position, score) => best.offer(position, score));
  return best.page(log, query.limit, log.liveCount);
}
