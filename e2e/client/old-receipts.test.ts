import { createServer, type Server } from "node:http";
import { Keypair } from "@solana/web3.js";
import { createClient, type ProofBundle } from "@verifiable-memory/client";
import { verifyProof, withVerify } from "@verifiable-memory/client/verify";
import { LOCAL_PROGRAM_ID } from "@verifiable-memory/commitment-program";
// @verifiable-memory/merkle-log is not a dependency of the SDK; the forger below builds its fake tree with it.
import {
  CompactRange,
  consistencyProof,
  fromHex,
  MemoryNodeStore,
  rootFromInclusionProof,
  toHex,
} from "@verifiable-memory/merkle-log";
import { type LeafData, leafHashOf } from "@verifiable-memory/verifier";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Chain, type CoreApp, startChain, startCoreApi } from "../_apps.js";

let t: CoreApp;
let chain: Chain;

beforeAll(async () => {
  chain = await startChain();
  t = await startCoreApi({ env: { CHAIN_RPC_URL: chain.url, SIWS_CHAIN_ID: "localnet" } });
});
afterAll(async () => {
  await t?.close();
  await chain?.close();
});

/** Anchors every user with pending leaves, as the anchor service's worker does each sweep. */
async function anchorNow(): Promise<void> {
  const report = await chain.anchorNow(t.db);
  expect(report.outcomes.length).toBeGreaterThan(0);
}

/** A fetch that records "METHOD url authorization" of every request, then sends it. */
function recordingFetch(log: string[]): typeof fetch {
  return (input, init) => {
    const request = new Request(input, init);
    log.push(`${request.method} ${request.url} ${request.headers.get("authorization") ?? "-"}`);
    return fetch(request);
  };
}

/**
 * A fake memory API on a local port: `GET /owners/{owner}/consistency` answers `answer(query)`
 * (JSON), anything else 404.
 */
