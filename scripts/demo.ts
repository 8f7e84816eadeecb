/**
 * `pnpm demo`: an agent drives the running service (`pnpm start`) end to end on real text.
 * 1. a wallet (new, or `--keypair <Solana CLI keypair JSON>`) signs in with SIWS;
 * 2. it mints an API key and stores the README paragraphs of the installed dependencies;
 * 3. it recalls with several queries and prints the hits;
 * 4. it waits until the anchor service has anchored everything;
 * 5. it fetches proofs and checks a sample with the auditor CLI (`svc-verify`) against the chain;
 * 6. it shares three memories through a capability URL, opens it anonymously and checks the proofs;
 * and ends with a summary table. Options: --api <url> (default http://localhost:8787),
 * --rpc <chain RPC> (default CHAIN_RPC_URL from .env, else http://127.0.0.1:8899),
 * --memories <n> (default 400), --sample <n> (default 5), --keypair <file>.
 * @module
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs, parseEnv } from "node:util";
import { verifyBundle } from "@svc/verifier";
import { Presets, SingleBar } from "cli-progress";
import { readCorpus } from "./lib/corpus.js";
import { loadWallet } from "./lib/wallet.js";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const { values: args } = parseArgs({
  options: {
    api: { type: "string", default: "http://localhost:8787" },
    rpc: { type: "string" },
    memories: { type: "string", default: "400" },
    sample: { type: "string", default: "5" },
    keypair: { type: "string" },
  },
});
const fileEnv = existsSync(join(root, ".env"))
  ? (parseEnv(readFileSync(join(root, ".env"), "utf8")) as Record<string, string>)
  : {};
const api = (args.api ?? "http://localhost:8787").replace(/\/+$/, "");
const rpcUrl =
  args.rpc ?? process.env.CHAIN_RPC_URL ?? fileEnv.CHAIN_RPC_URL ?? "http://127.0.0.1:8899";
const wanted = Number(args.memories);
const sampleSize = Number(args.sample);

async function call<T>(
  method: string,
  path: string,
  bearer: string | null,
  body?: unknown,
): Promise<T> {
  const res = await fetch(`${api}${path}`, {
    method,
    headers: {
      ...(bearer ? { authorization: `Bearer ${bearer}` } : {}),
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  if (!res.ok) {
    throw new Error(`${method} ${path} → ${res.status} ${await res.text()}`);
  }
  return (res.status === 204 ? undefined : await res.json()) as T;
}

function step(text: string): void {
  console.log(`\n▶ ${text}`);
}

function bar(label: string, total: number): SingleBar {
  const b = new SingleBar(
    { format: `  ${label.padEnd(10)} [{bar}] {value}/{total} {eta_formatted}`, hideCursor: true },
    Presets.shades_classic,
  );
  b.start(total, 0);
  return b;
}

interface Memory {
  id: string;
  content: string;
  metadata: { source?: string; section?: string };
}

// 1. Sign in with the wallet.
const wallet = loadWallet(args.keypair);
step(`Signing in as ${wallet.publicKey} (SIWS)`);
const challenge = await call<{ message: string }>("POST", "/auth/challenge", null, {
  publicKey: wallet.publicKey,
});
const session = await call<{ token: string; userId: string }>("POST", "/auth/verify", null, {
  publicKey: wallet.publicKey,
  message: challenge.message,
  signature: wallet.sign(challenge.message),
});
console.log(`  signed in: user ${session.userId}`);

// 2. Mint an API key; the agent uses it from here on.
const { key, prefix } = await call<{ key: string; prefix: string }>(
  "POST",
  "/keys",
  session.token,
  { label: "demo agent" },
);
console.log(`  API key minted: ${prefix}…`);

step("Storing the README paragraphs of the installed dependencies");
const corpus = readCorpus(root, wanted);
const stored: { id: string; content: string }[] = [];
const writeBar = bar("stored", corpus.length);
const writeStarted = performance.now();
let next = 0;
await Promise.all(
  Array.from({ length: 8 }, async () => {
    while (next < corpus.length) {
      const entry = corpus[next++];
      if (!entry) {
        break;
      }
      const created = await call<{ id: string }>("POST", "/memories", key, entry);
      stored.push({ id: created.id, content: entry.content });
      writeBar.increment();
    }
  }),
);
writeBar.stop();
const writeSeconds = (performance.now() - writeStarted) / 1000;
console.log(
  `  ${stored.length} memories in ${writeSeconds.toFixed(1)} s (${(stored.length / writeSeconds).toFixed(0)}/s)`,
);

// 3. Recall.
step("Recalling (substring search over the decrypted log)");
const recallMs: number[] = [];
for (const query of ["hash", "typescript", "license", "browser", "signature", "stream"]) {
  const started = performance.now();
  const result = await call<{ items: Memory[]; scanned: number }>("POST", "/memories/search", key, {
    query,
    limit: 3,
  });
  recallMs.push(performance.now() - started);
  console.log(`  "${query}": ${result.items.length} shown of ${result.scanned} scanned`);
  for (const hit of result.items) {
    const text = hit.content.replace(/\s+/g, " ");
    console.log(
      `    · [${hit.metadata.source ?? "?"} § ${hit.metadata.section ?? "?"}] ${text.slice(0, 90)}${text.length > 90 ? "…" : ""}`,
    );
  }
}

// 4. Wait until anchored.
step("Waiting for the anchor service to anchor the log on chain");
const anchorBar = bar("anchored", stored.length);
const anchorDeadline = Date.now() + 10 * 60_000;
let log = await call<{ treeSize: number; anchored: { treeSize: number } | null }>(
  "GET",
  "/log",
  key,
);
while ((log.anchored?.treeSize ?? 0) < log.treeSize && Date.now() < anchorDeadline) {
  await new Promise((r) => setTimeout(r, 1000));
  log = await call("GET", "/log", key);
  anchorBar.update(Math.min(stored.length, log.anchored?.treeSize ?? 0));
}
anchorBar.update(log.anchored?.treeSize ?? 0);
anchorBar.stop();
const anchored = log.anchored?.treeSize ?? 0;
console.log(`  anchored: ${anchored} of ${log.treeSize}`);

// 5. Proofs, checked by the auditor CLI against the chain only.
step(`Checking ${sampleSize} proofs with svc-verify against ${rpcUrl} (the chain, not this API)`);
const workDir = mkdtempSync(join(tmpdir(), "svc-demo-"));
let verified = 0;
const sample = Array.from(
  { length: Math.min(sampleSize, stored.length) },
  (_, i) => stored[Math.floor((i * stored.length) / Math.max(1, sampleSize))],
).filter((m): m is { id: string; content: string } => m !== undefined);
for (const memory of sample) {
  const bundle = await call<unknown>("GET", `/memories/${memory.id}/proof`, key);
  const bundlePath = join(workDir, `${memory.id}.json`);
  const contentPath = join(workDir, `${memory.id}.txt`);
  writeFileSync(bundlePath, JSON.stringify(bundle));
  writeFileSync(contentPath, memory.content);
  const run = spawnSync(
    process.execPath,
    [
      join(root, "packages/verifier/bin/svc-verify.js"),
      "--rpc",
      rpcUrl,
      "--content",
      contentPath,
      bundlePath,
    ],
    { encoding: "utf8" },
  );
  const verdict = run.stdout.split("\n")[0] ?? "";
  console.log(`  ${memory.id}: ${verdict}`);
  if (run.status === 0) {
    verified++;
  }
}

// 6. Share three memories through a capability URL, opened with no credential.
step("Sharing three memories through a capability URL");
const grant = await call<{ url: string }>("POST", "/agent-cases", key, {
  operation: { type: "read_memories", memoryIds: stored.slice(0, 3).map((m) => m.id) },
  expiresInSeconds: 600,
  maxUses: 2,
  label: "demo share",
});
console.log(`  ${grant.url}`);
const opened = (await (await fetch(grant.url)).json()) as { memories: unknown[] };
let sharedVerified = 0;
for (const memory of opened.memories) {
  const result = await verifyBundle(memory, { rpcUrl });
  sharedVerified += result.verified ? 1 : 0;
}
console.log(
  `  opened anonymously: ${opened.memories.length} memories, ${sharedVerified} proofs VERIFIED against the chain`,
);

// Summary.
const sortedRecall = [...recallMs].sort((a, b) => a - b);
const rows: [string, string][] = [
  ["memories stored", String(stored.length)],
  ["write rate", `${(stored.length / writeSeconds).toFixed(0)} memories/s (8 concurrent)`],
  [
    "recall latency (median)",
    `${(sortedRecall[Math.floor(sortedRecall.length / 2)] ?? 0).toFixed(1)} ms`,
  ],
  ["anchored", `${anchored} / ${log.treeSize}`],
  ["proofs verified (svc-verify)", `${verified} / ${sample.length}`],
  ["shared proofs verified", `${sharedVerified} / ${opened.memories.length}`],
];
console.log("\n┌──────────────────────────────┬──────────────────────────────────────┐");
for (const [name, value] of rows) {
  console.log(`│ ${name.padEnd(28)} │ ${value.padEnd(36)} │`);
}
console.log("└──────────────────────────────┴──────────────────────────────────────┘");
process.exit(
  verified === sample.length &&
    sharedVerified === opened.memories.length &&
    anchored === log.treeSize
    ? 0
    : 1,
);
