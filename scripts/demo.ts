/**
 * `pnpm demo`: an agent drives the running service (`pnpm start`) end to end on real text, through
 * the SDK (`@verifiable-memory/client`) as an agent developer would.
 * 1. a wallet (new, or `--keypair <Solana CLI keypair JSON>`) signs in with SIWS;
 * 2. it mints an API key and stores the README paragraphs of the installed dependencies through
 *    `POST /memories/batch` (64 per request);
 * 3. it recalls with several queries and prints the hits;
 * 4. it waits until the anchor service has anchored everything;
 * 5. it fetches proofs and checks a sample with the auditor CLI (`svc-verify`) against the chain;
 * 6. it shares three memories through a capability URL, opens it anonymously and checks the proofs;
 * 7. it stakes 1 SOL from the wallet (the API builds the transaction, the wallet signs it), shows
 *    the lot and its maturity, warps the local chain's clock past it (local chain only), unstakes
 *    and shows the wallet's balance;
 * and ends with a summary table. It reads the same settings as `pnpm start` (`ENV_FILE`, default
 * `.env`; the environment overrides it): the core API at `http://localhost:$PORT`, the chain at
 * `CHAIN_RPC_URL` or the local chain on `LOCAL_CHAIN_PORT`. `pnpm demo --help` lists the flags.
 * @module
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs, parseEnv } from "node:util";
import { Connection, PublicKey, Transaction } from "@solana/web3.js";
import { createClient, type SvcClient, SvcError, unwrap } from "@verifiable-memory/client";
import { verifyProof } from "@verifiable-memory/client/verify";
import { requestAirdrop, warpClock } from "@verifiable-memory/litesvm-rpc";
import { Presets, SingleBar } from "cli-progress";
import { readCorpus } from "./lib/corpus.js";
import { loadWallet } from "./lib/wallet.js";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const { values: args } = parseArgs({
  options: {
    api: { type: "string" },
    rpc: { type: "string" },
    memories: { type: "string", default: "400" },
    sample: { type: "string", default: "5" },
    keypair: { type: "string" },
    help: { type: "boolean", short: "h" },
  },
});
if (args.help) {
  console.log(`pnpm demo [options]: an agent drives the running service (pnpm start) end to end.

  --api <url>        core API (default http://localhost:$PORT, PORT from the settings, else 8787)
  --rpc <url>        chain JSON-RPC (default CHAIN_RPC_URL, else http://127.0.0.1:$LOCAL_CHAIN_PORT)
  --memories <n>     memories to store (default 400)
  --sample <n>       proofs to check with svc-verify (default 5)
  --keypair <file>   sign in with this Solana CLI keypair instead of a new wallet
  -h, --help         this text

Settings come from ENV_FILE (default ./.env, the file pnpm start writes); the environment
overrides it.`);
  process.exit(0);
}
const envFile = resolve(root, process.env.ENV_FILE || ".env");
const settings: Record<string, string | undefined> = {
  ...(existsSync(envFile)
    ? (parseEnv(readFileSync(envFile, "utf8")) as Record<string, string>)
    : {}),
  ...process.env,
};
const api = (args.api ?? `http://localhost:${settings.PORT || 8787}`).replace(/\/+$/, "");
const rpcUrl =
  args.rpc ?? settings.CHAIN_RPC_URL ?? `http://127.0.0.1:${settings.LOCAL_CHAIN_PORT || 8899}`;
const wanted = Number(args.memories);
const sampleSize = Number(args.sample);

/**
 * Runs `request`, waiting and trying again while the API answers 429 `rate_limited` (a large
 * `--memories` can pass the per-credential limit; the SDK retries only idempotent calls).
 */
