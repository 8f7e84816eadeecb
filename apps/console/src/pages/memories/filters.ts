/**
 * The memories page's search, as a person fills it in, and how it becomes an API request:
 * `GET /memories` when only a namespace narrows the list (newest first), else `POST
 * /memories/search` with the query, the rank, metadata conditions (plain equality or the
 * operators `$in`, `$gte`, `$lte`, `$contains`: docs/protocol.md §4.5), the namespace and the
 * created-time range.
 * @module
 */

/** The metadata operators the form offers ("=" is plain equality). */
export const OPERATORS = ["=", "$in", "$gte", "$lte", "$contains"] as const;
/** One metadata operator of the form. */
export type Operator = (typeof OPERATORS)[number];

/** One metadata condition row: `key operator value`, value as typed. */
export interface MetadataRow {
  readonly key: string;
  readonly operator: Operator;
  readonly value: string;
}

/** The form's state. */
export interface SearchState {
  readonly query: string;
  readonly rank: string;
  readonly namespace: string;
  /** How `namespace` applies: exactly, or as a prefix. */
  readonly namespaceMatch: "exact" | "prefix";
  /** `datetime-local` values (local time), or "". */
  readonly createdAfter: string;
  readonly createdBefore: string;
  readonly metadata: readonly MetadataRow[];
  readonly includeSuperseded: boolean;
  readonly caseSensitive: boolean;
}

/** The empty search: every current memory, newest first. */
export const EMPTY_SEARCH: SearchState = {
  query: "",
  rank: "recency",
  namespace: "",
  namespaceMatch: "exact",
  createdAfter: "",
  createdBefore: "",
  metadata: [],
  includeSuperseded: false,
  caseSensitive: false,
};

/** A typed value: JSON when it parses (numbers, true, "quoted"…), else the text itself. */
export function typedValue(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/**
 * The metadata filter object of `rows` (rows without a key are ignored; two rows of one key
 * merge their operators).
 * @throws Error naming the row when an operator's value cannot be used (`$gte`/`$lte` need a
 *   number or text, `$in` a comma-separated list).
 */
export function metadataFilter(rows: readonly MetadataRow[]): Record<string, unknown> | null {
  const filter: Record<string, unknown> = {};
  for (const row of rows) {
    const key = row.key.trim();
    if (key === "") {
      continue;
    }
    if (row.operator === "=") {
      filter[key] = typedValue(row.value);
      continue;
    }
    const value =
      row.operator === "$in"
        ? row.value
            .split(",")
            .map((part) => part.trim())
            .filter((part) => part !== "")
            .map(typedValue)
        : typedValue(row.value);
    if (row.operator === "$in" && (value as unknown[]).length === 0) {
      throw new Error(`${key} $in needs at least one value, comma-separated`);
    }
    const existing = filter[key];
    const operators =
      typeof existing === "object" && existing !== null && !Array.isArray(existing)
        ? (existing as Record<string, unknown>)
        : {};
    filter[key] = { ...operators, [row.operator]: value };
  }
  return Object.keys(filter).length === 0 ? null : filter;
}

/** A `datetime-local` value (local time) as ISO 8601 UTC, or undefined for "". */
export function isoOf(local: string): string | undefined {
  if (local === "") {
    return undefined;
  }
  const date = new Date(local);
  if (Number.isNaN(date.getTime())) {
    throw new Error(`${local} is not a date and time`);
  }
  return date.toISOString();
}

/** How to fetch the pages of `state`. */
export type SearchRequest =
  | { readonly kind: "list"; readonly query: Record<string, string> }
  | { readonly kind: "search"; readonly body: Record<string, unknown> };

/**
 * The request for `state` (see the module documentation).
 * @throws Error from {@link metadataFilter} or {@link isoOf}.
 */
export function requestOf(state: SearchState, pageSize: number): SearchRequest {
  const metadata = metadataFilter(state.metadata);
  const createdAfter = isoOf(state.createdAfter);
  const createdBefore = isoOf(state.createdBefore);
  const namespace = state.namespace.trim();
  const namespaceField: Record<string, string> =
    namespace === ""
      ? {}
      : state.namespaceMatch === "exact"
        ? { namespace }
        : { namespacePrefix: namespace };
  const query = state.query.trim();
  if (
    query === "" &&
    metadata === null &&
    createdAfter === undefined &&
    createdBefore === undefined &&
    state.rank === "recency"
  ) {
    return {
      kind: "list",
      query: {
        limit: String(pageSize),
        includeSuperseded: String(state.includeSuperseded),
        ...namespaceField,
      },
    };
  }
  return {
    kind: "search",
    body: {
      limit: pageSize,
      rank: state.rank,
      includeSuperseded: state.includeSuperseded,
      caseSensitive: state.caseSensitive,
      ...(query === "" ? {} : { query }),
      ...(metadata === null ? {} : { metadata }),
      ...(createdAfter === undefined ? {} : { createdAfter }),
      ...(createdBefore === undefined ? {} : { createdBefore }),
      ...namespaceField,
    },
  };
}
