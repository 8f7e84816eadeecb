/**
 * `GET /tlog/consistency` (docs/protocol.md §13.5 "The checkpoint log"): over real HTTP on real
 * PostgreSQL, the proofs between signed sizes of the checkpoint log verify with merkle-log
 * against the roots of the signed checkpoints; bad query parameters are 400 `invalid_request`;
 * the route counts against the `/tlog/` per-IP limit.
 */
import { createHash } from "node:crypto";
import { appendCheckpointLog, insertAnchoredCheckpoint } from "@verifiable-memory/db-schema";
import { fromHex, verifyConsistency } from "@verifiable-memory/merkle-log";
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
const signer = signerFromSeed(ORIGIN, sha256("tlog consistency test key"));
const verifier = parseVerifierKey(signer.vkey);
let t: TestApp;
/** The signed checkpoints of the log, by size, as /tlog/checkpoint served them. */
const signed = new Map<number, Uint8Array>();

beforeAll(async () => {
  t = await startTestApp({ env: { RATE_LIMIT_TLOG_PER_MINUTE: "0" } });
});
afterAll(async () => {
  await t?.close();
});

/** Anchors `n` checkpoints of one new user, appends them, and records the signed head. */
async function grow(n: number): Promise<number> {
  const user = await newUser(t.url);
  for (let i = 1; i <= n; i++) {
    await insertAnchoredCheckpoint(t.db, {
      userId: user.userId,
      treeSize: i,
      root: sha256(`${user.userId} ${i}`),
      nonce: i,
      signature: `s${i}`,
    });
  }
  const note = (size: number, root: Uint8Array) =>
    signNote(formatCheckpoint({ origin: ORIGIN, size, rootHash: root, extensions: [] }), [signer]);
  await appendCheckpointLog(t.db, {
    maxEntries: 100_000,
    entryOf: (c) =>
      new TextEncoder().encode(
        formatCheckpoint({
          origin: `${ORIGIN}/users/${c.owner}`,
          size: c.treeSize,
          rootHash: c.root,
          extensions: [],
        }),
      ),
    noteOf: (entry) => signNote(new TextDecoder().decode(entry), [signer]),
    sign: note,
  });
  const res = await fetch(`${t.url}/tlog/checkpoint`);
  const { checkpoint } = openCheckpoint(await res.text(), [verifier], ORIGIN);
  signed.set(checkpoint.size, checkpoint.rootHash);
  return checkpoint.size;
}

async function consistency(query: string) {
  const res = await fetch(`${t.url}/tlog/consistency?${query}`);
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

describe("GET /tlog/consistency", () => {
  it("is 400 while the log is empty (to past the signed size 0)", async () => {
    const { status, body } = await consistency("from=1&to=1");
    expect(status).toBe(400);
    expect(body).toMatchObject({ error: { code: "invalid_request", details: [{ path: ["to"] }] } });
  });

  it("proves every pair of signed sizes, verified against the signed roots", async () => {
    const sizes = [await grow(3), await grow(1), await grow(290), await grow(7)];
    expect(sizes).toEqual([3, 4, 294, 301]);
    for (const from of sizes) {
      for (const to of sizes.filter((s) => s >= from)) {
        const { status, body } = await consistency(`from=${from}&to=${to}`);
        expect(status, `${from}..${to}`).toBe(200);
        const proof = (body.proof as string[]).map(fromHex);
        expect(Object.keys(body).sort()).toEqual(["from", "fromRoot", "proof", "to", "toRoot"]);
        expect(body).toMatchObject({ from, to });
        const fromRoot = signed.get(from) as Uint8Array;
        const toRoot = signed.get(to) as Uint8Array;
        expect(fromHex(body.fromRoot as string)).toEqual(fromRoot);
        expect(fromHex(body.toRoot as string)).toEqual(toRoot);
        if (from === to) {
          expect(proof).toEqual([]);
        } else {
          expect(() => verifyConsistency(from, to, proof, fromRoot, toRoot)).not.toThrow();
          // Against another root it fails: the proof binds the two signed trees.
          expect(() => verifyConsistency(from, to, proof, toRoot, toRoot)).toThrow();
        }
      }
    }
  });

  it("refuses bad query parameters with 400 invalid_request", async () => {
    const cases: [string, string][] = [
      ["from=5&to=4", "from"],
      ["from=1&to=302", "to"],
      ["from=0&to=3", "from"],
      ["from=1", "to"],
      ["to=3", "from"],
      ["from=0x1&to=3", "from"],
      ["from=1&to=3.0", "to"],
      ["from=01&to=3", "from"],
      ["from=1&to=%203", "to"],
      ["from=1&to=3&extra=1", ""],
    ];
    for (const [query, path] of cases) {
      const { status, body } = await consistency(query);
      expect(status, query).toBe(400);
      const error = body.error as { code: string; details: { path: unknown[] }[] };
      expect(error.code, query).toBe("invalid_request");
      if (path) {
        expect(
          error.details.map((d) => d.path[0]),
          query,
        ).toContain(path);
      }
    }
  });

  it("needs no credential and counts against the /tlog/ per-IP limit", async () => {
    const limited = await startTestApp({
      shareDatabaseOf: t,
      env: { RATE_LIMIT_TLOG_PER_MINUTE: "2", RATE_LIMIT_ANONYMOUS_PER_MINUTE: "1" },
    });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 2; i++) {
        statuses.push((await fetch(`${limited.url}/tlog/consistency?from=1&to=3`)).status);
      }
      statuses.push((await fetch(`${limited.url}/tlog/tile/0/000.p/3`)).status);
      expect(statuses).toEqual([200, 200, 429]);
      expect((await fetch(`${limited.url}/info`)).status).toBe(200);
    } finally {
      await limited.close();
    }
  });
});
