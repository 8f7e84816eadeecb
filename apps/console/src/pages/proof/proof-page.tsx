/**
 * A memory's proof page (loaded on demand): the proof bundle from `GET /memories/:id/proof`, each
 * proof path's checks (paths.tsx), and the bundle to download for `svc-verify` (with or without
 * the content).
 * @module
 */
import { useQuery } from "@tanstack/react-query";
import type { ProofBundle } from "@verifiable-memory/client";
import type { ReactNode } from "react";
import { Link } from "wouter";
import { useSession } from "../../api/context.js";
import { ErrorNotice } from "../../ui/error-notice.js";
import { PROOF_PATHS } from "./paths.js";

/** A download link for `value` as JSON named `name`. */
function DownloadJson(props: {
  readonly value: unknown;
  readonly name: string;
  readonly children: ReactNode;
}): ReactNode {
  const download = () => {
    const blob = new Blob([`${JSON.stringify(props.value, null, 2)}\n`], {
      type: "application/json",
    });
    const url = URL.createObjectURL(blob);
    const anchor = document.createElement("a");
    anchor.href = url;
    anchor.download = props.name;
    anchor.click();
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
  };
  return (
    <button type="button" className="secondary" onClick={download}>
      {props.children}
    </button>
  );
}

/** The proof page of memory `id`. */
export default function ProofPage(props: { readonly id: string }): ReactNode {
  const { client, session, chainRpcUrl, endpoints } = useSession();
  const bundle = useQuery({
    queryKey: ["proof", session.token, props.id],
    queryFn: (): Promise<ProofBundle> => client.prove(props.id),
    staleTime: 0,
  });
  const memory = useQuery({
    queryKey: ["memory", session.token, props.id],
    queryFn: () => client.get(props.id),
  });
  if (bundle.error !== null) {
    return <ErrorNotice error={bundle.error} onRetry={() => void bundle.refetch()} />;
  }
  if (bundle.data === undefined || memory.isPending) {
    return <p aria-busy="true">Fetching the proof…</p>;
  }
  const content = memory.data?.content ?? null;
  const b = bundle.data;
  return (
    <section aria-labelledby="proof-title">
      <nav aria-label="Breadcrumb" className="breadcrumb">
        <Link href="/">Memories</Link> › <Link href={`/memories/${props.id}`}>memory</Link> › proof
      </nav>
      <h1 id="proof-title">Proof of a memory</h1>
      <p>
        Leaf {b.leafIndex} of {b.leafData.owner}'s log
        {b.checkpoint === null
          ? ", not covered by an anchored checkpoint yet: come back after the next anchor."
          : `, in the checkpoint of size ${b.checkpoint.treeSize}.`}
      </p>
      {PROOF_PATHS.map((path) => (
        // Keyed by the fetch time: a fresh proof is checked again, from the chain again.
        <div key={`${path.id}-${bundle.dataUpdatedAt}`} data-proof-path={path.id}>
          {path.render({ bundle: b, content })}
        </div>
      ))}
      <h2>Check it yourself</h2>
      <p>
        Download the bundle and run{" "}
        <code>
          svc-verify --rpc {chainRpcUrl} --api {endpoints.apiUrl} bundle.json
        </code>
        : the same checks, outside this page and this service.
      </p>
      <div className="row">
        <DownloadJson value={b} name={`proof-${b.memoryId}.json`}>
          Download the bundle
        </DownloadJson>
        {content !== null && (
          <DownloadJson value={{ ...b, content }} name={`proof-${b.memoryId}-with-content.json`}>
            Download it with the content
          </DownloadJson>
        )}
        <button type="button" className="secondary" onClick={() => void bundle.refetch()}>
          Fetch a fresh proof
        </button>
      </div>
    </section>
  );
}
