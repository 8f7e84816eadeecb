/**
 * The checkpoint log over HTTP (docs/protocol.md §13.4 "Tiles", §13.5 "The checkpoint log"): a
 * monitor holding only the log's verifier key fetches `/tlog/checkpoint` and tiles, rebuilds the
 * root from the tiles alone and checks it against the signed checkpoint, builds a consistency
 * proof between two checkpoints from tiles alone, and reads the entries from entry bundles; the
 * caching headers, 404s and the log's own rate limit.
 */
import { createHash } from "node:crypto";
import { appendCheckpointLog, insertAnchoredCheckpoint } from "@verifiable-memory/db-schema";
import {
  consistencyProof,
  decodeEntryBundle,
  hashLeaf,
  rootFromSource,
  type TileId,
  TileNodeSource,
  tilePath,
  verifyConsistency,
} from "@verifiable-memory/merkle-log";
import {
  formatCheckpoint,
  openCheckpoint,
  parseVerifierKey,
  signerFromSeed,
  signNote,
} from "@verifiable-memory/signed-note";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newUser, startTestApp, type TestApp } from "./helpers.js";

const ORIGIN = "localhost:8787/tlog";
const sha256 = (text: string) => new Uint8Array(createHash("sha256").update(text).digest());
const signer = signerFromSeed(ORIGIN, sha256("tlog test key"));
const verifier = parseVerifierKey(signer.vkey);
let t: TestApp;

beforeAll(async () => {
  t = await startTestApp({ env: { RATE_LIMIT_TLOG_PER_MINUTE: "0" } });
});
afterAll(async () => {
  await t?.close();
});

/** Anchors `n` checkpoints of one user and appends them to the checkpoint log. */
async function grow(n: number): Promise<void> {
  const user = await newUser(t.app);
  for (let i = 1; i <= n; i++) {
    await insertAnchoredCheckpoint(t.db, {
      userId: user.userId,
      treeSize: i,
      root: sha256(`${user.userId} ${i}`),
      nonce: i,
      signature: `s${i}`,
    });
  }
  await appendCheckpointLog(t.db, {
    maxEntries: 100_000,
    noteOf: (entry) => signNote(new TextDecoder().decode(entry), [signer]),
    entryOf: (c) =>
      new TextEncoder().encode(
        formatCheckpoint({
          origin: `${ORIGIN}/users/${c.owner}`,
          size: c.treeSize,
          rootHash: c.root,
          extensions: [],
        }),
      ),
    sign: (size, root) =>
      signNote(formatCheckpoint({ origin: ORIGIN, size, rootHash: root, extensions: [] }), [
        signer,
      ]),
  });
}

async function checkpoint(): Promise<{ size: number; root: Uint8Array }> {
  const res = await t.app.request("/tlog/checkpoint");
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toBe("text/plain; charset=utf-8");
  expect(res.headers.get("cache-control")).toBe("no-cache");
  const { checkpoint: cp } = openCheckpoint(await res.text(), [verifier], ORIGIN);
  return { size: cp.size, root: cp.rootHash };
}

/** A node source that reads tiles over HTTP only, counting the fetches. */
function httpTiles(size: number, fetched: string[]): TileNodeSource {
  return new TileNodeSource(size, async (tile: TileId) => {
    const path = tilePath(tile);
    fetched.push(path);
    const res = await t.app.request(`/tlog/${path}`);
    expect(res.status, path).toBe(200);
    expect(res.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    expect(res.headers.get("content-type")).toBe("application/octet-stream");
    return new Uint8Array(await res.arrayBuffer());
  });
}

describe("the checkpoint log under /tlog/", () => {
  it("is 404 while empty", async () => {
    expect((await t.app.request("/tlog/checkpoint")).status).toBe(404);
    expect((await t.app.request("/tlog/tile/0/000.p/1")).status).toBe(404);
  });

  it("rebuilds the signed root and a consistency proof from tiles alone", async () => {
    await grow(300);
    const old = await checkpoint();
    expect(old.size).toBe(300);
    await grow(260);
    const now = await checkpoint();
    expect(now.size).toBe(560);
    const fetched: string[] = [];
    const tiles = httpTiles(now.size, fetched);
    expect(await rootFromSource(now.size, tiles)).toEqual(now.root);
    expect(await rootFromSource(old.size, httpTiles(old.size, []))).toEqual(old.root);
    const proof = await consistencyProof(old.size, now.size, tiles);
    verifyConsistency(old.size, now.size, proof, old.root, now.root);
    // Each tile fetched once; the level-1 tile stands in for the full level-0 tile 000.
    expect([...new Set(fetched)].sort()).toEqual([
      "tile/0/001",
      "tile/0/002.p/48",
      "tile/1/000.p/2",
    ]);
    expect(new Set(fetched).size).toBe(fetched.length);
  });

  it("serves entry bundles whose entries hash to the level-0 tile", async () => {
    const res = await t.app.request("/tlog/tile/entries/002.p/48");
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    const entries = decodeEntryBundle(new Uint8Array(await res.arrayBuffer()));
    expect(entries).toHaveLength(48);
    expect(new TextDecoder().decode(entries[0]).startsWith(`${ORIGIN}/users/`)).toBe(true);
    const tile = new Uint8Array(await (await t.app.request("/tlog/tile/0/002.p/48")).arrayBuffer());
    entries.forEach((entry, i) => {
      expect(tile.subarray(i * 32, i * 32 + 32)).toEqual(hashLeaf(entry));
    });
    // A smaller partial tile is a prefix of the bigger one: its bytes never change.
    const prefix = await t.app.request("/tlog/tile/0/002.p/5");
    expect(new Uint8Array(await prefix.arrayBuffer())).toEqual(tile.subarray(0, 5 * 32));
  });

  it("answers 404 for tiles the log does not hold yet and for non-canonical paths", async () => {
    for (const path of [
      "tile/0/002",
      "tile/0/002.p/49",
      "tile/1/000",
      "tile/2/000.p/1",
      "tile/0/2",
      "tile/0/000.p/256",
      "tile/x",
    ]) {
      const res = await t.app.request(`/tlog/${path}`);
      expect(res.status, path).toBe(404);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe("not_found");
    }
  });
});

describe("the checkpoint log's own rate limit", () => {
  it("limits /tlog/ per client IP apart from the anonymous limit", async () => {
    const limited = await startTestApp({
      shareDatabaseOf: t,
      env: { RATE_LIMIT_TLOG_PER_MINUTE: "3", RATE_LIMIT_ANONYMOUS_PER_MINUTE: "1" },
    });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 4; i++) {
        statuses.push((await fetch(`${limited.url}/tlog/tile/0/000`)).status);
      }
      expect(statuses).toEqual([200, 200, 200, 429]);
      // The anonymous limit (1) was not spent by the tiles.
      expect((await fetch(`${limited.url}/info`)).status).toBe(200);
    } finally {
      await limited.close();
    }
  });
});
