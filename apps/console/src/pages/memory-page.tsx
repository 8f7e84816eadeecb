/**
 * One memory: content, metadata, namespace, writer, its place in the log and its versions
 * (`GET /memories/:id` and `/history`); edit as a new version (`PUT`, the old one stays provable)
 * and delete (`DELETE`: the content goes, the leaf stays). Links to its proof.
 * @module
 */
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { Memory } from "@verifiable-memory/client";
import { type FormEvent, type ReactNode, useRef, useState } from "react";
import { Link, useLocation } from "wouter";
import { useSession } from "../api/context.js";
import { ErrorNotice } from "../ui/error-notice.js";
import { when } from "../ui/format.js";

/** Who wrote `memory`, in words. */
function writer(memory: Memory): string {
  const by = memory.writtenBy;
  if (by === null) {
    return "not recorded (written before writers were committed)";
  }
  return by.kind === "session" ? "the wallet (a sign-in session)" : `API key ${by.keyId}`;
}

/** The page of memory `id`. */
export function MemoryPage(props: { readonly id: string }): ReactNode {
  const { client, session } = useSession();
  const queries = useQueryClient();
  const [, navigate] = useLocation();
  const [editing, setEditing] = useState(false);
  const confirm = useRef<HTMLDialogElement>(null);
  const memory = useQuery({
    queryKey: ["memory", session.token, props.id],
    queryFn: () => client.get(props.id),
  });
  const history = useQuery({
    queryKey: ["history", session.token, props.id],
    queryFn: () => client.history(props.id),
  });
  const remove = useMutation({
    mutationFn: () => client.forget(props.id),
    onSuccess: async () => {
      await queries.invalidateQueries({ queryKey: ["memories"] });
      navigate("/");
    },
  });

  if (memory.error !== null) {
    return <ErrorNotice error={memory.error} onRetry={() => void memory.refetch()} />;
  }
  if (memory.data === undefined) {
    return <p aria-busy="true">Loading the memory…</p>;
  }
  const m = memory.data;
  return (
    <section aria-labelledby="memory-title">
      <nav aria-label="Breadcrumb" className="breadcrumb">
        <Link href="/">Memories</Link> › memory
      </nav>
      <h1 id="memory-title">Memory</h1>
      {m.supersededBy !== null && (
        <p className="notice notice-warning">
          A newer version exists: <Link href={`/memories/${m.supersededBy}`}>open it</Link>.
        </p>
      )}
      {editing ? (
        <EditForm memory={m} onDone={() => setEditing(false)} />
      ) : (
        <article>
          <p className="memory-full">{m.content}</p>
          <dl className="facts">
            <dt>Metadata</dt>
            <dd>
              <pre>{JSON.stringify(m.metadata, null, 2)}</pre>
            </dd>
            <dt>Namespace</dt>
            <dd>{m.namespace === null ? "none" : <code>{m.namespace}</code>}</dd>
            <dt>Written by</dt>
            <dd>{writer(m)}</dd>
            <dt>Created</dt>
            <dd>{when(m.createdAt)}</dd>
            <dt>Leaf</dt>
            <dd>
              index {m.leafIndex} of the log,{" "}
              {m.anchored ? "anchored on chain" : "not anchored yet"}
            </dd>
            <dt>Id</dt>
            <dd>
              <code>{m.id}</code>
            </dd>
          </dl>
          <div className="row">
            <Link href={`/memories/${m.id}/proof`} role="button">
              Check its proof
            </Link>
            {m.supersededBy === null && (
              <button type="button" className="secondary" onClick={() => setEditing(true)}>
                Edit as a new version
              </button>
            )}
            <button
              type="button"
              className="secondary danger"
              onClick={() => confirm.current?.showModal()}
            >
              Delete
            </button>
          </div>
        </article>
      )}
      {remove.error !== null && <ErrorNotice error={remove.error} />}
      <dialog ref={confirm} aria-labelledby="delete-title">
        <article>
          <h2 id="delete-title">Delete this memory?</h2>
          <p>
            Its content is destroyed. Its leaf stays in the log, so the log's roots and other
            memories' proofs stay valid, and the deletion can be seen.
          </p>
          <footer>
            <button type="button" className="secondary" onClick={() => confirm.current?.close()}>
              Keep it
            </button>
            <button
              type="button"
              className="danger"
              aria-busy={remove.isPending}
              onClick={() => {
                confirm.current?.close();
                remove.mutate();
              }}
            >
              Delete
            </button>
          </footer>
        </article>
      </dialog>
      <h2>Versions</h2>
      {history.error !== null && <ErrorNotice error={history.error} />}
      {history.data !== undefined && (
        <ol className="versions">
          {history.data.map((version) => (
            <li key={version.id}>
              {version.id === m.id ? (
                <strong>this version</strong>
              ) : (
                <Link href={`/memories/${version.id}`}>{when(version.createdAt)}</Link>
              )}{" "}
              — leaf {version.leafIndex}, {version.proof.anchored ? "anchored" : "not anchored yet"}
              : <span className="version-content">{version.content}</span>
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}

/** Edits `memory` as a new version: content, metadata (JSON) and namespace. */
function EditForm(props: { readonly memory: Memory; readonly onDone: () => void }): ReactNode {
  const { client } = useSession();
  const queries = useQueryClient();
  const [, navigate] = useLocation();
  const [content, setContent] = useState(props.memory.content);
  const [metadata, setMetadata] = useState(JSON.stringify(props.memory.metadata, null, 2));
  const [problem, setProblem] = useState<string | null>(null);
  const update = useMutation({
    mutationFn: (input: { content: string; metadata: Record<string, unknown> }) =>
      client.update(props.memory.id, input.content, input.metadata as never),
    onSuccess: async (created) => {
      await queries.invalidateQueries({ queryKey: ["memories"] });
      props.onDone();
      navigate(`/memories/${created.id}`);
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    let parsed: unknown;
    try {
      parsed = JSON.parse(metadata);
    } catch {
      setProblem('Metadata must be a JSON object, e.g. {"topic": "billing"}.');
      return;
    }
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
      setProblem('Metadata must be a JSON object, e.g. {"topic": "billing"}.');
      return;
    }
    setProblem(null);
    update.mutate({ content, metadata: parsed as Record<string, unknown> });
  };
  return (
    <form onSubmit={submit} aria-label="Edit as a new version">
      <label>
        Content
        <textarea value={content} onChange={(e) => setContent(e.target.value)} rows={6} required />
      </label>
      <label>
        Metadata (JSON)
        <textarea
          value={metadata}
          onChange={(e) => setMetadata(e.target.value)}
          rows={5}
          className="mono"
        />
      </label>
      {problem !== null && (
        <p role="alert" className="notice notice-error">
          {problem}
        </p>
      )}
      {update.error !== null && <ErrorNotice error={update.error} />}
      <div className="row">
        <button type="submit" aria-busy={update.isPending}>
          Save as a new version
        </button>
        <button type="button" className="secondary" onClick={props.onDone}>
          Cancel
        </button>
      </div>
    </form>
  );
}
