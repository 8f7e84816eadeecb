/**
 * The memories found, as a virtualised list (@tanstack/react-virtual): only the rows in view (and
 * a few around) are in the page, so scrolling stays smooth with 100 000 memories; the next page
 * of the cursor is fetched when the end comes into view.
 * @module
 */
import { useVirtualizer } from "@tanstack/react-virtual";
import type { Memory } from "@verifiable-memory/client";
import { type ReactNode, useEffect, useRef } from "react";
import { Link } from "wouter";
import { when } from "../../ui/format.js";

/** Pixel height the list assumes of a row before measuring it. */
const ROW_ESTIMATE = 76;

/** The list of `items`; `loadMore` is called when the end is in view and `hasMore`. */
export function MemoryList(props: {
  readonly items: readonly (Memory & { readonly score?: number })[];
  readonly hasMore: boolean;
  readonly loading: boolean;
  readonly loadMore: () => void;
}): ReactNode {
  const { items, hasMore, loading, loadMore } = props;
  const scroller = useRef<HTMLElement>(null);
  const virtualizer = useVirtualizer({
    count: items.length + (hasMore ? 1 : 0),
    getScrollElement: () => scroller.current,
    estimateSize: () => ROW_ESTIMATE,
    overscan: 8,
  });
  const rows = virtualizer.getVirtualItems();
  const last = rows.at(-1);
  useEffect(() => {
    if (last !== undefined && last.index >= items.length - 1 && hasMore && !loading) {
      loadMore();
    }
  }, [last, items.length, hasMore, loading, loadMore]);

  return (
    <section
      ref={scroller}
      className="memory-scroller"
      data-testid="memory-scroller"
      // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must be reachable by keyboard to scroll it
      tabIndex={0}
      aria-label={`${items.length}${hasMore ? "+" : ""} memories`}
    >
      <ul className="memory-rows" style={{ height: `${virtualizer.getTotalSize()}px` }}>
        {rows.map((row) => {
          const memory = items[row.index];
          return (
            <li
              key={row.key}
              data-index={row.index}
              ref={virtualizer.measureElement}
              className="memory-row"
              style={{ transform: `translateY(${row.start}px)` }}
              aria-setsize={hasMore ? -1 : items.length}
              aria-posinset={row.index + 1}
            >
              {memory === undefined ? (
                <span aria-busy="true">Loading more…</span>
              ) : (
                <Link href={`/memories/${memory.id}`} className="memory-link">
                  <span className="memory-content">{memory.content}</span>
                  <span className="memory-meta">
                    <span>{when(memory.createdAt)}</span>
                    {memory.namespace !== null && <code>{memory.namespace}</code>}
                    <span>leaf {memory.leafIndex}</span>
                    <span className={memory.anchored ? "badge badge-ok" : "badge"}>
                      {memory.anchored ? "anchored" : "not anchored yet"}
                    </span>
                    {memory.supersededBy !== null && <span className="badge">superseded</span>}
                    {memory.score !== undefined && <span>score {memory.score.toFixed(3)}</span>}
                  </span>
                </Link>
              )}
            </li>
          );
        })}
      </ul>
    </section>
  );
}
