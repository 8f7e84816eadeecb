/**
 * Witnesses of the checkpoint log (docs/protocol.md §13.6 "Witnesses"), all real: core-api over
 * HTTP on PostgreSQL, the local chain with the anchor service's sweep and checkpoint-log step, and
 * apps/witness instances serving over HTTP with their state files. Two witnesses cosign every head
 * (2-of-2 policy checked on `GET /tlog/checkpoint`, also after the log grew, through consistency
 * proofs); a witness that saw an older head answers 409 and the log resynchronises; a witness
 * holding a fork answers 422; a witness trusting another log key answers 403; an unreachable one
 * is counted and never blocks. svc-verify's witness policy check reads the served checkpoint.
 */
import { once } from "node:events";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { serve } from "@hono/node-server";
import { sha256 } from "@noble/hashes/sha2.js";
import {
  anchorCheckpointLog,
  createMetrics,
  createWitnessSubmitter,
  parseWitnessUrls,
  submitHead,
  type Witness,
} from "@verifiable-memory/anchor-service";
import { type CheckpointLogHead, latestCheckpointLogHead } from "@verifiable-memory/db-schema";
import {
  type Cosigner,
  formatCheckpoint,
  generateCosigner,
  generateSigner,
  NoteError,
  openWitnessedCheckpoint,
  parseCosignerVerifierKey,
  parseVerifierKey,
  signerFromSeed,
  signNote,
} from "@verifiable-memory/signed-note";
import { newUser, postJson } from "@verifiable-memory/testkit";
import { checkWitnessPolicy } from "@verifiable-memory/verifier";
import { createWitnessApp, openWitnessStore } from "@verifiable-memory/witness";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Chain, type CoreApp, startChain, startCoreApi } from "../_apps.js";

const ORIGIN = "localhost:8787/tlog";
const signer = signerFromSeed(ORIGIN, sha256(new TextEncoder().encode("e2e witness log key")));
const logVerifier = parseVerifierKey(signer.vkey);
const logKey = { origin: ORIGIN, signer, verifiers: [signer] };

interface RunningWitness {
  readonly cosigner: Cosigner;
  readonly url: string;
  close(): Promise<void>;
}

let scratch: string;
let chain: Chain;
let t: CoreApp;
const witnesses: RunningWitness[] = [];
const lines: string[] = [];
const logger = pino({ level: "info" }, { write: (line: string) => lines.push(line) });

/** An apps/witness instance on a free port, trusting `trusted` for ORIGIN. */
async function startWitness(name: string, trusted = logVerifier): Promise<RunningWitness> {
  const cosigner = generateCosigner(name);
  const app = createWitnessApp({
    cosigner,
    logs: new Map([[ORIGIN, [trusted]]]),
    store: await openWitnessStore(join(scratch, `witness-${witnesses.length}.json`)),
    now: Date.now,
    logger: pino({ level: "silent" }),
  });
  const server = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" });
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  const running = {
    cosigner,
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
  witnesses.push(running);
  return running;
}

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), "svc-witness-"));
  const keyPath = join(scratch, "log-signing.key");
  await writeFile(keyPath, `${signer.skey}\n`, { mode: 0o600 });
  chain = await startChain(join(scratch, "chain"));
  t = await startCoreApi({
    env: {
      CHAIN_RPC_URL: chain.url,
      SIWS_CHAIN_ID: "localnet",
      LOG_ORIGIN: ORIGIN,
      LOG_SIGNING_KEY_PATH: keyPath,
      RATE_LIMIT_TLOG_PER_MINUTE: "0",
    },
  });
});
afterAll(async () => {
  await Promise.all(witnesses.map((w) => w.close()));
  await t?.close();
  await chain?.close();
  await rm(scratch, { recursive: true, force: true });
});

/** The anchor service's view of a running witness (as WITNESS_URLS names it). */
function target(w: RunningWitness): Witness {
  return parseWitnessUrls(`${w.cosigner.vkey}@${w.url}`)[0] as Witness;
}

const metrics = () => createMetrics({ db: t.db, intervalMs: 30_000 });

/** Writes `n` memories of a new user, runs a sweep and the checkpoint-log step: a new head. */
async function grow(n: number): Promise<CheckpointLogHead> {
  const user = await newUser(t.url);
  for (let i = 0; i < n; i++) {
    const res = await postJson(`${t.url}/memories`, { content: `note ${i}` }, user.headers);
    expect(res.status).toBe(201);
  }
  await chain.anchorNow(t.db);
  const outcome = await anchorCheckpointLog({
    db: t.db,
    logKey,
    chain: chain.client,
    logger,
    metrics: metrics(),
  });
  expect(outcome.outcome).toBe("anchored");
  return (await latestCheckpointLogHead(t.db)) as CheckpointLogHead;
}

async function served(): Promise<string> {
  const res = await fetch(`${t.url}/tlog/checkpoint`);
  expect(res.status).toBe(200);
  return res.text();
}

function forgedCheckpoint(size: number): string {
  const root = sha256(new TextEncoder().encode(`fork ${size}`));
  return signNote(formatCheckpoint({ origin: ORIGIN, size, rootHash: root, extensions: [] }), [
    signer,
  ]);
}

