/**
 * The page side of browser-proofs.e2e.test.ts, bundled by esbuild for the browser platform (so
 * the `"browser"` conditions of the pure packages apply) and loaded in Chromium: builds and parses
 * a sign-in message, and checks a running service's inclusion and consistency proofs against the
 * chain with `@verifiable-memory/siws-message`, `@verifiable-memory/merkle-log` and
 * `@verifiable-memory/verifier` (its checkpoint-log path opens signed notes with
 * `@verifiable-memory/signed-note`, Ed25519 by @noble/ed25519). The test calls the functions it puts on `globalThis.proofPage`.
 * @module
 */
import { fromHex, verifyConsistency } from "@verifiable-memory/merkle-log";
import {
  buildSignInMessage,
  parseSignInMessage,
  type SignInMessageFields,
} from "@verifiable-memory/siws-message";
import {
  commitmentAddress,
  readCommitmentAccount,
  type VerifyResult,
  verifyBundle,
} from "@verifiable-memory/verifier";

/** GETs `url` with the bearer `token` and returns its JSON body. */
async function getJson(url: string, token: string): Promise<Record<string, unknown>> {
  const res = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
  if (!res.ok) {
    throw new Error(`GET ${url} answered ${res.status}`);
  }
  return (await res.json()) as Record<string, unknown>;
}

const proofPage = {
  /** Builds a message from `fields`, parses it back, and returns both. */
  roundTrip(fields: SignInMessageFields): { text: string; parsed: SignInMessageFields } {
    const text = buildSignInMessage(fields);
    return { text, parsed: parseSignInMessage(text) };
  },

  /** Asks the service for a challenge, parses it, and rebuilds it from the parsed fields. */
  async challenge(
    api: string,
    publicKey: string,
  ): Promise<{ fields: SignInMessageFields; rebuiltIdentical: boolean }> {
    const res = await fetch(`${api}/auth/challenge`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ publicKey }),
    });
    const { message } = (await res.json()) as { message: string };
    const fields = parseSignInMessage(message);
    return { fields, rebuiltIdentical: buildSignInMessage(fields) === message };
  },

  /** Fetches memory `id`'s proof bundle from the service. */
  bundle(api: string, token: string, id: string): Promise<Record<string, unknown>> {
    return getJson(`${api}/memories/${id}/proof`, token);
  },

  /** verifyBundle in the page: the chain read from `rpcUrl`, nothing else from the service. */
  verify(
    bundle: unknown,
    options: { rpcUrl: string; content?: string; apiUrl?: string; logKeys?: string[] },
  ): Promise<VerifyResult> {
    return verifyBundle(bundle, options);
  },

  /**
   * The log's consistency proof from the bundle's checkpoint to the size committed on chain,
   * fetched from the service's `GET /log/consistency` and checked (RFC 9162 §2.1.4.2) between
   * the bundle's root and the root read from the chain in the page.
   */
  async consistency(
    api: string,
    token: string,
    rpcUrl: string,
    bundle: {
      leafData: { owner: string };
      checkpoint: { treeSize: number; rootHash: string };
      anchor: { programId: string };
    },
  ): Promise<{ from: number; to: number; nodes: number; verified: boolean; problem: string }> {
    const { owner } = bundle.leafData;
    const { programId } = bundle.anchor;
    const onChain = await readCommitmentAccount(
      rpcUrl,
      commitmentAddress(owner, programId),
      programId,
    );
    if (onChain === null) {
      throw new Error("no commitment account");
    }
    const from = bundle.checkpoint.treeSize;
    const to = onChain.memoryCount;
    const answer = await getJson(`${api}/log/consistency?from=${from}&to=${to}`, token);
    const proof = (answer.proof as string[]).map((node) => fromHex(node));
    try {
      verifyConsistency(
        from,
        to,
        proof,
        fromHex(bundle.checkpoint.rootHash),
        fromHex(onChain.root),
      );
      return { from, to, nodes: proof.length, verified: true, problem: "" };
    } catch (error) {
      return { from, to, nodes: proof.length, verified: false, problem: String(error) };
    }
  },
};

/** The functions the page offers the test. */
export type ProofPage = typeof proofPage;

(globalThis as { proofPage?: ProofPage }).proofPage = proofPage;
