/**
 * The search ranks this service supports, read from its own OpenAPI document (the `rank` enum of
 * `POST /memories/search`), so the console offers exactly what the service it points at can do,
 * whichever version that is.
 * @module
 */

/** What the console says of the ranks it knows; an unknown one is shown by its name. */
const LABELS: Readonly<Record<string, string>> = {
  recency: "Newest first (substring match)",
  relevance: "Relevance (BM25 over the words)",
  semantic: "Meaning (semantic similarity)",
  hybrid: "Hybrid (words and meaning)",
};

/** A rank and its label. */
export interface RankOption {
  readonly value: string;
  readonly label: string;
}

/** Follows a local `#/components/...` reference of `document`. */
function resolve(document: unknown, node: unknown): unknown {
  const ref = (node as { $ref?: unknown } | undefined)?.$ref;
  if (typeof ref !== "string" || !ref.startsWith("#/")) {
    return node;
  }
  return ref
    .slice(2)
    .split("/")
    .reduce<unknown>((at, part) => (at as Record<string, unknown> | undefined)?.[part], document);
}

/**
 * The `rank` values of `POST /memories/search` in `document` (an OpenAPI 3.1 document).
 * @returns the values in the document's order; `["recency"]` when the document names none.
 */
export function ranksOf(document: unknown): RankOption[] {
  const operation = (document as { paths?: Record<string, { post?: unknown }> }).paths?.[
    "/memories/search"
  ]?.post as { requestBody?: { content?: Record<string, { schema?: unknown }> } } | undefined;
  const schema = resolve(document, operation?.requestBody?.content?.["application/json"]?.schema);
  const rank = resolve(
    document,
    (schema as { properties?: Record<string, unknown> } | undefined)?.properties?.rank,
  ) as { enum?: unknown } | undefined;
  const values = Array.isArray(rank?.enum)
    ? rank.enum.filter((v): v is string => typeof v === "string")
    : [];
  return (values.length > 0 ? values : ["recency"]).map((value) => ({
    value,
    label: LABELS[value] ?? value,
  }));
}

/** Fetches `<apiUrl>/openapi.json` and reads its ranks ({@link ranksOf}). */
export async function fetchRanks(apiUrl: string): Promise<RankOption[]> {
  const res = await fetch(`${apiUrl}/openapi.json`);
  if (!res.ok) {
    throw new Error(`GET /openapi.json answered ${res.status}`);
  }
  return ranksOf(await res.json());
}