describe("witnesses of the checkpoint log", () => {
  it("two witnesses cosign each head; /tlog/checkpoint meets a 2-of-2 policy as the log grows", async () => {
    const [w1, w2] = [await startWitness("witness.test/w1"), await startWitness("witness.test/w2")];
    const keys = [w1, w2].map((w) => parseCosignerVerifierKey(w.cosigner.vkey));
    const m = metrics();
    const submitter = createWitnessSubmitter(
      { db: t.db, logger, metrics: m },
      parseWitnessUrls([w1, w2].map((w) => `${w.cosigner.vkey}@${w.url}`).join(",")),
      2,
    );
    const first = await grow(2);
    expect(openWitnessedCheckpoint(await served(), [logVerifier], keys, 0).checkpoint.size).toBe(
      first.treeSize,
    );
    expect(submitter.kick()).toBeUndefined();
    await submitter.idle();
    const one = openWitnessedCheckpoint(await served(), [logVerifier], keys, 2, ORIGIN);
    expect(one.checkpoint.size).toBe(first.treeSize);
    expect(one.cosignatures.map((c) => c.name).sort()).toEqual([
      "witness.test/w1",
      "witness.test/w2",
    ]);

    // The log grows: each witness gets `old` = its last size and a consistency proof.
    const second = await grow(3);
    expect(second.treeSize).toBeGreaterThan(first.treeSize);
    const stale = await served();
    expect(() => openWitnessedCheckpoint(stale, [logVerifier], keys, 1)).toThrow(NoteError);
    submitter.kick();
    await submitter.idle();
    const two = openWitnessedCheckpoint(await served(), [logVerifier], keys, 2, ORIGIN);
    expect(two.checkpoint.size).toBe(second.treeSize);
    const { values } = await m.witnessSubmissions.get();
    expect(values.find((v) => v.labels.outcome === "cosigned")?.value).toBe(4);
    expect((await m.headCosignatures.get()).values[0]?.value).toBe(2);

    // svc-verify's check of GET /tlog/checkpoint with the pinned keys.
    const vkeys = [w1, w2].map((w) => w.cosigner.vkey);
    expect(await checkWitnessPolicy(t.url, [signer.vkey], vkeys, 2)).toEqual({
      ok: true,
      size: second.treeSize,
      witnesses: ["witness.test/w1", "witness.test/w2"],
    });
    const stranger = generateCosigner("witness.test/absent").vkey;
    expect(await checkWitnessPolicy(t.url, [signer.vkey], [...vkeys, stranger], 3)).toMatchObject({
      ok: false,
      reason: "witness_policy_unmet",
    });
    expect(await checkWitnessPolicy(t.url, [generateSigner(ORIGIN).vkey], vkeys, 2)).toMatchObject({
      ok: false,
      reason: "note_signature_invalid",
    });

    // Nothing new: no witness is asked again.
    submitter.kick();
    await submitter.idle();
    expect(
      (await m.witnessSubmissions.get()).values.find((v) => v.labels.outcome === "cosigned")?.value,
    ).toBe(4);
  });

  it("resynchronises with a witness that cosigned an older head (409 with its size)", async () => {
    const w3 = await startWitness("witness.test/w3");
    const older = (await latestCheckpointLogHead(t.db)) as CheckpointLogHead;
    const seen = await fetch(`${w3.url}/add-checkpoint`, {
      method: "POST",
      body: `old 0\n\n${older.note}`,
    });
    expect(seen.status).toBe(200);
    const head = await grow(1);
    lines.length = 0;
    expect(await submitHead({ db: t.db, logger, metrics: metrics() }, target(w3), head)).toBe(
      "cosigned",
    );
    expect(
      lines.some(
        (l) =>
          l.includes("witness resynchronised") && l.includes(`"witnessSize":${older.treeSize}`),
      ),
    ).toBe(true);
    const key = parseCosignerVerifierKey(w3.cosigner.vkey);
    expect(
      openWitnessedCheckpoint(await served(), [logVerifier], [key], 1).cosignatures,
    ).toHaveLength(1);
  });

  it("logs a 422 from a witness holding a fork, a 403 from one trusting another key, and an unreachable one", async () => {
    const head = (await latestCheckpointLogHead(t.db)) as CheckpointLogHead;
    const deps = { db: t.db, logger, metrics: metrics() };

    const forked = await startWitness("witness.test/fork");
    const fork = await fetch(`${forked.url}/add-checkpoint`, {
      method: "POST",
      body: `old 0\n\n${forgedCheckpoint(head.treeSize - 1)}`,
    });
    expect(fork.status).toBe(200);
    lines.length = 0;
    expect(await submitHead(deps, target(forked), head)).toBe("rejected");
    expect(lines.some((l) => l.includes('"status":422') && l.includes('"level":50'))).toBe(true);

    const other = await startWitness(
      "witness.test/other",
      parseVerifierKey(generateSigner(ORIGIN).vkey),
    );
    lines.length = 0;
    expect(await submitHead(deps, target(other), head)).toBe("rejected");
    expect(lines.some((l) => l.includes('"status":403'))).toBe(true);

    const gone = await startWitness("witness.test/gone");
    await gone.close();
    expect(await submitHead(deps, target(gone), head)).toBe("unavailable");
    const { values } = await deps.metrics.witnessSubmissions.get();
    expect(Object.fromEntries(values.map((v) => [v.labels.outcome, v.value]))).toEqual({
      rejected: 2,
      unavailable: 1,
    });
  });
});
