/**
 * The memories page: the search form and its results as an infinite, virtualised list over the
 * API's cursors (`GET /memories` or `POST /memories/search`, 200 per page). The last search is
 * kept for the tab, so coming back from a memory shows the same list.
 * @module
 */
import { useInfiniteQuery, useQuery } from "@tanstack/react-query";
import { type Memory, unwrap } from "@verifiable-memory/client";
import { type ReactNode, useCallback, useState } from "react";
import { useSession } from "../../api/context.js";
import { fetchRanks } from "../../api/ranks.js";
import { ErrorNotice } from "../../ui/error-notice.js";
import { EMPTY_SEARCH, requestOf, type SearchState } from "./filters.js";
import { MemoryList } from "./memory-list.js";
import { SearchForm } from "./search-form.js";

const PAGE_SIZE = 200;
const STORAGE_KEY = "vm-console.search";

/** The search kept for this tab, or the empty one (a `?namespace=` link starts from that). */
function initialSearch(search: string): SearchState {
  const namespace = new URLSearchParams(search).get("namespace");
  if (namespace !== null) {
    return { ...EMPTY_SEARCH, namespace };
  }
  try {
    const text = sessionStorage.getItem(STORAGE_KEY);
    return text === null ? EMPTY_SEARCH : { ...EMPTY_SEARCH, ...(JSON.parse(text) as object) };
  } catch {
    return EMPTY_SEARCH;
  }
}

/** One page of results, whichever route served it. */
interface ResultPage {
  readonly items: (Memory & { score?: number })[];
  readonly nextCursor: string | null;
}

/** The page. */
export function MemoriesPage(): ReactNode {
  const { client, endpoints, session } = useSession();
  const [search, setSearch] = useState<SearchState>(() => initialSearch(hashQuery()));
  const [formError, setFormError] = useState<string | null>(null);
  // Bumped by every submit, so searching again fetches again even with the same filters.
  const [generation, setGeneration] = useState(0);
  const ranks = useQuery({
    queryKey: ["ranks", endpoints.apiUrl],
    queryFn: () => fetchRanks(endpoints.apiUrl),
    staleTime: Number.POSITIVE_INFINITY,
  });
  const namespaces = useQuery({
    queryKey: ["namespaces", "names", session.token],
    queryFn: async () =>
      (await unwrap(client.raw.GET("/namespaces", { params: { query: { limit: 200 } } }))).items
        .map((n) => n.namespace)
        .filter((n): n is string => n !== null),
  });

  let request: ReturnType<typeof requestOf> | null = null;
  try {
    request = requestOf(search, PAGE_SIZE);
  } catch (error) {
    request = null;
    if (formError !== (error as Error).message) {
      setFormError((error as Error).message);
    }
  }
  const results = useInfiniteQuery({
    queryKey: ["memories", session.token, request, generation],
    enabled: request !== null,
    initialPageParam: null as string | null,
    getNextPageParam: (page: ResultPage) => page.nextCursor,
    queryFn: async ({ pageParam }): Promise<ResultPage> => {
      if (request === null) {
        return { items: [], nextCursor: null };
      }
      const cursor = pageParam === null ? {} : { cursor: pageParam };
      if (request.kind === "list") {
        return unwrap(
          client.raw.GET("/memories", {
            params: { query: { ...request.query, ...cursor } as never },
          }),
        );
      }
      return unwrap(
        client.raw.POST("/memories/search", { body: { ...request.body, ...cursor } as never }),
      ) as Promise<ResultPage>;
    },
  });
  const items = results.data?.pages.flatMap((page) => page.items) ?? [];
  const loadMore = useCallback(() => void results.fetchNextPage(), [results.fetchNextPage]);

  const apply = (next: SearchState) => {
    setFormError(null);
    setSearch(next);
    setGeneration((current) => current + 1);
    try {
      sessionStorage.setItem(STORAGE_KEY, JSON.stringify(next));
    } catch {
      // The search is then forgotten on reload.
    }
  };

  return (
    <section aria-labelledby="memories-title">
      <h1 id="memories-title">Memories</h1>
      <SearchForm
        initial={search}
        ranks={ranks.data ?? [{ value: "recency", label: "Newest first (substring match)" }]}
        namespaces={namespaces.data ?? []}
        onSearch={apply}
      />
      {formError !== null && (
        <p role="alert" className="notice notice-error">
          {formError}
        </p>
      )}
      {results.error !== null && (
        <ErrorNotice error={results.error} onRetry={() => void results.refetch()} />
      )}
      <p role="status" className="result-count">
        {results.isPending
          ? "Searching…"
          : `${items.length}${results.hasNextPage ? "+" : ""} ${items.length === 1 ? "memory" : "memories"}`}
      </p>
      <MemoryList
        items={items}
        hasMore={results.hasNextPage}
        loading={results.isFetchingNextPage}
        loadMore={loadMore}
      />
    </section>
  );
}

/** The query string of the hash route (`#/?namespace=…`). */
function hashQuery(): string {
  const at = location.hash.indexOf("?");
  return at === -1 ? "" : location.hash.slice(at + 1);
}