async function fakeApi(
  answer: (url: URL) => Promise<unknown>,
): Promise<{ url: string; server: Server; hits: string[] }> {
  const hits: string[] = [];
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://fake");
    hits.push(`${req.method} ${url.pathname}${url.search}`);
    if (!/^\/owners\/[^/]+\/consistency$/.test(url.pathname)) {
      res.writeHead(404, { "content-type": "application/json" }).end('{"error":{}}');
      return;
    }
    answer(url).then(
      (body) =>
        res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(body)),
      (error: Error) => res.writeHead(500).end(error.message),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}`, server, hits };
}

describe("an old receipt, verified by a stranger after 50 more anchorings", () => {
  it("true through the public route; consistency_invalid for a tampered proof; false for a root never on chain", async () => {
    const keypair = Keypair.generate();
    const owner = keypair.publicKey.toBase58();
    const client = withVerify(createClient({ baseUrl: t.url }));
    await client.signInWithKeypair(keypair);
    const ids = (
      await client.rememberMany([
        { content: "first", metadata: { n: 1 } },
        { content: "the receipt", metadata: { n: 2 } },
        { content: "third" },
      ])
    ).map((m) => m.id);
    const id = ids[1] as string;
    await anchorNow();

    // The receipt, saved as a file would keep it.
    const saved = JSON.parse(JSON.stringify(await client.prove(id))) as ProofBundle;
    expect(saved).toMatchObject({ anchored: true, checkpoint: { treeSize: 3 } });
    const pinned = {
      rpcUrl: chain.url,
      programId: LOCAL_PROGRAM_ID,
      authority: chain.authority.publicKey.toBase58(),
    };
    expect(await verifyProof(saved, pinned)).toMatchObject({ ok: true, bridged: null });

    for (let i = 0; i < 50; i++) {
      await client.remember(`later ${i}`);
      await anchorNow();
    }
    const head = await client.log.get();
    expect(head).toMatchObject({ treeSize: 53, anchored: { treeSize: 53, nonce: 51 } });
    const chainRoot = head.anchored?.rootHash as string;

    // The credential is gone: from here on, nothing authenticated is called.
    client.signOut();
    const requests: string[] = [];
    const stranger = { ...pinned, content: "the receipt", fetch: recordingFetch(requests) };

    expect(await verifyProof(saved, stranger)).toMatchObject({
      ok: false,
      reason: "stale_checkpoint",
      bridged: null,
      onChain: { memoryCount: 53, nonce: 51, root: chainRoot },
    });
    const bridged = await verifyProof(saved, { ...stranger, apiUrl: t.url });
    expect(bridged).toMatchObject({
      ok: true,
      contentChecked: true,
      bridged: { from: 3, to: 53 },
      onChain: { memoryCount: 53, nonce: 51, root: chainRoot },
    });
    expect(bridged.reason).toBeUndefined();
    expect(bridged.bridged?.proof.length).toBeGreaterThan(0);
    const apiRequests = requests.filter((r) => r.includes(t.url));
    expect(apiRequests).toEqual([`GET ${t.url}/owners/${owner}/consistency?from=3&to=53 -`]);
    expect(requests.every((r) => r.endsWith(" -"))).toBe(true);

    // client.verify(id) bridges with the client's own baseUrl, e.g. behind a cache that still
    // serves the receipt cut at size 3.
    const lagging = withVerify(
      createClient({
        baseUrl: t.url,
        token: "unused",
        fetch: async (input, init) => {
          const request = new Request(input, init);
          const path = new URL(request.url).pathname;
          if (path === `/memories/${id}/proof`) {
            return Response.json(saved);
          }
          if (path === `/memories/${id}`) {
            return Response.json({ id, content: "the receipt" });
          }
          return new Response(null, { status: 599 });
        },
      }),
    );
    expect(await lagging.verify(id, { rpcUrl: chain.url })).toMatchObject({
      ok: true,
      contentChecked: true,
      bridged: { from: 3, to: 53 },
    });

    // A tampered consistency proof from a fake API: consistency_invalid.
    const tampering = await fakeApi(async (url) => {
      const answer = (await (await fetch(`${t.url}${url.pathname}${url.search}`)).json()) as {
        proof: string[];
      };
      const proof = [...answer.proof];
      proof[0] = `${proof[0]?.slice(0, 63)}${proof[0]?.endsWith("0") ? "1" : "0"}`;
      return { ...answer, proof };
    });
    // A forger: a bundle for a leaf the owner never wrote, at index 1 of a made-up tree whose
    // root at size 3 was never on chain, and "consistency" answers made for it.
    const forgedLeaf = { ...saved.leafData, metadata: { n: 2, forged: true } } as LeafData;
    const forgedLeafHash = leafHashOf(forgedLeaf);
    const forgedRoot = rootFromInclusionProof(
      1,
      3,
      forgedLeafHash,
      (saved.inclusionProof ?? []).map(fromHex),
    );
    const forged: ProofBundle = {
      ...saved,
      leafData: forgedLeaf,
      leafHash: toHex(forgedLeafHash),
      checkpoint: { treeSize: 3, rootHash: toHex(forgedRoot) },
    };
    const leaves = (
      await t.sql<{ leaf_hash: Buffer }[]>`
        select m.leaf_hash from memories m join users u on u.id = m.user_id
        where u.owner_pubkey = ${owner} order by m.leaf_index`
    ).map((r, i) => (i === 1 ? forgedLeafHash : new Uint8Array(r.leaf_hash)));
    expect(leaves).toHaveLength(53);
    const fakeTree = CompactRange.empty();
    const fakeNodes = new MemoryNodeStore();
    for (const leaf of leaves) {
      fakeNodes.put(fakeTree.append(leaf));
    }
    let forgery = 0;
    const forger = await fakeApi(async (url) => {
      const from = Number(url.searchParams.get("from"));
      const to = Number(url.searchParams.get("to"));
      forgery += 1;
      if (forgery === 1) {
        // The forged tree's own proof, claiming the chain's root as its end.
        const proof = await consistencyProof(from, to, fakeNodes);
        return {
          owner,
          from,
          to,
          fromRoot: toHex(forgedRoot),
          toRoot: chainRoot,
          proof: proof.map(toHex),
        };
      }
      // The genuine proof of the real log, relabelled as starting at the forged root.
      const real = (await (await fetch(`${t.url}${url.pathname}${url.search}`)).json()) as object;
      return { ...real, fromRoot: toHex(forgedRoot) };
    });
    try {
      expect(await verifyProof(saved, { ...pinned, apiUrl: tampering.url })).toMatchObject({
        ok: false,
        reason: "consistency_invalid",
        bridged: null,
      });
      expect(tampering.hits).toEqual([`GET /owners/${owner}/consistency?from=3&to=53`]);

      expect(await verifyProof(forged, pinned)).toMatchObject({
        ok: false,
        reason: "stale_checkpoint",
      });
      for (const round of [1, 2]) {
        const outcome = await verifyProof(forged, { ...pinned, apiUrl: forger.url });
        expect(outcome, `forgery ${round}`).toMatchObject({
          ok: false,
          reason: "consistency_invalid",
        });
      }
      expect(forgery).toBe(2);
      // The genuine service refuses to lend the forgery anything either.
      expect(await verifyProof(forged, { ...pinned, apiUrl: t.url })).toMatchObject({
        ok: false,
        reason: "consistency_invalid",
      });
    } finally {
      tampering.server.close();
      forger.server.close();
    }
  });
});
