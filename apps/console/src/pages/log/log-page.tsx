/**
 * The log page (loaded on demand): the tree's size and the anchored size (`GET /log`), a chart of
 * the anchored size over time and the table of anchored checkpoints with their transactions
 * (`GET /log/checkpoints`, newest first, more on request).
 * @module
 */
import { useInfiniteQuery, useQuery } from "@tanstack/react-query";
import { unwrap } from "@verifiable-memory/client";
import { type ReactNode, useMemo } from "react";
import { useSession } from "../../api/context.js";
import { ErrorNotice } from "../../ui/error-notice.js";
import { short, when } from "../../ui/format.js";
import { LogChart } from "./log-chart.js";

/** The page. */
export default function LogPage(): ReactNode {
  const { client, session } = useSession();
  const head = useQuery({ queryKey: ["log", session.token], queryFn: () => client.log.get() });
  const checkpoints = useInfiniteQuery({
    queryKey: ["checkpoints", session.token],
    initialPageParam: null as string | null,
    getNextPageParam: (page: { nextCursor: string | null }) => page.nextCursor,
    queryFn: ({ pageParam }) =>
      unwrap(
        client.raw.GET("/log/checkpoints", {
          params: { query: { limit: 200, ...(pageParam === null ? {} : { cursor: pageParam }) } },
        }),
      ),
  });
  const items = useMemo(
    () => checkpoints.data?.pages.flatMap((page) => page.items) ?? [],
    [checkpoints.data],
  );
  const series = useMemo(() => {
    const oldestFirst = [...items].reverse();
    return {
      times: oldestFirst.map((c) => Date.parse(c.anchoredAt) / 1000),
      sizes: oldestFirst.map((c) => c.treeSize),
    };
  }, [items]);

  return (
    <section aria-labelledby="log-title">
      <h1 id="log-title">Log</h1>
      {head.error !== null && (
        <ErrorNotice error={head.error} onRetry={() => void head.refetch()} />
      )}
      {head.data !== undefined && (
        <dl className="facts">
          <dt>Tree size</dt>
          <dd data-testid="tree-size">{head.data.treeSize} leaves</dd>
          <dt>Root</dt>
          <dd>
            <code>{head.data.rootHash}</code>
          </dd>
          <dt>Anchored</dt>
          <dd data-testid="anchored-size">
            {head.data.anchored === null
              ? "nothing yet"
              : `${head.data.anchored.treeSize} leaves (nonce ${head.data.anchored.nonce})`}
          </dd>
          <dt>Waiting for an anchor</dt>
          <dd>{head.data.treeSize - (head.data.anchored?.treeSize ?? 0)} leaves</dd>
        </dl>
      )}
      <h2>Anchored size over time</h2>
      {checkpoints.error !== null && <ErrorNotice error={checkpoints.error} />}
      {items.length === 0 ? (
        <p>No anchored checkpoint yet.</p>
      ) : (
        <>
          <LogChart times={series.times} sizes={series.sizes} />
          <p className="visually-hidden">
            From {series.sizes[0]} leaves to {series.sizes.at(-1)} leaves over {items.length}{" "}
            anchors.
          </p>
          <div className="table-scroll">
            <table>
              <caption>Anchored checkpoints, newest first</caption>
              <thead>
                <tr>
                  <th scope="col">Size</th>
                  <th scope="col">Root</th>
                  <th scope="col">Transaction</th>
                  <th scope="col">Slot</th>
                  <th scope="col">Anchored</th>
                </tr>
              </thead>
              <tbody>
                {items.map((c) => (
                  <tr key={c.treeSize}>
                    <td>{c.treeSize}</td>
                    <td>
                      <code title={c.rootHash}>{short(c.rootHash, 8)}</code>
                    </td>
                    <td>
                      <code title={c.signature}>{short(c.signature, 8)}</code>
                    </td>
                    <td>{c.slot ?? "—"}</td>
                    <td>{when(c.anchoredAt)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          {checkpoints.hasNextPage && (
            <button
              type="button"
              className="secondary"
              onClick={() => void checkpoints.fetchNextPage()}
              aria-busy={checkpoints.isFetchingNextPage}
            >
              Older checkpoints
            </button>
          )}
        </>
      )}
    </section>
  );
}
