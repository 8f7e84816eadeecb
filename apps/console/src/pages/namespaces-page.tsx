/**
 * The namespaces of the caller's memories with their counts (`GET /namespaces`, within an API
 * key's confinement), each a link to the memories in it.
 * @module
 */
import { useInfiniteQuery } from "@tanstack/react-query";
import { unwrap } from "@verifiable-memory/client";
import type { ReactNode } from "react";
import { Link } from "wouter";
import { useSession } from "../api/context.js";
import { ErrorNotice } from "../ui/error-notice.js";
import { when } from "../ui/format.js";

/** The page. */
export function NamespacesPage(): ReactNode {
  const { client, session } = useSession();
  const pages = useInfiniteQuery({
    queryKey: ["namespaces", session.token],
    initialPageParam: null as string | null,
    getNextPageParam: (page: { nextCursor: string | null }) => page.nextCursor,
    queryFn: ({ pageParam }) =>
      unwrap(
        client.raw.GET("/namespaces", {
          params: { query: { limit: 200, ...(pageParam === null ? {} : { cursor: pageParam }) } },
        }),
      ),
  });
  const items = pages.data?.pages.flatMap((page) => page.items) ?? [];
  const total = items.reduce((sum, item) => sum + item.count, 0);
  return (
    <section aria-labelledby="namespaces-title">
      <h1 id="namespaces-title">Namespaces</h1>
      {pages.error !== null && (
        <ErrorNotice error={pages.error} onRetry={() => void pages.refetch()} />
      )}
      {pages.isPending ? (
        <p aria-busy="true">Loading namespaces…</p>
      ) : items.length === 0 ? (
        <p>No memories yet.</p>
      ) : (
        <>
          <p>
            {total} current {total === 1 ? "memory" : "memories"} in {items.length}{" "}
            {items.length === 1 ? "group" : "groups"}
            {pages.hasNextPage ? " so far" : ""}.
          </p>
          <div className="table-scroll">
            <table>
              <thead>
                <tr>
                  <th scope="col">Namespace</th>
                  <th scope="col">Memories</th>
                  <th scope="col">Last written</th>
                </tr>
              </thead>
              <tbody>
                {items.map((item) => (
                  <tr key={item.namespace ?? ""}>
                    <td>
                      {item.namespace === null ? (
                        "(no namespace)"
                      ) : (
                        <Link href={`/?namespace=${encodeURIComponent(item.namespace)}`}>
                          <code>{item.namespace}</code>
                        </Link>
                      )}
                    </td>
                    <td>{item.count}</td>
                    <td>{when(item.lastWrittenAt)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          {pages.hasNextPage && (
            <button
              type="button"
              className="secondary"
              onClick={() => void pages.fetchNextPage()}
              aria-busy={pages.isFetchingNextPage}
            >
              More namespaces
            </button>
          )}
        </>
      )}
    </section>
  );
}
