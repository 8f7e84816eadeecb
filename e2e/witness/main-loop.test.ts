/**
 * The anchor service's own interval loop submits checkpoint-log heads to witnesses
 * (docs/protocol.md §13.6 "Witnesses", §7.7 "Leader election and the anchor service's surface"):
 * the anchor service's `main.ts` spawned under tsx with WITNESS_URLS naming one apps/witness
 * instance (served over HTTP in this process) and WITNESS_POLICY 1, core-api on the same
 * PostgreSQL database with the same log key, and the local chain. Nothing here calls the submitter:
 * the test writes memories and polls until the witness's cosignature of the anchored head is stored
 * and served by `GET /tlog/checkpoint`, then again after the log grew (a consistency proof from the
 * size the witness cosigned), and the process stops cleanly on SIGTERM.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { type AddressInfo, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { serve } from "@hono/node-server";
import {
  checkpointLogCosignatureLines,
  latestCheckpointLogHead,
  latestCosignedSize,
} from "@verifiable-memory/db-schema";
import {
  generateCosigner,
  generateSigner,
  openWitnessedCheckpoint,
  parseCosignerVerifierKey,
  parseVerifierKey,
} from "@verifiable-memory/signed-note";
import { newUser, postJson } from "@verifiable-memory/testkit";
import { createWitnessApp, openWitnessStore } from "@verifiable-memory/witness";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Chain, type CoreApp, startChain, startCoreApi } from "../_apps.js";

const ORIGIN = "localhost:8787/tlog";
const signer = generateSigner(ORIGIN);
const logVerifier = parseVerifierKey(signer.vkey);
const cosigner = generateCosigner("witness.test/main-loop");
const witnessKey = parseCosignerVerifierKey(cosigner.vkey);
const anchorDir = fileURLToPath(new URL("../../apps/anchor-service", import.meta.url));

let scratch: string;
let chain: Chain;
let t: CoreApp;
let witness: { url: string; close(): Promise<void> };
let child: ChildProcess;
let metricsPort: number;
const output: string[] = [];

/** A port free right now on 127.0.0.1. */
async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Polls `probe` every 50 ms until it gives something other than null or false. */
async function waitFor<T>(
  what: string,
  probe: () => Promise<T | null | false>,
  timeoutMs = 45_000,
) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== null && value !== false) {
      return value;
    }
    if (Date.now() > deadline || child.exitCode !== null) {
      throw new Error(`timed out waiting for ${what}; anchor service said:\n${output.join("")}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The anchor service's metric `name` (with its labels, as exposed), or undefined. */
async function metric(name: string): Promise<number | undefined> {
  const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
  const line = text.split("\n").find((l) => l.startsWith(`${name} `));
  return line === undefined ? undefined : Number(line.slice(name.length + 1));
}

/** The served checkpoint, opened with the log key and a 1-of-1 policy over the witness, or null. */
async function witnessed() {
  const res = await fetch(`${t.url}/tlog/checkpoint`);
  if (res.status !== 200) {
    return null;
  }
  try {
    return openWitnessedCheckpoint(await res.text(), [logVerifier], [witnessKey], 1, ORIGIN);
  } catch {
    return null;
  }
}

/** Writes `n` memories as a new user. */
async function write(n: number) {
  const user = await newUser(t.url);
  for (let i = 0; i < n; i++) {
    const res = await postJson(`${t.url}/memories`, { content: `note ${i}` }, user.headers);
    expect(res.status).toBe(201);
  }
}

/** Waits until the latest anchored head of at least `minSize` has the witness's stored cosignature. */
async function cosignedHead(minSize: number) {
  return waitFor(`a cosigned head of at least ${minSize} entries`, async () => {
    const head = await latestCheckpointLogHead(t.db);
    if (!head || head.treeSize < minSize || head.anchorSignature === null) {
      return null;
    }
    return (await latestCosignedSize(t.db, cosigner.vkey)) === head.treeSize && head;
  });
}

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), "svc-witness-main-"));
  const keyPath = join(scratch, "log-signing.key");
  await writeFile(keyPath, `${signer.skey}\n`, { mode: 0o600 });
  chain = await startChain(join(scratch, "chain"));
  const authorityPath = join(scratch, "authority.json");
  await writeFile(authorityPath, JSON.stringify([...chain.authority.secretKey]), { mode: 0o600 });
  t = await startCoreApi({
    env: {
      CHAIN_RPC_URL: chain.url,
      SIWS_CHAIN_ID: "localnet",
      LOG_ORIGIN: ORIGIN,
      LOG_SIGNING_KEY_PATH: keyPath,
      RATE_LIMIT_TLOG_PER_MINUTE: "0",
    },
  });
  const app = createWitnessApp({
    cosigner,
    logs: new Map([[ORIGIN, [logVerifier]]]),
    store: await openWitnessStore(join(scratch, "witness.json")),
    now: Date.now,
    logger: pino({ level: "silent" }),
  });
  const server = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" });
  await once(server, "listening");
  witness = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
  metricsPort = await freePort();
  child = spawn(process.execPath, ["--import", "tsx", "src/main.ts"], {
    cwd: anchorDir,
    env: {
      PATH: process.env.PATH,
      DATABASE_URL: t.databaseUrl,
      CHAIN_RPC_URL: chain.url,
      SERVICE_PROGRAM_ID: chain.client.programId,
      AUTHORITY_KEYPAIR_PATH: authorityPath,
      ANCHOR_PORT: String(metricsPort),
      ANCHOR_INTERVAL_MS: "500",
      SEAL_MAX_AGE_MS: "0",
      LOG_ORIGIN: ORIGIN,
      LOG_SIGNING_KEY_PATH: keyPath,
      WITNESS_URLS: `${cosigner.vkey}@${witness.url}`,
      WITNESS_POLICY: "1",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout?.on("data", (chunk: Buffer) => output.push(chunk.toString()));
  child.stderr?.on("data", (chunk: Buffer) => output.push(chunk.toString()));
});
afterAll(async () => {
  if (child && child.exitCode === null && child.signalCode === null) {
    child.kill("SIGKILL");
    await once(child, "exit");
  }
  await witness?.close();
  await t?.close();
  await chain?.close();
  await rm(scratch, { recursive: true, force: true });
});

describe("the anchor service's interval loop submits checkpoint-log heads to WITNESS_URLS", () => {
  let firstSize: number;

  it("anchors the head and stores the witness's cosignature, which GET /tlog/checkpoint serves", async () => {
    expect(await witnessed()).toBeNull();
    await write(2);
    const head = await cosignedHead(1);
    firstSize = head.treeSize;
    const [line, ...others] = await checkpointLogCosignatureLines(t.db, head.treeSize);
    expect(others).toEqual([]);
    expect(line).toMatch(/^— witness\.test\/main-loop /);
    const served = await waitFor("the served checkpoint with the cosignature", witnessed);
    expect(served.checkpoint.size).toBe(head.treeSize);
    expect(served.cosignatures.map((c) => c.name)).toEqual(["witness.test/main-loop"]);
    expect(await metric("anchor_checkpoint_log_cosignatures")).toBe(1);
    expect(await metric('anchor_witness_submissions_total{outcome="cosigned"}')).toBeGreaterThan(0);
  });

  it("submits the grown log's next head (consistency from the cosigned size), then stops on SIGTERM", async () => {
    await write(1);
    const head = await cosignedHead(firstSize + 1);
    expect(head.treeSize).toBeGreaterThan(firstSize);
    const served = await waitFor("the grown head served with its cosignature", async () => {
      const opened = await witnessed();
      return opened !== null && opened.checkpoint.size === head.treeSize && opened;
    });
    expect(served.cosignatures).toHaveLength(1);
    const said = output.join("");
    expect(said).toContain("anchor service listening");
    expect(said).not.toMatch(/"level":50/);
    child.kill("SIGTERM");
    const [code] = await once(child, "exit");
    expect(code).toBe(0);
  });
});
