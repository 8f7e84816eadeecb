/**
 * Proof path 1, the chain anchor: the checks `svc-verify` makes, run in this page by
 * `verifyBundle` of `@verifiable-memory/verifier` (its browser build): the leaf recomputed from
 * its data and the content, the owner's commitment account read from the chain's JSON-RPC at the
 * console's chain RPC (never from the memory API), the checkpoint compared with it, and the
 * inclusion path hashed up to its root (drawn). A bundle cut before the latest anchor is
 * "stale" until the API's public consistency proof, verified here too, bridges it. A memory only
 * the checkpoint log covers is checked through it (the signed user checkpoint opened with the
 * keys of `GET /info`, its entry, and the checkpoint log account on chain; docs/protocol.md §13.5).
 * @module
 */
import { useQuery } from "@tanstack/react-query";
import type { ProofBundle } from "@verifiable-memory/client";
import { type VerifyCheck, type VerifyResult, verifyBundle } from "@verifiable-memory/verifier";
import { type ReactNode, useState } from "react";
import { useConsole } from "../../api/context.js";
import { Check } from "../../ui/check.js";
import { short } from "../../ui/format.js";
import { InclusionDiagram } from "./inclusion-diagram.js";
import { recomputePath } from "./inclusion-path.js";

/** What each check is called on the page. */
const TITLES: Readonly<Record<VerifyCheck["check"], string>> = {
  bundle: "The proof bundle is well formed",
  anchored: "The memory is covered by an anchored checkpoint",
  leaf: "The leaf hash is recomputed from the leaf data",
  content: "The content matches the leaf's content hash",
  account: "The commitment account is the owner's",
  chain: "The commitment account is read from the chain",
  authority: "The account's authority is the service's anchoring key",
  checkpoint: "The proof's checkpoint is the one on chain",
  inclusion: "The inclusion path leads to the root",
  consistency: "The consistency proof links the proof's root to the chain's",
  log_key: "A log key of the service is known",
  note: "The user checkpoint is signed by the service's log key",
  entry: "The checkpoint log entry is the signed user checkpoint",
  log_inclusion: "The entry is in the checkpoint log",
  log_checkpoint: "The proof's checkpoint log is the one on chain",
};

/** The checks of `bundle` against the chain, shown step by step. */
export function ChainAnchorPath(props: {
  readonly bundle: ProofBundle;
  readonly content: string | null;
}): ReactNode {
  const { chainRpcUrl, endpoints, info } = useConsole();
  const [bridge, setBridge] = useState(false);
  const { bundle } = props;
  const verdict = useQuery({
    queryKey: ["verify", chainRpcUrl, bundle.memoryId, bundle.checkpoint?.treeSize, bridge],
    queryFn: (): Promise<VerifyResult> =>
      verifyBundle(bundle, {
        rpcUrl: chainRpcUrl,
        programId: info.programId,
        ...(info.anchorAuthority === null ? {} : { authority: info.anchorAuthority }),
        ...(props.content === null ? {} : { content: props.content }),
        // The service's log keys (GET /info) open a signed user checkpoint (checkpoint-log path).
        logKeys: info.logKeys,
        ...(bridge ? { apiUrl: endpoints.apiUrl } : {}),
      }),
    staleTime: 0,
    gcTime: 0,
  });
  const result = verdict.data;
  const inclusion = bundle.checkpoint !== null && bundle.inclusionProof !== null;
  const path = inclusion
    ? recomputePath(
        bundle.leafIndex,
        bundle.checkpoint?.treeSize ?? 0,
        bundle.leafHash,
        bundle.inclusionProof ?? [],
      )
    : null;
  const stale = result?.reason === "stale_checkpoint";
  const expectedRoot =
    result?.onChain !== null && result?.onChain !== undefined && !result.bridged && !stale
      ? result.onChain.root
      : (bundle.checkpoint?.rootHash ?? null);

  return (
    <section aria-labelledby="chain-path-title" className="proof-path">
      <h2 id="chain-path-title">Anchored on chain</h2>
      <p>
        Read from the chain at <code>{chainRpcUrl}</code>, for program{" "}
        <code>{short(info.programId, 8)}</code>
        {info.anchorAuthority !== null && (
          <>
            {" "}
            and anchoring key <code>{short(info.anchorAuthority, 8)}</code>
          </>
        )}{" "}
        as this service publishes them (compare them with values you trust).
      </p>
      {verdict.isPending && <p aria-busy="true">Checking against the chain…</p>}
      {verdict.error !== null && (
        <p role="alert" className="notice notice-error">
          The check could not run: {(verdict.error as Error).message}
        </p>
      )}
      {result !== undefined && (
        <>
          <p
            role="status"
            className={`verdict ${result.verified ? "verdict-ok" : stale ? "verdict-stale" : "verdict-bad"}`}
            data-testid="verdict"
          >
            {result.verified
              ? "Verified against the chain."
              : stale
                ? "Stale: a newer root needs the API's consistency proof."
                : result.reason === "chain_unavailable"
                  ? `The chain at ${chainRpcUrl} cannot be reached: the result is unknown, not negative.`
                  : `Not verified: ${result.reason}.`}
          </p>
          <ol className="checks">
            {result.checks.map((check) => (
              <Check key={check.check} passed={check.passed} title={TITLES[check.check]}>
                <span data-testid={`check-${check.check}`}>{check.detail}</span>
              </Check>
            ))}
          </ol>
          {stale && (
            <div className="notice notice-warning">
              <p>
                The chain holds a newer root (size {result.onChain?.memoryCount}) than this proof's
                checkpoint (size {bundle.checkpoint?.treeSize}). The service's public consistency
                proof can show that the newer tree extends this one; it is verified here against
                this proof's root and the root read from the chain, not believed.
              </p>
              <button type="button" onClick={() => setBridge(true)}>
                Fetch the consistency proof from the API
              </button>
            </div>
          )}
        </>
      )}
      {path !== null && bundle.checkpoint !== null && (
        <>
          <h3>Inclusion path</h3>
          <InclusionDiagram
            leafIndex={bundle.leafIndex}
            leafHash={bundle.leafHash}
            path={path}
            expectedRoot={expectedRoot}
          />
        </>
      )}
    </section>
  );
}