async function patiently<T>(request: () => Promise<T>): Promise<T> {
  for (;;) {
    try {
      return await request();
    } catch (error) {
      if (!(error instanceof SvcError) || error.code !== "rate_limited") {
        throw error;
      }
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  }
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
const owner: SvcClient = createClient({ baseUrl: api });
const session = await owner.signInWithWallet({
  publicKey: wallet.publicKey,
  signMessage: async (message) => wallet.signBytes(message),
});
console.log(`  signed in: user ${session.userId}`);

// 2. Mint an API key; the agent uses it from here on.
const { key, prefix } = await owner.keys.create({ label: "demo agent" });
const agent: SvcClient = createClient({ baseUrl: api, apiKey: key });
console.log(`  API key minted: ${prefix}…`);

step("Storing the README paragraphs of the installed dependencies");
const corpus = readCorpus(root, wanted);
const stored: { id: string; content: string }[] = [];
const writeBar = bar("stored", corpus.length);
const writeStarted = performance.now();
/** Memories per `POST /memories/batch` request (the route takes 1–256). */
const BATCH_SIZE = 64;
const batches: (typeof corpus)[] = [];
for (let i = 0; i < corpus.length; i += BATCH_SIZE) {
  batches.push(corpus.slice(i, i + BATCH_SIZE));
}
let next = 0;
await Promise.all(
  Array.from({ length: 2 }, async () => {
    while (next < batches.length) {
      const batch = batches[next++];
      if (!batch) {
        break;
      }
      const created = await patiently(() => agent.rememberMany(batch));
      created.forEach((memory, i) => {
        stored.push({ id: memory.id, content: batch[i]?.content ?? "" });
      });
      writeBar.increment(batch.length);
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
  const result = await agent.recall(query, { limit: 3 });
  recallMs.push(performance.now() - started);
  console.log(`  "${query}": ${result.items.length} shown of ${result.scanned} scanned`);
  for (const hit of result.items) {
    const text = hit.content.replace(/\s+/g, " ");
    const { source, section } = hit.metadata as Memory["metadata"];
    console.log(
      `    · [${source ?? "?"} § ${section ?? "?"}] ${text.slice(0, 90)}${text.length > 90 ? "…" : ""}`,
    );
  }
}

// 4. Wait until anchored: through the owner's commitment account or through the checkpoint log,
// whichever covers the memories first (docs/protocol.md §7.6 "One user's anchoring and the commit
// batches"). The latest memory covered means every earlier one is.
step("Waiting for the anchor service to anchor the log on chain");
const anchorBar = bar("anchored", stored.length);
const anchorDeadline = Date.now() + 10 * 60_000;
const latest = stored[stored.length - 1];
let log = await agent.log.get();
let covered = latest === undefined || (await agent.prove(latest.id)).anchored;
while (!covered && Date.now() < anchorDeadline) {
  anchorBar.update(Math.min(stored.length, log.anchored?.treeSize ?? 0));
  await new Promise((r) => setTimeout(r, 1000));
  log = await agent.log.get();
  covered = latest === undefined || (await agent.prove(latest.id)).anchored;
}
const anchored = covered ? log.treeSize : (log.anchored?.treeSize ?? 0);
anchorBar.update(anchored);
anchorBar.stop();
console.log(`  anchored: ${anchored} of ${log.treeSize}`);
// The log key to pin, read once here: svc-verify itself talks to the chain only.
const { logKeys } = await agent.info();

// 5. Proofs, checked by the auditor CLI against the chain only.
step(`Checking ${sampleSize} proofs with svc-verify against ${rpcUrl} (the chain, not this API)`);
const workDir = mkdtempSync(join(tmpdir(), "svc-demo-"));
let verified = 0;
const sample = Array.from(
  { length: Math.min(sampleSize, stored.length) },
  (_, i) => stored[Math.floor((i * stored.length) / Math.max(1, sampleSize))],
).filter((m): m is { id: string; content: string } => m !== undefined);
for (const memory of sample) {
  const bundle = await agent.prove(memory.id);
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
      ...logKeys.flatMap((key) => ["--log-key", key]),
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
const grant = await agent.grants.create({
  operation: { type: "read_memories", memoryIds: stored.slice(0, 3).map((m) => m.id) },
  expiresInSeconds: 600,
  maxUses: 2,
  label: "demo share",
});
console.log(`  ${grant.url}`);
// A stranger: no credential at all, only the URL.
const opened = await createClient({ baseUrl: api }).grants.use(grant.url);
let sharedVerified = 0;
for (const memory of opened.memories) {
  const result = await verifyProof(memory.proof, {
    rpcUrl,
    content: memory.content,
    logKeys,
  });
  sharedVerified += result.ok ? 1 : 0;
}
console.log(
  `  opened anonymously: ${opened.memories.length} memories, ${sharedVerified} proofs VERIFIED against the chain`,
);

// 7. Stake from the wallet: the API builds each transaction, the wallet signs it, the chain holds
// the balance.
step("Staking 1 SOL from the wallet (the API builds the transaction; the wallet signs it)");
const LAMPORTS_PER_SOL = 1_000_000_000;
const connection = new Connection(rpcUrl, "confirmed");
const wallet58 = new PublicKey(wallet.publicKey);
if ((await connection.getBalance(wallet58)) < 2 * LAMPORTS_PER_SOL) {
  await requestAirdrop(rpcUrl, wallet.publicKey, 2 * LAMPORTS_PER_SOL);
}
/** Signs an unsigned base64 transaction from the API with the wallet and relays it. */
async function signAndSubmit(base64: string): Promise<string> {
  const tx = Transaction.from(Buffer.from(base64, "base64"));
  tx.addSignature(wallet58, Buffer.from(wallet.signBytes(tx.serializeMessage())));
  const submitted = await unwrap(
    owner.raw.POST("/staking/submit", {
      body: { transaction: tx.serialize().toString("base64") },
    }),
  );
  return submitted.signature;
}
const staked = await unwrap(
  owner.raw.POST("/staking/stake", { body: { amountLamports: String(LAMPORTS_PER_SOL) } }),
);
console.log(`  staked: ${await signAndSubmit(staked.transaction)}`);
const stakedPosition = await unwrap(owner.raw.GET("/staking"));
const newestLot = stakedPosition.lots.at(-1);
console.log(
  `  vault holds ${stakedPosition.balanceLamports} lamports in ${stakedPosition.lots.length} lot(s); the newest matures at ${newestLot?.maturesAt} (lock ${stakedPosition.lockPeriodSeconds} s)`,
);
let unstakedLamports = "0";
let balanceAfter = await connection.getBalance(wallet58);
try {
  const warped = await warpClock(rpcUrl, stakedPosition.lockPeriodSeconds + 1);
  console.log(
    `  local chain clock warped ${stakedPosition.lockPeriodSeconds + 1} s ahead (now ${new Date(warped.unixTimestamp * 1000).toISOString()})`,
  );
  const unstake = await unwrap(owner.raw.POST("/staking/unstake", { body: {} }));
  const balanceBefore = await connection.getBalance(wallet58);
  console.log(`  unstaked: ${await signAndSubmit(unstake.transaction)}`);
  balanceAfter = await connection.getBalance(wallet58);
  unstakedLamports = unstake.amountLamports;
  console.log(
    `  wallet balance ${balanceBefore} → ${balanceAfter} lamports (+${unstake.amountLamports} − 5000 fee)`,
  );
} catch (error) {
  console.log(`  no clock warp on this chain (${(error as Error).message}): the lot stays locked`);
}

// Summary.
const sortedRecall = [...recallMs].sort((a, b) => a - b);
const rows: [string, string][] = [
  ["memories stored", String(stored.length)],
  [
    "write rate",
    `${(stored.length / writeSeconds).toFixed(0)}/s (${BATCH_SIZE} per batch, 2 in flight)`,
  ],
  [
    "recall latency (median)",
    `${(sortedRecall[Math.floor(sortedRecall.length / 2)] ?? 0).toFixed(1)} ms`,
  ],
  ["anchored", `${anchored} / ${log.treeSize}`],
  ["proofs verified (svc-verify)", `${verified} / ${sample.length}`],
  ["shared proofs verified", `${sharedVerified} / ${opened.memories.length}`],
  ["staked / unstaked (lamports)", `${LAMPORTS_PER_SOL} / ${unstakedLamports}`],
  ["wallet balance after", `${(balanceAfter / LAMPORTS_PER_SOL).toFixed(6)} SOL`],
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
