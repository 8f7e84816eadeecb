/**
 * The memories page's search form: query and rank (the ranks the service's OpenAPI document
 * lists), namespace (exact or prefix, suggested from `GET /namespaces`), created-time range,
 * metadata conditions with operators, superseded versions and case. Submitting applies it.
 * @module
 */
import { type FormEvent, type ReactNode, useState } from "react";
import type { RankOption } from "../../api/ranks.js";
import {
  EMPTY_SEARCH,
  type MetadataRow,
  OPERATORS,
  type Operator,
  type SearchState,
} from "./filters.js";

/** The form, starting from `initial`; `onSearch` receives the state on submit. */
export function SearchForm(props: {
  readonly initial: SearchState;
  readonly ranks: readonly RankOption[];
  readonly namespaces: readonly string[];
  readonly onSearch: (state: SearchState) => void;
}): ReactNode {
  const [state, setState] = useState<SearchState>(props.initial);
  const set = <K extends keyof SearchState>(key: K, value: SearchState[K]) =>
    setState((current) => ({ ...current, [key]: value }));
  const setRow = (index: number, row: Partial<MetadataRow>) =>
    set(
      "metadata",
      state.metadata.map((current, i) => (i === index ? { ...current, ...row } : current)),
    );
  const submit = (event: FormEvent) => {
    event.preventDefault();
    props.onSearch(state);
  };

  return (
    <form onSubmit={submit} className="search-form" aria-label="Search memories">
      <div className="grid">
        <label>
          Search
          <input
            type="search"
            name="query"
            value={state.query}
            onChange={(e) => set("query", e.target.value)}
            placeholder="words or a substring"
          />
        </label>
        <label>
          Rank
          <select name="rank" value={state.rank} onChange={(e) => set("rank", e.target.value)}>
            {props.ranks.map((rank) => (
              <option key={rank.value} value={rank.value}>
                {rank.label}
              </option>
            ))}
          </select>
        </label>
      </div>
      <details>
        <summary>Filters</summary>
        <div className="grid">
          <label>
            Namespace
            <input
              name="namespace"
              list="namespace-options"
              value={state.namespace}
              onChange={(e) => set("namespace", e.target.value)}
              placeholder="agent:research/run:42"
            />
            <datalist id="namespace-options">
              {props.namespaces.map((ns) => (
                <option key={ns} value={ns} />
              ))}
            </datalist>
          </label>
          <fieldset>
            <legend>Namespace match</legend>
            <label>
              <input
                type="radio"
                name="namespace-match"
                checked={state.namespaceMatch === "exact"}
                onChange={() => set("namespaceMatch", "exact")}
              />
              exactly
            </label>
            <label>
              <input
                type="radio"
                name="namespace-match"
                checked={state.namespaceMatch === "prefix"}
                onChange={() => set("namespaceMatch", "prefix")}
              />
              starts with
            </label>
          </fieldset>
        </div>
        <div className="grid">
          <label>
            Created after
            <input
              type="datetime-local"
              step="1"
              value={state.createdAfter}
              onChange={(e) => set("createdAfter", e.target.value)}
            />
          </label>
          <label>
            Created before
            <input
              type="datetime-local"
              step="1"
              value={state.createdBefore}
              onChange={(e) => set("createdBefore", e.target.value)}
            />
          </label>
        </div>
        <fieldset>
          <legend>Metadata</legend>
          {state.metadata.map((row, index) => (
            <div className="grid metadata-row" key={index}>
              <input
                aria-label={`Metadata key ${index + 1}`}
                placeholder="key"
                value={row.key}
                onChange={(e) => setRow(index, { key: e.target.value })}
              />
              <select
                aria-label={`Operator ${index + 1}`}
                value={row.operator}
                onChange={(e) => setRow(index, { operator: e.target.value as Operator })}
              >
                {OPERATORS.map((op) => (
                  <option key={op} value={op}>
                    {op === "=" ? "equals" : op}
                  </option>
                ))}
              </select>
              <input
                aria-label={`Value ${index + 1}`}
                placeholder={row.operator === "$in" ? "a, b, 3" : "value (JSON or text)"}
                value={row.value}
                onChange={(e) => setRow(index, { value: e.target.value })}
              />
              <button
                type="button"
                className="secondary"
                aria-label={`Remove condition ${index + 1}`}
                onClick={() =>
                  set(
                    "metadata",
                    state.metadata.filter((_, i) => i !== index),
                  )
                }
              >
                Remove
              </button>
            </div>
          ))}
          <button
            type="button"
            className="secondary"
            onClick={() =>
              set("metadata", [...state.metadata, { key: "", operator: "=", value: "" }])
            }
          >
            Add a metadata condition
          </button>
        </fieldset>
        <label>
          <input
            type="checkbox"
            checked={state.includeSuperseded}
            onChange={(e) => set("includeSuperseded", e.target.checked)}
          />
          Include superseded versions
        </label>
        <label>
          <input
            type="checkbox"
            checked={state.caseSensitive}
            onChange={(e) => set("caseSensitive", e.target.checked)}
          />
          Case-sensitive
        </label>
      </details>
      <div className="row">
        <button type="submit">Search</button>
        <button
          type="reset"
          className="secondary"
          onClick={() => {
            setState(EMPTY_SEARCH);
            props.onSearch(EMPTY_SEARCH);
          }}
        >
          Clear
        </button>
      </div>
    </form>
  );
}
