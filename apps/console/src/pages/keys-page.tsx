/**
 * API keys (`/keys`, a wallet session only): the list with scopes, confinement, expiry, last use
 * and revocation; a form that mints a key with scopes, a namespace prefix and an expiry, whose
 * secret is shown once; revocation, effective on the key's next request.
 * @module
 */
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { ApiKey, CreatedApiKey } from "@verifiable-memory/client";
import { type FormEvent, type ReactNode, useState } from "react";
import { useSession } from "../api/context.js";
import { ErrorNotice } from "../ui/error-notice.js";
import { when } from "../ui/format.js";
import { isoOf } from "./memories/filters.js";

const SCOPES = ["memories:read", "memories:write", "memories:delete", "grants:write"] as const;

/** The page. */
export function KeysPage(): ReactNode {
  const { client, session } = useSession();
  const queries = useQueryClient();
  const [created, setCreated] = useState<CreatedApiKey | null>(null);
  const keys = useQuery({
    queryKey: ["keys", session.token],
    queryFn: () => client.keys.list({ limit: 200 }),
    enabled: session.kind === "session",
  });
  const revoke = useMutation({
    mutationFn: (id: string) => client.keys.revoke(id),
    onSuccess: () => queries.invalidateQueries({ queryKey: ["keys"] }),
  });

  if (session.kind !== "session") {
    return (
      <section aria-labelledby="keys-title">
        <h1 id="keys-title">API keys</h1>
        <p className="notice">
          Keys are managed with a wallet session only, so that a leaked key cannot mint others. Sign
          in with your wallet to manage them.
        </p>
      </section>
    );
  }
  return (
    <section aria-labelledby="keys-title">
      <h1 id="keys-title">API keys</h1>
      <CreateKeyForm
        onCreated={(key) => {
          setCreated(key);
          void queries.invalidateQueries({ queryKey: ["keys"] });
        }}
      />
      {created !== null && <SecretOnce created={created} onDone={() => setCreated(null)} />}
      <h2>Your keys</h2>
      {keys.error !== null && (
        <ErrorNotice error={keys.error} onRetry={() => void keys.refetch()} />
      )}
      {revoke.error !== null && <ErrorNotice error={revoke.error} />}
      {keys.data !== undefined && keys.data.items.length === 0 && <p>No key yet.</p>}
      {keys.data !== undefined && keys.data.items.length > 0 && (
        <div className="table-scroll">
          <table>
            <thead>
              <tr>
                <th scope="col">Label</th>
                <th scope="col">Prefix</th>
                <th scope="col">Scopes</th>
                <th scope="col">Namespace</th>
                <th scope="col">Expires</th>
                <th scope="col">Last used</th>
                <th scope="col">State</th>
              </tr>
            </thead>
            <tbody>
              {keys.data.items.map((key: ApiKey) => (
                <tr key={key.id} data-key-id={key.id}>
                  <td>{key.label}</td>
                  <td>
                    <code>{key.prefix}…</code>
                  </td>
                  <td>{key.scopes.join(", ")}</td>
                  <td>{key.namespace === null ? "all" : <code>{key.namespace}</code>}</td>
                  <td>{key.expiresAt === null ? "never" : when(key.expiresAt)}</td>
                  <td>{key.lastUsedAt === null ? "never" : when(key.lastUsedAt)}</td>
                  <td>
                    {key.revokedAt !== null ? (
                      `revoked ${when(key.revokedAt)}`
                    ) : (
                      <button
                        type="button"
                        className="secondary danger"
                        aria-label={`Revoke ${key.label}`}
                        aria-busy={revoke.isPending && revoke.variables === key.id}
                        onClick={() => {
                          if (window.confirm(`Revoke "${key.label}"? Its next request fails.`)) {
                            revoke.mutate(key.id);
                          }
                        }}
                      >
                        Revoke
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

/** The new key's secret, shown this once, with a copy button. */
function SecretOnce(props: {
  readonly created: CreatedApiKey;
  readonly onDone: () => void;
}): ReactNode {
  const [copied, setCopied] = useState(false);
  return (
    <article className="notice notice-warning" aria-labelledby="secret-title">
      <h2 id="secret-title">Your new key "{props.created.label}"</h2>
      <p>Copy it now: it is shown only this once, and the service keeps only its hash.</p>
      <p>
        <code data-testid="new-key" className="secret">
          {props.created.key}
        </code>
      </p>
      <div className="row">
        <button
          type="button"
          onClick={() =>
            void navigator.clipboard.writeText(props.created.key).then(() => setCopied(true))
          }
        >
          {copied ? "Copied" : "Copy the key"}
        </button>
        <button type="button" className="secondary" onClick={props.onDone}>
          I have stored it
        </button>
      </div>
    </article>
  );
}

/** The form minting a key. */
function CreateKeyForm(props: { readonly onCreated: (key: CreatedApiKey) => void }): ReactNode {
  const { client } = useSession();
  const [label, setLabel] = useState("");
  const [scopes, setScopes] = useState<string[]>([...SCOPES]);
  const [namespace, setNamespace] = useState("");
  const [expires, setExpires] = useState("");
  const [problem, setProblem] = useState<string | null>(null);
  const create = useMutation({
    mutationFn: (input: Parameters<typeof client.keys.create>[0]) => client.keys.create(input),
    onSuccess: (key) => {
      setLabel("");
      props.onCreated(key);
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (scopes.length === 0) {
      setProblem("Choose at least one scope.");
      return;
    }
    let expiresAt: string | undefined;
    try {
      expiresAt = isoOf(expires);
    } catch (error) {
      setProblem((error as Error).message);
      return;
    }
    setProblem(null);
    create.mutate({
      label: label.trim(),
      scopes: scopes as never,
      ...(namespace.trim() === "" ? {} : { namespace: namespace.trim() }),
      ...(expiresAt === undefined ? {} : { expiresAt }),
    });
  };
  return (
    <form onSubmit={submit} aria-labelledby="create-key-title">
      <h2 id="create-key-title">Create a key</h2>
      <label>
        Label
        <input value={label} onChange={(e) => setLabel(e.target.value)} maxLength={100} required />
      </label>
      <fieldset>
        <legend>Scopes</legend>
        {SCOPES.map((scope) => (
          <label key={scope}>
            <input
              type="checkbox"
              checked={scopes.includes(scope)}
              onChange={(e) =>
                setScopes((current) =>
                  e.target.checked ? [...current, scope] : current.filter((s) => s !== scope),
                )
              }
            />
            {scope}
          </label>
        ))}
      </fieldset>
      <div className="grid">
        <label>
          Confine to namespace prefix (optional)
          <input
            value={namespace}
            onChange={(e) => setNamespace(e.target.value)}
            placeholder="agent:research/"
          />
        </label>
        <label>
          Expires (optional)
          <input
            type="datetime-local"
            step="1"
            value={expires}
            onChange={(e) => setExpires(e.target.value)}
          />
        </label>
      </div>
      {problem !== null && (
        <p role="alert" className="notice notice-error">
          {problem}
        </p>
      )}
      {create.error !== null && <ErrorNotice error={create.error} />}
      <button type="submit" aria-busy={create.isPending}>
        Create the key
      </button>
    </form>
  );
}
