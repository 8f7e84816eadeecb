/**
 * The witness's add-checkpoint over its hono app (app.request) with a real state file, real
 * Ed25519 keys and real RFC 9162 trees: every status of docs/protocol.md §13.6 "Witnesses".
 */
import { mkdtemp, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  CompactRange,
  consistencyProof,
  hashLeaf,
  MemoryNodeStore,
} from "@verifiable-memory/merkle-log";
import { createLogger } from "@verifiable-memory/runtime";
import {
  encodeBase64,
  formatCheckpoint,
  generateCosigner,
  generateSigner,
  openWitnessedCheckpoint,
  parseCosignerVerifierKey,
  signNote,
} from "@verifiable-memory/signed-note";
import { beforeEach, describe, expect, it } from "vitest";
import { createWitnessApp, openWitnessStore } from "../src/index.js";

const ORIGIN = "log.example/tlog";
const log = generateSigner(ORIGIN);
const cosigner = generateCosigner("witness.example/w1");
const witnessKey = parseCosignerVerifierKey(cosigner.vkey);

// One tree of 20 leaves; roots and proofs at any size from it.
const store = new MemoryNodeStore();
const range = CompactRange.empty();
const roots: Uint8Array[] = [range.root()];
for (let i = 0; i < 20; i++) {
  store.put(range.append(hashLeaf(new TextEncoder().encode(`leaf ${i}`))));
  roots.push(range.root());
}

function checkpoint(size: number, root = roots[size] as Uint8Array, signer = log): string {
  return signNote(formatCheckpoint({ origin: ORIGIN, size, rootHash: root, extensions: [] }), [
    signer,
  ]);
}

async function body(old: number, size: number, note = checkpoint(size)): Promise<string> {
  const proof = old === 0 ? [] : await consistencyProof(old, size, store);
  return `old ${old}\n${proof.map((h) => `${encodeBase64(h)}\n`).join("")}\n${note}`;
}

let statePath: string;
let app: ReturnType<typeof createWitnessApp>;

async function makeApp(): Promise<ReturnType<typeof createWitnessApp>> {
  return createWitnessApp({
    cosigner,
    logs: new Map([[ORIGIN, [log]]]),
    store: await openWitnessStore(statePath),
    now: () => 1_700_000_000_500,
    logger: createLogger({ service: "witness-test", level: "silent" }),
  });
}

async function post(text: string) {
  const response = await app.request("/add-checkpoint", { method: "POST", body: text });
  return {
    status: response.status,
    type: response.headers.get("content-type"),
    text: await response.text(),
  };
}

beforeEach(async () => {
  statePath = join(await mkdtemp(join(tmpdir(), "witness-")), "state", "witness.json");
  app = await makeApp();
});

describe("add-checkpoint", () => {
  it("cosigns a first checkpoint (old 0), then one that grows, and persists the state", async () => {
    const first = await post(await body(0, 5));
    expect(first.status).toBe(200);
    expect(first.type).toBe("text/plain; charset=utf-8");
    expect(first.text).toMatch(/^— witness\.example\/w1 [A-Za-z0-9+/=]+\n$/);
    const opened = openWitnessedCheckpoint(checkpoint(5) + first.text, [log], [witnessKey], 1);
    expect(opened.cosignatures[0]?.time).toBe(1_700_000_000n);

    const grown = await post(await body(5, 13));
    expect(grown.status).toBe(200);
    openWitnessedCheckpoint(checkpoint(13) + grown.text, [log], [witnessKey], 1);
    const saved = JSON.parse(await readFile(statePath, "utf8"));
    expect(saved[ORIGIN]).toEqual({ size: 13, root: encodeBase64(roots[13] as Uint8Array) });

    app = await makeApp();
    const again = await post(await body(5, 14));
    expect(again).toMatchObject({ status: 409, type: "text/x.tlog.size", text: "13\n" });
    expect((await post(await body(13, 13))).status).toBe(200);
  });

  it("answers 409 with its size when old is not its size, or the same size has another root", async () => {
    expect((await post(await body(0, 8))).status).toBe(200);
    expect(await post(await body(0, 10))).toMatchObject({
      status: 409,
      type: "text/x.tlog.size",
      text: "8\n",
    });
    expect((await post(await body(4, 10))).text).toBe("8\n");
    const fork = checkpoint(8, roots[9]);
    expect(await post(`old 8\n\n${fork}`)).toMatchObject({ status: 409, text: "8\n" });
  });

  it("answers 422 when the consistency proof does not verify, and keeps its state", async () => {
    expect((await post(await body(0, 6))).status).toBe(200);
    const good = await body(6, 17);
    const flipped = good.replace(
      /^old 6\n(.)/,
      (_, c: string) => `old 6\n${c === "A" ? "B" : "A"}`,
    );
    expect((await post(flipped)).status).toBe(422);
    const short = good.replace(/^old 6\n[^\n]+\n/, "old 6\n");
    expect((await post(short)).status).toBe(422);
    const otherRoot = await body(6, 17, checkpoint(17, roots[18]));
    expect((await post(otherRoot)).status).toBe(422);
    expect(JSON.parse(await readFile(statePath, "utf8"))[ORIGIN].size).toBe(6);
    expect((await post(good)).status).toBe(200);
  });

  it("answers 403 for a checkpoint not signed by the log's key, 404 for an unknown origin", async () => {
    const forged = await post(await body(0, 5, checkpoint(5, roots[5], generateSigner(ORIGIN))));
    expect(forged.status).toBe(403);
    const tampered = checkpoint(5).replace(/\n5\n/, "\n6\n");
    expect((await post(`old 0\n\n${tampered}`)).status).toBe(403);
    const stranger = generateSigner("other.example/log");
    const unknown = signNote(
      formatCheckpoint({
        origin: "other.example/log",
        size: 1,
        rootHash: roots[1] as Uint8Array,
        extensions: [],
      }),
      [stranger],
    );
    expect((await post(`old 0\n\n${unknown}`)).status).toBe(404);
  });

  it("answers 400 for malformed bodies", async () => {
    const note = checkpoint(5);
    const hash = encodeBase64(roots[1] as Uint8Array);
    for (const bad of [
      "",
      note,
      `old 05\n\n${note}`,
      `old -1\n\n${note}`,
      `old 0\nnot base64\n\n${note}`,
      `old 0\n${hash}\n\n${note}`,
      `old 6\n\n${note}`,
      `old 1\n${`${hash}\n`.repeat(64)}\n${note}`,
      "old 0\n\nnot a note\n",
      `old 0\n\nnot a checkpoint\n\n— ${ORIGIN} AAAA\n`,
      `old 0\n\n${note}${"x".repeat(70_000)}`,
    ]) {
      expect((await post(bad)).status, JSON.stringify(bad.slice(0, 40))).toBe(400);
    }
  });

  it("lets exactly one of two concurrent submissions from the same size through", async () => {
    expect((await post(await body(0, 4))).status).toBe(200);
    const answers = await Promise.all([post(await body(4, 9)), post(await body(4, 15))]);
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses).toEqual([200, 409]);
    const winner = answers[0]?.status === 200 ? 9 : 15;
    expect(answers.find((a) => a.status === 409)?.text).toBe(`${winner}\n`);
    expect(JSON.parse(await readFile(statePath, "utf8"))[ORIGIN].size).toBe(winner);
  });
});
