/**
 * Runs of consecutive positions (a segment's content pieces, a cached log's text blocks and id
 * and metadata runs), each known by the position it starts at.
 * @module
 */

/**
 * The run holding `position`: the last of `runs` (ascending by `start`, the first starting at or
 * below `position`) that starts at or below it; a binary search.
 */
export function runAt<T extends { readonly start: number }>(
  runs: readonly T[],
  position: number,
): T {
  let low = 0;
  let high = runs.length - 1;
  while (low < high) {
    const middle = (low + high + 1) >>> 1;
    if ((runs[middle] as T).start <= position) {
      low = middle;
    } else {
      high = middle - 1;
    }
  }
  return runs[low] as T;
}
