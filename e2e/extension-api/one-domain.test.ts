/**
 * One memory domain for core-api and the extension API: a memory ingested through the extension
 * is the same encrypted append to the same per-user Merkle log as core's `POST /memories`; the two
 * APIs (separate connection pools, as separate processes) appending for one user at once keep the
 * root equal to a full recomputation and every proof valid.
 * @module
 */
import { rootAtSize } from "@verifiable-memory/db-schema";
import { recordCheckpoint as recordAnchoredCheckpoint } from "@verifiable-memory/memory/testing";
import { fromHex, rootFromLeafHashes, toHex, verifyInclusion } from "@verifiable-memory/merkle-log";
import { bearer, call, connect, mintApiKey, newWallet, signIn } from "@verifiable-memory/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CoreApp, type ExtensionApp, startCoreApi, startExtensionApi } from "../_apps.js";

let core: CoreApp;
let ext: ExtensionApp;

beforeAll(async () => {
  core = await startCoreApi();
  ext = await startExtensionApi({ databaseUrl: core.databaseUrl, clock: core.clock });
});
afterAll(async () => {
  await ext.close();
  await core.close();
});

interface Created {
  id: string;
  leafIndex: number;
  leafHash: string;
  metadata: Record<string, unknown>;
  createdAt: string;
  anchored: boolean;
}

/** Records an anchored checkpoint of `session`'s user at `size`, as the anchor service does. */
function recordCheckpoint(
  app: CoreApp,
  session: { userId: string },
  size: number,
  nonce: number,
): Promise<Uint8Array> {
  return recordAnchoredCheckpoint(app.db, session.userId, size, nonce, `sig${nonce}`);
}

describe("one memory domain with core-api", () => {
  it("an ingested memory is in core's GET /memories, with a proof that verifies", async () => {
    const wallet = newWallet();
    const { token } = await connect(ext.url, wallet);
    const session = await signIn(core.url, wallet);
    const ingested = await call<Created>(`${ext.url}/memories`, {
      headers: bearer(token),
      body: { content: "remember me", metadata: { url: "https://example.com/b" } },
    });
    const listed = await call<{ items: { id: string; content: string; leafIndex: number }[] }>(
      `${core.url}/memories`,
      { headers: bearer(session.token) },
    );
    expect(listed.body.items).toEqual([
      expect.objectContaining({ id: ingested.body.id, content: "remember me", leafIndex: 0 }),
    ]);
    const root = await recordCheckpoint(core, session, 1, 1);
    const proof = await call<{ leafHash: string; inclusionProof: string[] }>(
      `${core.url}/memories/${ingested.body.id}/proof`,
      { headers: bearer(session.token) },
    );
    expect(proof.status).toBe(200);
    expect(() =>
      verifyInclusion(
        0,
        1,
        fromHex(proof.body.leafHash),
        proof.body.inclusionProof.map(fromHex),
        root,
      ),
    ).not.toThrow();
  });

  it("core-api and the extension API appending for one user at once stay one log", async () => {
    const wallet = newWallet();
    const { token } = await connect(ext.url, wallet);
    const session = await signIn(core.url, wallet);
    const key = await mintApiKey(core.url, session.token);
    const writes = 120;
    const write = (url: string, headers: Record<string, string>, i: number) =>
      call<Created>(`${url}/memories`, { headers, body: { content: `memory ${i} via ${url}` } });
    const results = await Promise.all(
      Array.from({ length: writes }, (_, i) =>
        i % 2 === 0 ? write(core.url, bearer(key), i) : write(ext.url, bearer(token), i),
      ),
    );
    expect(results.every((r) => r.status === 201)).toBe(true);
    const indices = results.map((r) => r.body.leafIndex).sort((a, b) => a - b);
    expect(indices).toEqual(Array.from({ length: writes }, (_, i) => i));

    const leaves = results
      .slice()
      .sort((a, b) => a.body.leafIndex - b.body.leafIndex)
      .map((r) => fromHex(r.body.leafHash));
    const root = await rootAtSize(core.db, session.userId, writes);
    expect(toHex(root)).toBe(toHex(rootFromLeafHashes(leaves)));
    await recordCheckpoint(core, session, writes, 1);
    for (const r of results) {
      const proof = await call<{ inclusionProof: string[]; leafHash: string }>(
        `${core.url}/memories/${r.body.id}/proof`,
        { headers: bearer(session.token) },
      );
      expect(proof.body.leafHash).toBe(r.body.leafHash);
      expect(() =>
        verifyInclusion(
          r.body.leafIndex,
          writes,
          fromHex(proof.body.leafHash),
          proof.body.inclusionProof.map(fromHex),
          root,
        ),
      ).not.toThrow();
    }
    const recalled = await call<{ items: unknown[] }>(`${ext.url}/memories/search`, {
      headers: bearer(token),
      body: { query: "memory", limit: 200 },
    });
    expect(recalled.body.items).toHaveLength(writes);
  });
});
