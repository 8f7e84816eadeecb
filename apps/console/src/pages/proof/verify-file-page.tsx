/**
 * Verify a saved proof (loaded on demand, no sign-in needed): a bundle file from the proof
 * page, an export, `GET /memories/:id/proof` or a share's memory is checked here against the
 * chain, as `svc-verify` would.
 * @module
 */
import type { ProofBundle } from "@verifiable-memory/client";
import { BundleFormatError, parseInput } from "@verifiable-memory/verifier";
import { type ChangeEvent, type ReactNode, useState } from "react";
import { PROOF_PATHS } from "./paths.js";

/** The page. */
export default function VerifyFilePage(): ReactNode {
  const [input, setInput] = useState<{ bundle: ProofBundle; content: string | null } | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  // Counts the files chosen: each one is checked afresh, even the same file again.
  const [chosen, setChosen] = useState(0);
  const onFile = async (event: ChangeEvent<HTMLInputElement>) => {
    const file = event.target.files?.[0];
    if (file === undefined) {
      return;
    }
    setInput(null);
    try {
      const parsed = parseInput(JSON.parse(await file.text()));
      setProblem(null);
      setChosen((count) => count + 1);
      setInput({ bundle: parsed.bundle as unknown as ProofBundle, content: parsed.content });
    } catch (error) {
      setProblem(
        error instanceof BundleFormatError || error instanceof SyntaxError
          ? `This file is not a proof bundle: ${error.message}`
          : String(error),
      );
    }
  };
  return (
    <section aria-labelledby="verify-title">
      <h1 id="verify-title">Verify a saved proof</h1>
      <p>
        Choose a proof bundle (JSON). It is checked in this page against the chain; nothing is sent
        to the memory service unless the proof is older than the latest anchor and you ask for its
        consistency proof.
      </p>
      <label>
        Proof bundle file
        <input type="file" accept=".json,application/json" onChange={(e) => void onFile(e)} />
      </label>
      {problem !== null && (
        <p role="alert" className="notice notice-error">
          {problem}
        </p>
      )}
      {input !== null &&
        PROOF_PATHS.map((path) => (
          <div key={`${path.id}-${chosen}`} data-proof-path={path.id}>
            {path.render(input)}
          </div>
        ))}
    </section>
  );
}
