/**
 * Shares (capability grants, `/agent-cases`): create a URL that performs exactly one stored
 * operation (read these memories, or run this search) for whoever holds it, a bounded number of
 * times until it expires; its URL is shown once. The list shows each share's uses left and state;
 * its audit lists every attempt to use it; revocation is effective on the next use.
 * @module
 */
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { CreatedGrant, Grant } from "@verifiable-memory/client";
import { type FormEvent, type ReactNode, useState } from "react";
import { useSession } from "../api/context.js";
import { ErrorNotice } from "../ui/error-notice.js";
import { when } from "../ui/format.js";

/** The page. */
export function SharesPage(): ReactNode {
  const { client, session } = useSession();
  const queries = useQueryClient();
  const [created, setCreated] = useState<CreatedGrant | null>(null);
  const grants = useQuery({
    queryKey: ["grants", session.token],
    queryFn: () => client.grants.list({ limit: 200 }),
  });
  const revoke = useMutation({
    mutationFn: (id: string) => client.grants.revoke(id),
    onSuccess: () => queries.invalidateQueries({ queryKey: ["grants"] }),
  });
  return (
    <section aria-labelledby="shares-title">
      <h1 id="shares-title">Shares</h1>
      <CreateShareForm
        onCreated={(grant) => {
          setCreated(grant);
          void queries.invalidateQueries({ queryKey: ["grants"] });
        }}
      />
      {created !== null && (
        <article className="notice notice-warning" aria-labelledby="share-url-title">
          <h2 id="share-url-title">The share's URL</h2>
          <p>Shown only this once: whoever holds it can use it.</p>
          <p>
            <code data-testid="share-url" className="secret">
              {created.url}
            </code>
          </p>
          <div className="row">
            <button type="button" onClick={() => void navigator.clipboard.writeText(created.url)}>
              Copy the URL
            </button>
            <button type="button" className="secondary" onClick={() => setCreated(null)}>
              Done
            </button>
          </div>
        </article>
      )}
      <h2>Your shares</h2>
      {grants.error !== null && (
        <ErrorNotice error={grants.error} onRetry={() => void grants.refetch()} />
      )}
      {revoke.error !== null && <ErrorNotice error={revoke.error} />}
      {grants.data !== undefined && grants.data.items.length === 0 && <p>No share yet.</p>}
      <ul className="shares">
        {grants.data?.items.map((grant: Grant) => (
          <li key={grant.id}>
            <article>
              <header>
                <strong>{grant.label ?? "Unlabelled share"}</strong> — {grant.status},{" "}
                {grant.usesRemaining} of {grant.maxUses} uses left, expires {when(grant.expiresAt)}
              </header>
              <p>
                {grant.operation.type === "read_memories"
                  ? `Reads ${grant.operation.memoryIds.length} ${grant.operation.memoryIds.length === 1 ? "memory" : "memories"}`
                  : `Runs the search "${grant.operation.query}"`}
                {grant.operation.namespacePrefix !== undefined &&
                  ` within ${grant.operation.namespacePrefix}`}
                . Created {when(grant.createdAt)}.
              </p>
              <ShareAudit id={grant.id} />
              {grant.status === "active" && (
                <button
                  type="button"
                  className="secondary danger"
                  onClick={() => revoke.mutate(grant.id)}
                  aria-busy={revoke.isPending && revoke.variables === grant.id}
                >
                  Revoke
                </button>
              )}
            </article>
          </li>
        ))}
      </ul>
    </section>
  );
}

/** The attempts to use share `id`, fetched when opened. */
function ShareAudit(props: { readonly id: string }): ReactNode {
  const { client, session } = useSession();
  const [open, setOpen] = useState(false);
  const audit = useQuery({
    queryKey: ["grant-audit", session.token, props.id],
    queryFn: () => client.grants.audit(props.id, { limit: 50 }),
    enabled: open,
  });
  return (
    <details onToggle={(e) => setOpen((e.target as HTMLDetailsElement).open)}>
      <summary>Uses and attempts</summary>
      {audit.error !== null && <ErrorNotice error={audit.error} />}
      {audit.data !== undefined &&
        (audit.data.items.length === 0 ? (
          <p>Nobody has used it yet.</p>
        ) : (
          <ul>
            {audit.data.items.map((attempt) => (
              <li key={attempt.id}>
                {when(attempt.at)}: {attempt.outcome}
                {attempt.ip !== null && ` from ${attempt.ip}`}
                {attempt.userAgent !== null && ` (${attempt.userAgent})`}
              </li>
            ))}
          </ul>
        ))}
    </details>
  );
}

/** The form creating a share. */
function CreateShareForm(props: { readonly onCreated: (grant: CreatedGrant) => void }): ReactNode {
  const { client } = useSession();
  const [kind, setKind] = useState<"read_memories" | "search">("read_memories");
  const [ids, setIds] = useState("");
  const [query, setQuery] = useState("");
  const [label, setLabel] = useState("");
  const [days, setDays] = useState("7");
  const [maxUses, setMaxUses] = useState("10");
  const create = useMutation({
    mutationFn: (input: Parameters<typeof client.grants.create>[0]) => client.grants.create(input),
    onSuccess: props.onCreated,
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const operation =
      kind === "read_memories"
        ? {
            type: "read_memories" as const,
            memoryIds: ids
              .split(/[\s,]+/)
              .map((id) => id.trim())
              .filter((id) => id !== ""),
          }
        : { type: "search" as const, query: query.trim() };
    create.mutate({
      operation,
      expiresInSeconds: Math.round(Number(days) * 86_400),
      maxUses: Number(maxUses),
      ...(label.trim() === "" ? {} : { label: label.trim() }),
    });
  };
  return (
    <form onSubmit={submit} aria-labelledby="create-share-title">
      <h2 id="create-share-title">Share</h2>
      <fieldset>
        <legend>What the URL does</legend>
        <label>
          <input
            type="radio"
            name="share-kind"
            checked={kind === "read_memories"}
            onChange={() => setKind("read_memories")}
          />
          Read these memories
        </label>
        <label>
          <input
            type="radio"
            name="share-kind"
            checked={kind === "search"}
            onChange={() => setKind("search")}
          />
          Run a search
        </label>
      </fieldset>
      {kind === "read_memories" ? (
        <label>
          Memory ids (separated by spaces or commas)
          <textarea value={ids} onChange={(e) => setIds(e.target.value)} rows={2} required />
        </label>
      ) : (
        <label>
          Search
          <input value={query} onChange={(e) => setQuery(e.target.value)} required />
        </label>
      )}
      <div className="grid">
        <label>
          Label (optional)
          <input value={label} onChange={(e) => setLabel(e.target.value)} maxLength={100} />
        </label>
        <label>
          Valid for (days)
          <input
            type="number"
            min="0.01"
            step="any"
            value={days}
            onChange={(e) => setDays(e.target.value)}
            required
          />
        </label>
        <label>
          Uses
          <input
            type="number"
            min="1"
            step="1"
            value={maxUses}
            onChange={(e) => setMaxUses(e.target.value)}
            required
          />
        </label>
      </div>
      {create.error !== null && <ErrorNotice error={create.error} />}
      <button type="submit" aria-busy={create.isPending}>
        Create the share
      </button>
    </form>
  );
}
