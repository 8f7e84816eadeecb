/**
 * Recall over a user's cached log: the filter and the cursor, then recency order (a substring
 * found by `indexOf` over text blocks, or the newest memories passing the filter, read from an
 * equality index when the filter has an equality condition), relevance order (ranking.ts), or
 * semantic and hybrid order (semantic.ts).
 * @module
 */
import { compileFilter, equalityConditions, type MemoryPredicate } from "../memory-filter.js";
import type { PositionList } from "./indexes.js";
import { rankByRelevance } from "./ranking.js";
import { rankByHybrid, rankBySemantic } from "./semantic.js";
import { blockMatches, type TextBlock } from "./text-blocks.js";
import type { RecallQuery, RecallResult } from "./types.js";
import type { UserLog } from "./user-log.js";

/**
 * One page of recall over a user's log: the filter and the cursor first, then the ranking —
 * recency (a substring when a query is given, every memory otherwise; newest first) or relevance
 * (BM25 over the query's terms; highest score first, ties newest first). Looks for one match more
 * than `limit` to tell whether more follow. `scanned` counts the live memories examined: from the
 * newest down to the last match looked at in recency order, every live memory in relevance order.
 */
export function scan(log: UserLog, query: RecallQuery): RecallResult {
  if (query.limit < 1) {
    return { items: [], scanned: 0, more: false };
  }
  const filter = compileFilter(query.filter, log.filterColumns(query.filter));
  const verdicts = new Uint8Array(log.count);
  const accept = (position: number): boolean => {
    const known = verdicts[position] as number;
    if (known !== 0) {
      return known === 1;
    }
    const ok = log.isLive(position) && filter(position);
    verdicts[position] = ok ? 1 : 2;
    return ok;
  };
  if (query.rank === "relevance") {
    return rankByRelevance(log, query, accept);
  }
  if (query.rank === "semantic") {
    return rankBySemantic(log, query, accept);
  }
  if (query.rank === "hybrid") {
    return rankByHybrid(log, query, accept);
  }
  const before = query.after?.leafIndex;
  const acceptBefore =
    before === undefined
      ? accept
      : (position: number) => (log.leafIndexes[position] as number) < before && accept(position);
  const want = query.limit + 1;
  let matches: { found: number[]; scanned: number };
  if (query.query !== undefined) {
    matches = substringMatches(log, query.query, query.caseSensitive, acceptBefore, want);
  } else {
    const candidates = log.positionsWhere(equalityConditions(query.filter));
    matches =
      candidates === null
        ? newestMatching(log, filter, before ?? Number.POSITIVE_INFINITY, want)
        : newestAmong(log, candidates, filter, before ?? Number.POSITIVE_INFINITY, want);
  }
  const { found, scanned } = matches;
  const page = found.slice(0, query.limit);
  return { items: page.map((p) => log.entry(p)), scanned, more: found.length > query.limit };
}

/**
 * Positions of the newest `want` memories passing `filter` (and before the cursor's leaf index),
 * newest first: one pass over the columns, newest down.
 */
function newestMatching(
  log: UserLog,
  filter: MemoryPredicate,
  before: number,
  want: number,
): { found: number[]; scanned: number } {
  const found: number[] = [];
  let scanned = 0;
  const { sizes, leafIndexes } = log;
  let position = log.count - 1;
  // Skip what the cursor already returned (leaf indices ascend with positions).
  while (position >= 0 && (leafIndexes[position] as number) >= before) {
    if (sizes[position] !== 0) {
      scanned++;
    }
    position--;
  }
  for (; position >= 0 && found.length < want; position--) {
    if (sizes[position] === 0) {
      continue;
    }
    scanned++;
    if (filter(position)) {
      found.push(position);
    }
  }
  return { found, scanned };
}

/**
 * {@link newestMatching} over the positions an equality index listed (every memory that can pass
 * `filter` is among them): the same matches, and the same `scanned` (the live memories from the
 * newest down to the last match taken, or all of them when fewer than `want` match), without
 * reading the others.
 */
function newestAmong(
  log: UserLog,
  candidates: PositionList,
  filter: MemoryPredicate,
  before: number,
  want: number,
): { found: number[]; scanned: number } {
  const found: number[] = [];
  const { positions } = candidates;
  for (let i = candidates.length - 1; i >= 0; i--) {
    const position = positions[i] as number;
    if (
      (log.leafIndexes[position] as number) < before &&
      log.isLive(position) &&
      filter(position)
    ) {
      found.push(position);
      if (found.length >= want) {
        return { found, scanned: log.liveFrom(position) };
      }
    }
  }
  return { found, scanned: log.liveFrom(0) };
}

/** Positions of the newest `want` memories holding `query` and passing `accept`, newest first. */
function substringMatches(
  log: UserLog,
  query: string,
  caseSensitive: boolean,
  accept: (position: number) => boolean,
  want: number,
): { found: number[]; scanned: number } {
  const needle = caseSensitive ? query : query.toLowerCase();
  const found: number[] = [];
  let scanned = 0;
  const tail = caseSensitive ? log.tailTexts : log.tailFolded;
  for (let k = tail.length - 1; k >= 0; k--) {
    const position = log.tailStart + k;
    if (!log.isLive(position)) {
      continue;
    }
    scanned++;
    if ((tail[k] as string).includes(needle) && accept(position)) {
      found.push(position);
      if (found.length >= want) {
        return { found, scanned };
      }
    }
  }
  for (let b = log.blocks.length - 1; b >= 0; b--) {
    const block = log.blocks[b] as TextBlock;
    const hits = blockMatches(block, needle, caseSensitive, accept);
    const wanted = want - found.length;
    if (hits.length < wanted) {
      for (let h = hits.length - 1; h >= 0; h--) {
        found.push(block.start + (hits[h] as number));
      }
      scanned += block.live;
      continue;
    }
    // The page fills in this block: its live memories from the oldest match taken on were
    // examined.
    const from = hits[hits.length - wanted] as number;
    for (let h = hits.length - 1; h >= hits.length - wanted; h--) {
      found.push(block.start + (hits[h] as number));
    }
    for (let k = from; k < block.count; k++) {
      if (log.isLive(block.start + k)) {
        scanned++;
      }
    }
    break;
  }
  return { found, scanned };
}
