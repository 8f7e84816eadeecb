/**
 * Memories benchmark (issue 5 item 7), on PostgreSQL, each figure beside its raw baseline measured
 * in the same run:
 * - recall of one user with 100 000 memories of ~200 bytes (POST /memories/search over HTTP, a
 *   query that scans every memory): warm p50/p95 beside a raw in-process `includes` scan of the
 *   same plaintexts; cold (the first query of a freshly started app on the same database, the
 *   user's log sealed in recall segments first) beside a raw per-row fetch-all with postgres.js +
 *   node:crypto AES-256-GCM decrypt of the same rows, and beside its floor: the same sealed
 *   segments fetched (one binary COPY, as the cold load does) and decrypted, not decoded;
 * - cold recall at 1 000 000 memories of one user (issue 22 item 5): the first recall of a fresh
 *   process (bench/recall-cold-child.ts) beside one raw per-row fetch-all + decrypt, with the
 *   process's peak RSS and the cache's estimate of the log;
 * - agent recall at the same size (issue 20 item 6): relevance ranking (BM25) beside the raw
 *   substring scan, and a filter-only query beside a raw in-process filter over the plaintexts;
 * - batch writes (POST /memories/batch, 4 clients × 64 items) beside raw single-row INSERTs with
 *   16 in flight, and beside raw 64-row INSERTs of the same rows;
 * - writes (POST /memories over HTTP to core-api run as its own process, src/main.ts as in
 *   production, from 16 concurrent clients with one keep-alive undici connection each), one user
 *   and 16 users, beside raw postgres.js single-row INSERTs, 16 in flight, into a plain table of
 *   the same columns; also the write path without HTTP, an empty hono route in its own process
 *   as the HTTP reference, and (Linux) the CPU per write of every side together;
 * - proofs (GET /memories/:id/proof over HTTP, and inclusionProof over nodeSource in-process) at
 *   100 000 and 1 000 000 leaves beside one SELECT by primary key;
 * - peak RSS (VmHWM in /proc/<pid>/status; Linux only) of core-api run as its own process
 *   once the 100 000-memory user is cached, beside the same process idle after start.
 * The 100 000 memories are written in-process through core-api's own write path (MemoryService
 * with its AppendQueue, in batches of 5 000): sealed bodies, real leaves, the persisted tree.
 * The 1 000 000-leaf tree is built in SQL in the node-hash store (sha256 level by level) around
 * 32 real memories placed at random leaf indices; proofs are then served by the real route.
 * Anchored checkpoints are inserted directly (no chain here). Sizes: BENCH_MEMORIES (100 000),
 * BENCH_BIG_TREE (1 000 000), BENCH_MILLION (the cold recall's user, 1 000 000; 0 skips it),
 * BENCH_WRITES (writes per case and round, 1 000).
 * Database: DATABASE_URL's server when set, else an embedded PostgreSQL in a temporary directory;
 * a fresh database is created and dropped.
 * @module
 */
import { execFile } from "node:child_process";
import { createDecipheriv, randomBytes, randomInt, randomUUID } from "node:crypto";
import { promisify } from "node:util";
import { systemClock } from "@verifiable-memory/auth";
import { type Config, loadConfig } from "@verifiable-memory/core-api";
import {
  createDatabase,
  type Database,
  type DatabaseHandle,
  getTree,
  getUserById,
  insertAnchoredCheckpoint,
  memories,
  nodeSource,
  rootAtSize,
  streamRecallSegments,
} from "@verifiable-memory/db-schema";
import { decryptSegment } from "@verifiable-memory/envelope-crypto";
import {
  AppendQueue,
  type Caller,
  MemoryService,
  memoryLeaf,
  newSalt,
  RecallCache,
  type RecallQuery,
  sealMemoryBody,
} from "@verifiable-memory/memory";
import {
  fromHex,
  type Hash,
  inclusionProof,
  rootFromInclusionProof,
  toHex,
} from "@verifiable-memory/merkle-log";
import {
  type Figure,
  percentile,
  printFigures,
  procStatusMiB,
  rawBodyAad,
  timeRuns,
} from "./lib.js";
import {
  HttpClients,
  postgresCpuSeconds,
  processCpuSeconds,
  startServerProcess,
} from "./processes.js";
import {
  BENCH_ENV,
  benchDatabase,
  drive,
  interleave,
  type Load,
  newWallet,
  postJson,
  serveCoreApi,
  signIn,
} from "./sign-in.bench.js";

const MEMORIES = Number(process.env.BENCH_MEMORIES ?? 100_000);
const BIG_TREE = Number(process.env.BENCH_BIG_TREE ?? 1_000_000);
const MILLION = Number(process.env.BENCH_MILLION ?? 1_000_000);
const WRITES = Number(process.env.BENCH_WRITES ?? 1_000);
const CLIENTS = 16;
const SEED_BATCH = 5_000;
const NEEDLE = "zephyr-quartz";
const NEEDLE_EVERY = 10_000;
const COLD_STARTS = 7;
const COLD_STARTS_BIG = 3;
const execFileAsync = promisify(execFile);
const WARM_ROUNDS = 5;
const FILTER_CYCLE = 10_000;
/** Items per POST /memories/batch in the batch-write figure, and its concurrent clients. */
const BATCH_ITEMS = 64;
const BATCH_CLIENTS = 4;
/** Two of WORDS: relevance ranks the memories holding either (most of them). */
const RELEVANCE_QUERY = "ledger anchor";
const WARM_QUERIES = 20;
const PROOFS = 300;
const BIG_TREE_MEMORIES = 32;

/** A signed-in user as the bench needs it: ids, bearer header and data key. */
interface BenchUser extends Caller {
  readonly headers: Record<string, string>;
  readonly dataKey: Uint8Array;
}

/** Signs a fresh wallet in over HTTP and unwraps its data key from the users row. */
async function newUser(url: string, db: Database, config: Config): Promise<BenchUser> {
  const wallet = newWallet();
  const { token, userId } = await signIn(url, wallet);
  const user = await getUserById(db, userId);
  if (!user) {
    throw new Error(`user ${userId} missing after sign-in`);
  }
  return {
    userId,
    ownerPubkey: wallet.publicKey,
    credential: "session",
    apiKeyId: null,
    namespace: null,
    headers: { authorization: `Bearer ${token}` },
    dataKey: config.masterKeys.unwrap(user.wrappedDataKey, userId),
  };
}

const WORDS = (
  "memory agent wallet ledger anchor proof recall merkle leaf root chain sealed envelope " +
  "garden river window orange planet signal morning travel coffee meeting project budget " +
  "invoice friday weekly notes remember prefers allergic birthday address office server"
).split(" ");

/** ~200 bytes of lower-case words; every NEEDLE_EVERY-th one contains the needle. */
function memoryText(i: number): string {
  const words: string[] = i % NEEDLE_EVERY === 0 ? [NEEDLE] : [];
  let length = words.join(" ").length;
  while (length < 200) {
    const word = WORDS[randomInt(WORDS.length)] as string;
    words.push(word);
    length += word.length + 1;
  }
  return words.join(" ").slice(0, 200);
}

/**
 * The metadata of the i-th seeded memory: `n` cycles through 0–9 999 (so `{ n: 7 }` matches 10 of
 * 100 000 and a filter-only query examines them all), `topic` through seven words.
 */
function metadataOf(i: number): { n: number; topic: string } {
  return { n: i % FILTER_CYCLE, topic: WORDS[i % 7] as string };
}

/** Writes `contents` through core-api's MemoryService (group commit, SEED_BATCH per transaction). */
async function seed(db: Database, user: BenchUser, contents: readonly string[]): Promise<string[]> {
  const service = new MemoryService({
    db,
    clock: systemClock,
    appendQueue: new AppendQueue(db, { maxBatch: SEED_BATCH }),
    recall: new RecallCache({ db, clock: systemClock, maxBytes: 0 }),
  });
  const ids: string[] = [];
  for (let start = 0; start < contents.length; start += SEED_BATCH) {
    const batch = contents.slice(start, start + SEED_BATCH);
    const created = await Promise.all(
      batch.map((content, k) =>
        service.create(user, user.dataKey, { content, metadata: metadataOf(start + k) }),
      ),
    );
    ids.push(...created.map((m) => m.id));
  }
  return ids;
}

/** Raw cold baseline: every live row of the user with postgres.js, opened with node:crypto. */
async function rawFetchAndDecrypt(pg: DatabaseHandle, user: BenchUser): Promise<string[]> {
  const rows = await pg.sql<{ id: string; ciphertext: Buffer; iv: Buffer }[]>`
    select id, ciphertext, iv from memories
    where user_id = ${user.userId} and deleted_at is null order by leaf_index`;
  return rows.map((row) => {
    const tag = row.ciphertext.length - 16;
    const d = createDecipheriv("aes-256-gcm", user.dataKey, row.iv, { authTagLength: 16 });
    d.setAAD(rawBodyAad({ userId: user.userId, memoryId: row.id }));
    d.setAuthTag(row.ciphertext.subarray(tag));
    const plaintext = Buffer.concat([d.update(row.ciphertext.subarray(1, tag)), d.final()]);
    return plaintext.toString("utf8", 16);
  });
}

/**
 * The cold floor: the user's sealed segments fetched the way the cold load fetches them (one
 * binary COPY, streamRecallSegments) and opened with node:crypto, without decoding: what a cold
 * load from segments cannot go below.
 */
async function rawSegmentsFetchAndDecrypt(pg: DatabaseHandle, user: BenchUser): Promise<number> {
  let bytes = 0;
  await streamRecallSegments(pg.db, user.userId, (segment) => {
    bytes += decryptSegment(
      user.dataKey,
      { iv: segment.iv, ciphertext: segment.ciphertext },
      { userId: user.userId, firstLeaf: segment.firstLeaf, endLeaf: segment.endLeaf },
    ).length;
  });
  return bytes;
}

/** Raw warm baseline: newest-first `includes` scan of the plaintexts, stopping at `limit`. */
function rawScan(contents: readonly string[], needle: string, limit: number): string[] {
  const found: string[] = [];
  for (let i = contents.length - 1; i >= 0 && found.length < limit; i--) {
    const text = contents[i] as string;
    if (text.includes(needle)) {
      found.push(text);
    }
  }
  return found;
}

/** POST /memories/search for the needle; checks that every planted match came back. */
async function search(url: string, user: BenchUser, expected: number): Promise<void> {
  const res = await postJson<{ items: unknown[]; scanned: number }>(
    `${url}/memories/search`,
    { query: NEEDLE, limit: 20 },
    user.headers,
  );
  if (res.status !== 200 || res.body.items.length !== expected) {
    throw new Error(`search: ${res.status}, ${res.body.items?.length} of ${expected} matches`);
  }
}

/** Recall figures: warm and cold, over HTTP, beside the raw scan and the raw fetch + decrypt. */
async function recallFigures(
  pg: DatabaseHandle,
  config: Config,
  apiUrl: string,
  user: BenchUser,
  contents: readonly string[],
): Promise<Figure[]> {
  const db = pg.db;
  const expected = rawScan(contents, NEEDLE, 20).length;
  if ((await rawFetchAndDecrypt(pg, user)).join("\n") !== contents.join("\n")) {
    throw new Error("the raw baseline does not open the seeded rows");
  }
  // Seal the user's full ranges into recall segments, as core-api does in the background.
  const sealer = new RecallCache({ db, clock: systemClock, maxBytes: config.recallCacheMaxBytes });
  const segments = await sealer.seal(user.userId, user.dataKey);
  // Cold: a fresh app (fresh recall cache) per start, interleaved with the raw baselines.
  const cold: number[] = [];
  const rawCold: number[] = [];
  const floor: number[] = [];
  for (let i = 0; i < COLD_STARTS; i++) {
    rawCold.push(...(await timeRuns(() => rawFetchAndDecrypt(pg, user), 1, 0)));
    floor.push(...(await timeRuns(() => rawSegmentsFetchAndDecrypt(pg, user), 1, 0)));
    const fresh = await serveCoreApi(db, config);
    cold.push(...(await timeRuns(() => search(fresh.url, user, expected), 1, 0)));
    await fresh.close();
  }
  // Warm: the long-running app (cached by now) and an in-process RecallCache, beside the scan.
  await search(apiUrl, user, expected);
  const cache = new RecallCache({ db, clock: systemClock, maxBytes: config.recallCacheMaxBytes });
  const query: RecallQuery = {
    query: NEEDLE,
    caseSensitive: false,
    filter: {},
    rank: "recency",
    limit: 20,
  };
  await cache.search(user.userId, user.dataKey, query);
  const warm: number[] = [];
  const inProcess: number[] = [];
  const scan: number[] = [];
  for (let round = 0; round < WARM_ROUNDS; round++) {
    scan.push(...(await timeRuns(() => rawScan(contents, NEEDLE, 20), WARM_QUERIES)));
    warm.push(...(await timeRuns(() => search(apiUrl, user, expected), WARM_QUERIES)));
    inProcess.push(
      ...(await timeRuns(() => cache.search(user.userId, user.dataKey, query), WARM_QUERIES)),
    );
  }
  const rawScanName = "raw includes scan, in-process";
  const rawColdName = "raw postgres.js per-row fetch-all + AES-GCM decrypt";
  return [
    {
      name: "recall warm p50 (HTTP)",
      value: percentile(warm, 50),
      baseline: percentile(scan, 50),
      unit: "ms",
      baselineName: rawScanName,
      target: "≤ 5×",
    },
    {
      name: "recall warm p95 (HTTP)",
      value: percentile(warm, 95),
      baseline: percentile(scan, 95),
      unit: "ms",
      baselineName: rawScanName,
    },
    {
      name: "recall warm p50, RecallCache.search in-process",
      value: percentile(inProcess, 50),
      baseline: percentile(scan, 50),
      unit: "ms",
      baselineName: rawScanName,
    },
    {
      name: `recall cold p50 (HTTP, fresh app, ${COLD_STARTS} starts, ${segments} sealed segments)`,
      value: percentile(cold, 50),
      baseline: percentile(rawCold, 50),
      unit: "ms",
      baselineName: rawColdName,
      target: "≤ 0.2×",
    },
    {
      name: "recall cold p50 beside its floor",
      value: percentile(cold, 50),
      baseline: percentile(floor, 50),
      unit: "ms",
      baselineName: "binary COPY fetch + AES-GCM decrypt of the same sealed segments",
    },
    {
      name: `recall cold p95 (HTTP, fresh app, ${COLD_STARTS} starts)`,
      value: percentile(cold, 95),
      baseline: percentile(rawCold, 95),
      unit: "ms",
      baselineName: rawColdName,
    },
  ];
}

/** Raw filter baseline: newest-first `metadata.n === n` over the plaintext objects, stopping at `limit`. */
function rawFilter(
  items: readonly { content: string; metadata: { n: number } }[],
  n: number,
  limit: number,
): string[] {
  const found: string[] = [];
  for (let i = items.length - 1; i >= 0 && found.length < limit; i--) {
    const item = items[i] as { content: string; metadata: { n: number } };
    if (item.metadata.n === n) {
      found.push(item.content);
    }
  }
  return found;
}

/**
 * The agent memory model's recall figures (issue 20 item 6), warm: relevance ranking (BM25 over
 * the cache) beside the raw substring scan, and a filter-only query (`metadata: { n: 7 }`, no
 * text) beside a raw in-process filter over the same plaintexts and metadata; HTTP and in-process.
 */
async function agentRecallFigures(
  db: Database,
  config: Config,
  apiUrl: string,
  user: BenchUser,
  contents: readonly string[],
): Promise<Figure[]> {
  const items = contents.map((content, i) => ({ content, metadata: metadataOf(i) }));
  const expectedFiltered = rawFilter(items, 7, 20).length;
  const cache = new RecallCache({ db, clock: systemClock, maxBytes: config.recallCacheMaxBytes });
  const relevance: RecallQuery = {
    query: RELEVANCE_QUERY,
    caseSensitive: false,
    filter: {},
    rank: "relevance",
    limit: 20,
  };
  const filterOnly: RecallQuery = {
    caseSensitive: false,
    filter: { metadata: { n: 7 } },
    rank: "recency",
    limit: 20,
  };
  const httpSearch = async (body: Record<string, unknown>, expected: number) => {
    const res = await postJson<{ items: unknown[] }>(
      `${apiUrl}/memories/search`,
      body,
      user.headers,
    );
    if (res.status !== 200 || res.body.items.length !== expected) {
      throw new Error(`search ${JSON.stringify(body)}: ${res.status}, ${res.body.items?.length}`);
    }
  };
  const relevanceBody = { query: RELEVANCE_QUERY, rank: "relevance", limit: 20 };
  const filterBody = { metadata: { n: 7 }, limit: 20 };
  await cache.search(user.userId, user.dataKey, relevance);
  await httpSearch(relevanceBody, 20);
  await httpSearch(filterBody, expectedFiltered);
  const inFiltered = await cache.search(user.userId, user.dataKey, filterOnly);
  if (inFiltered.items.length !== expectedFiltered) {
    throw new Error("the filter-only search disagrees with the raw filter");
  }
  const samples: Record<string, number[]> = {
    scan: [],
    filter: [],
    relevanceHttp: [],
    relevanceIn: [],
    filterHttp: [],
    filterIn: [],
  };
  for (let round = 0; round < WARM_ROUNDS; round++) {
    samples.scan?.push(...(await timeRuns(() => rawScan(contents, NEEDLE, 20), WARM_QUERIES)));
    samples.filter?.push(...(await timeRuns(() => rawFilter(items, 7, 20), WARM_QUERIES)));
    samples.relevanceHttp?.push(
      ...(await timeRuns(() => httpSearch(relevanceBody, 20), WARM_QUERIES)),
    );
    samples.relevanceIn?.push(
      ...(await timeRuns(() => cache.search(user.userId, user.dataKey, relevance), WARM_QUERIES)),
    );
    samples.filterHttp?.push(
      ...(await timeRuns(() => httpSearch(filterBody, expectedFiltered), WARM_QUERIES)),
    );
    samples.filterIn?.push(
      ...(await timeRuns(() => cache.search(user.userId, user.dataKey, filterOnly), WARM_QUERIES)),
    );
  }
  const p50 = (name: string) => percentile(samples[name] ?? [], 50);
  const rawScanName = "raw includes scan, in-process";
  const rawFilterName = "raw in-process filter over the plaintext objects";
  return [
    {
      name: `relevance recall warm p50 (HTTP, BM25, "${RELEVANCE_QUERY}")`,
      value: p50("relevanceHttp"),
      baseline: p50("scan"),
      unit: "ms",
      baselineName: rawScanName,
      target: "≤ 5×",
    },
    {
      name: "relevance recall warm p50, RecallCache.search in-process",
      value: p50("relevanceIn"),
      baseline: p50("scan"),
      unit: "ms",
      baselineName: rawScanName,
    },
    {
      name: "filter-only recall warm p50 (HTTP, metadata { n: 7 }, no query)",
      value: p50("filterHttp"),
      baseline: p50("filter"),
      unit: "ms",
      baselineName: rawFilterName,
    },
    {
      name: "filter-only recall warm p50, RecallCache.search in-process",
      value: p50("filterIn"),
      baseline: p50("filter"),
      unit: "ms",
      baselineName: rawFilterName,
      target: "≤ 2×",
    },
  ];
}

/** One cold recall measured by bench/recall-cold-child.ts in a process of its own. */
interface ChildColdLoad {
  readonly coldMs: number;
  readonly items: number;
  readonly rssBeforeMiB: number | null;
  readonly peakMiB: number | null;
  readonly cachedMiB: number;
}

/**
 * Cold recall at BENCH_MILLION memories (issue 22 item 5; default 1 000 000, 0 skips): one user's
 * memories written through MemoryService and sealed into segments; then {@link COLD_STARTS_BIG}
 * first recalls, each in a fresh process (so that its peak RSS is the load's own), beside one raw
 * per-row fetch-all + decrypt of the same rows; the process's peak RSS beside its RSS before the
 * load; the cache's estimate of the log beside the plaintexts' UTF-8 bytes.
 */
async function millionFigures(
  pg: DatabaseHandle,
  databaseUrl: string,
  user: BenchUser,
  count: number,
): Promise<Figure[]> {
  const contents = Array.from({ length: count }, (_, i) => memoryText(i));
  await seed(pg.db, user, contents);
  const sealer = new RecallCache({ db: pg.db, clock: systemClock, maxBytes: 0 });
  const segments = await sealer.seal(user.userId, user.dataKey);
  const expected = rawScan(contents, NEEDLE, 20).length;
  const plaintextMiB = contents.reduce((sum, c) => sum + Buffer.byteLength(c), 0) / 2 ** 20;
  contents.length = 0;
  const loads: ChildColdLoad[] = [];
  for (let i = 0; i < COLD_STARTS_BIG; i++) {
    const { stdout } = await execFileAsync(
      process.execPath,
      ["--import", "tsx", "bench/recall-cold-child.ts"],
      {
        env: {
          ...process.env,
          RECALL_DATABASE_URL: databaseUrl,
          RECALL_USER_ID: user.userId,
          RECALL_DATA_KEY: Buffer.from(user.dataKey).toString("hex"),
          RECALL_QUERY: NEEDLE,
        },
        maxBuffer: 1 << 20,
      },
    );
    const load = JSON.parse(stdout.trim().split("\n").pop() ?? "") as ChildColdLoad;
    if (load.items !== expected) {
      throw new Error(`cold recall at ${count}: ${load.items} of ${expected} matches`);
    }
    loads.push(load);
  }
  const raw = await timeRuns(() => rawFetchAndDecrypt(pg, user), 1, 0);
  const n = count.toLocaleString("en-US");
  const figures: Figure[] = [
    {
      name: `recall cold p50 at ${n} memories (fresh process, ${segments} sealed segments, ${COLD_STARTS_BIG} runs)`,
      value: percentile(
        loads.map((l) => l.coldMs),
        50,
      ),
      baseline: percentile(raw, 50),
      unit: "ms",
      baselineName: "raw postgres.js per-row fetch-all + AES-GCM decrypt, 1 run",
    },
    {
      name: `recall cache estimate of the ${n}-memory log`,
      value: percentile(
        loads.map((l) => l.cachedMiB),
        50,
      ),
      baseline: plaintextMiB,
      unit: "MiB",
      baselineName: "the plaintexts' UTF-8 bytes",
    },
  ];
  const peaks = loads.flatMap((l) => (l.peakMiB === null ? [] : [l.peakMiB]));
  const before = loads.flatMap((l) => (l.rssBeforeMiB === null ? [] : [l.rssBeforeMiB]));
  if (peaks.length > 0 && before.length > 0) {
    figures.push({
      name: "peak RSS (VmHWM) of the process of that cold recall",
      value: percentile(peaks, 50),
      baseline: percentile(before, 50),
      unit: "MiB",
      baselineName: "the same process before the load",
    });
  }
  return figures;
}

/** Reads a `Vm…` line of /proc/<pid>/status in MiB. */
async function procMiB(pid: number, field: "VmHWM" | "VmRSS"): Promise<number> {
  const mib = await procStatusMiB(pid, field);
  if (mib === null) {
    throw new Error(`no ${field} in /proc/${pid}/status`);
  }
  return mib;
}

/**
 * RSS of core-api as its own process (src/main.ts, the same database and secrets), read from
 * /proc/<pid>/status: peak (VmHWM) and current (VmRSS) idle after start, then after 20 searches
 * of the user (the first one loads the log into the cache).
 */
async function rssFigures(
  databaseUrl: string,
  user: BenchUser,
  contents: readonly string[],
): Promise<Figure[]> {
  const api = await startServerProcess("apps/core-api/src/main.ts", {
    ...BENCH_ENV,
    DATABASE_URL: databaseUrl,
  });
  try {
    const idle = { peak: await procMiB(api.pid, "VmHWM"), now: await procMiB(api.pid, "VmRSS") };
    const expected = rawScan(contents, NEEDLE, 20).length;
    for (let i = 0; i < 20; i++) {
      await search(api.url, user, expected);
    }
    const cached = {
      peak: await procMiB(api.pid, "VmHWM"),
      now: await procMiB(api.pid, "VmRSS"),
    };
    const plaintextMiB = contents.reduce((sum, c) => sum + Buffer.byteLength(c), 0) / 2 ** 20;
    return [
      {
        name: "core-api peak RSS (VmHWM), user cached",
        value: cached.peak,
        baseline: idle.peak,
        unit: "MiB",
        baselineName: "same process idle after start",
      },
      {
        name: "core-api RSS (VmRSS) after 20 searches",
        value: cached.now,
        baseline: idle.now,
        unit: "MiB",
        baselineName: "same process idle after start",
      },
      {
        name: "core-api peak RSS growth from caching",
        value: cached.peak - idle.peak,
        baseline: plaintextMiB,
        unit: "MiB",
        baselineName: "the plaintexts' UTF-8 bytes",
      },
    ];
  } finally {
    await api.stop();
  }
}

/** Proof figures of one user's memories: HTTP route and in-process path, beside a PK SELECT. */
async function proofFigures(
  pg: DatabaseHandle,
  apiUrl: string,
  user: BenchUser,
  ids: readonly string[],
  size: number,
): Promise<Figure[]> {
  const pick = () => ids[randomInt(ids.length)] as string;
  const proofOnce = async () => {
    const res = await fetch(`${apiUrl}/memories/${pick()}/proof`, { headers: user.headers });
    const bundle = (await res.json()) as {
      leafIndex: number;
      leafHash: string;
      checkpoint: { treeSize: number; rootHash: string } | null;
      inclusionProof: string[] | null;
    };
    if (res.status !== 200 || !bundle.checkpoint || !bundle.inclusionProof) {
      throw new Error(`proof: ${res.status}, anchored checkpoint missing`);
    }
    return bundle;
  };
  // The proof checks out against the checkpoint root, as a third party would check it.
  const sample = await proofOnce();
  const root = rootFromInclusionProof(
    sample.leafIndex,
    size,
    fromHex(sample.leafHash),
    (sample.inclusionProof ?? []).map(fromHex),
  );
  if (toHex(root) !== sample.checkpoint?.rootHash) {
    throw new Error(`the proof at ${size} leaves does not verify`);
  }
  const leafIndexes = await pg.sql<{ id: string; leaf_index: string }[]>`
    select id, leaf_index from memories where user_id = ${user.userId}`;
  const source = nodeSource(pg.db, user.userId);
  const loads = await interleave(
    {
      select: () => drive(() => pg.sql`select * from memories where id = ${pick()}`, PROOFS, 1),
      http: () => drive(proofOnce, PROOFS, 1),
      path: () =>
        drive(
          () => {
            const row = leafIndexes[randomInt(leafIndexes.length)];
            return inclusionProof(Number(row?.leaf_index), size, source);
          },
          PROOFS,
          1,
        ),
    },
    3,
  );
  const p50 = (load: Load | undefined) => percentile(load?.latencies ?? [Number.NaN], 50);
  const n = size.toLocaleString("en-US");
  const selectName = "one SELECT by primary key (postgres.js)";
  return [
    {
      name: `proof p50, GET /memories/:id/proof (HTTP), ${n} leaves`,
      value: p50(loads.http),
      baseline: p50(loads.select),
      unit: "ms",
      baselineName: selectName,
      target: "≤ 3×",
    },
    {
      name: `proof p50, inclusionProof over nodeSource, ${n} leaves`,
      value: p50(loads.path),
      baseline: p50(loads.select),
      unit: "ms",
      baselineName: selectName,
      target: "≤ 3×",
    },
  ];
}

/** Records an anchored checkpoint of the user's tree at `size` (no chain in this bench). */
async function anchorAt(db: Database, userId: string, size: number, root: Hash): Promise<void> {
  await insertAnchoredCheckpoint(db, {
    userId,
    treeSize: size,
    root,
    nonce: 1,
    signature: "bench-checkpoint",
  });
}

/**
 * A `size`-leaf tree for `user`, built in the node-hash store with SQL: BIG_TREE_MEMORIES real
 * memories (sealed bodies, real leaves, memory rows) at random leaf indices, synthetic leaf
 * hashes SHA-256(0x00 ‖ int8(i)) elsewhere, then each level's perfect subtrees
 * SHA-256(0x01 ‖ left ‖ right) from the one below; checkpointed at `size`. Only the real
 * memories have rows (the proof path reads the row, the checkpoint and the nodes; no trees row).
 * @returns the real memories' ids.
 */
async function seedBigTree(pg: DatabaseHandle, user: BenchUser, size: number): Promise<string[]> {
  const indexes = new Set<number>([size - 1]);
  while (indexes.size < BIG_TREE_MEMORIES) {
    indexes.add(randomInt(size));
  }
  const createdAt = new Date();
  const rows = [...indexes].map((leafIndex) => {
    const id = randomUUID();
    const body = { salt: newSalt(), content: memoryText(leafIndex) };
    const fields = { memoryId: id, owner: user.ownerPubkey, createdAt, metadata: {} };
    const sealed = sealMemoryBody(user.dataKey, body, { userId: user.userId, memoryId: id });
    const { leafHash } = memoryLeaf(fields, body);
    return { id, userId: user.userId, leafIndex, ...sealed, leafHash, metadata: {}, createdAt };
  });
  await pg.db.insert(memories).values(rows);
  const sql = pg.sql;
  const realIndexes = `{${rows.map((r) => r.leafIndex).join(",")}}`;
  const realHashes = `{${rows.map((r) => toHex(r.leafHash)).join(",")}}`;
  await sql`
    insert into merkle_nodes (user_id, level, idx, hash)
    select ${user.userId}, 0, i, coalesce(decode(r.hex, 'hex'), sha256(decode('00', 'hex') || int8send(i)))
    from generate_series(0, ${size - 1}::bigint) as i
    left join unnest(${realIndexes}::bigint[], ${realHashes}::text[]) as r(idx, hex) on r.idx = i`;
  for (let level = 0; 2 ** (level + 1) <= size; level++) {
    await sql`
      insert into merkle_nodes (user_id, level, idx, hash)
      select ${user.userId}, ${level + 1}, idx / 2,
        sha256(decode('01', 'hex') || string_agg(hash, ''::bytea order by idx))
      from merkle_nodes where user_id = ${user.userId} and level = ${level}
      group by idx / 2 having count(*) = 2`;
  }
  await sql`analyze merkle_nodes`;
  await anchorAt(pg.db, user.userId, size, await rootAtSize(pg.db, user.userId, size));
  return rows.map((r) => r.id);
}

/** CPU seconds used by every side (server process, PostgreSQL, this process) over some loads. */
class CpuTally {
  seconds = 0;
  operations = 0;

  /** CPU µs per operation so far. */
  perOperation(): number {
    return (this.seconds / this.operations) * 1e6;
  }
}

/**
 * Runs `load` (`operations` operations) and adds the CPU that `serverPid` (0: none), PostgreSQL
 * and this process used meanwhile to `tally`.
 */
async function costed(
  tally: CpuTally,
  serverPid: number,
  operations: number,
  load: () => Promise<Load>,
): Promise<Load> {
  const sample = async () =>
    (serverPid ? await processCpuSeconds(serverPid) : 0) +
    (await postgresCpuSeconds()) +
    (await processCpuSeconds(process.pid));
  const before = await sample();
  const result = await load();
  tally.seconds += (await sample()) - before;
  tally.operations += operations;
  return result;
}

/**
 * Write figures: POST /memories with CLIENTS clients (one keep-alive connection each), one user
 * and CLIENTS users, against core-api run as its own process (src/main.ts, as in production);
 * raw INSERTs; the same POST body against an empty hono route in its own process; and the write
 * path without HTTP (MemoryService in this process). On Linux the CPU each side used is
 * accounted too (core-api, PostgreSQL, the bench process).
 */
async function writeFigures(
  databaseUrl: string,
  one: BenchUser,
  many: readonly BenchUser[],
): Promise<Figure[]> {
  const raw = createDatabase({ url: databaseUrl, max: CLIENTS });
  // The write path without HTTP: core-api's MemoryService (envelope, leaf, group commit).
  const direct = createDatabase({ url: databaseUrl, max: CLIENTS });
  const service = new MemoryService({
    db: direct.db,
    clock: systemClock,
    appendQueue: new AppendQueue(direct.db),
    recall: new RecallCache({ db: direct.db, clock: systemClock, maxBytes: 0 }),
  });
  const create = (user: BenchUser | undefined) => {
    if (!user) {
      throw new Error("no bench user");
    }
    return service.create(user, user.dataKey, { content: memoryText(1), metadata: {} });
  };
  const api = await startServerProcess("apps/core-api/src/main.ts", {
    ...BENCH_ENV,
    DATABASE_URL: databaseUrl,
  });
  const empty = await startServerProcess("bench/empty-route-server.ts", {});
  const apiClients = new HttpClients(api.url, CLIENTS);
  const emptyClients = new HttpClients(empty.url, CLIENTS);
  try {
    await raw.sql`
      create table bench_plain_writes (
        id text primary key, user_id text not null, leaf_index bigint not null,
        ciphertext bytea, iv bytea, leaf_hash bytea not null, metadata jsonb not null,
        created_at timestamptz(3) not null, unique (user_id, leaf_index))`;
    let leafIndex = 0;
    const rawInsert = (client: number) =>
      raw.sql`insert into bench_plain_writes values (
        ${randomUUID()}, ${`user-${client}`}, ${leafIndex++}, ${randomBytes(233)},
        ${randomBytes(12)}, ${randomBytes(32)}, ${"{}"}::jsonb, ${new Date().toISOString()})`;
    const write = async (client: number, user: BenchUser | undefined) => {
      const status = await apiClients.postJson(
        client,
        "/memories",
        { content: memoryText(1) },
        user?.headers,
      );
      if (status !== 201) {
        throw new Error(`POST /memories: ${status}`);
      }
    };
    const batchItems = () =>
      Array.from({ length: BATCH_ITEMS }, () => ({ content: memoryText(1) }));
    const batchWrite = async (client: number) => {
      const status = await apiClients.postJson(
        client,
        "/memories/batch",
        { items: batchItems() },
        many[client]?.headers,
      );
      if (status !== 201) {
        throw new Error(`POST /memories/batch: ${status}`);
      }
    };
    const rawMultiInsert = (client: number) => {
      const rows = Array.from({ length: BATCH_ITEMS }, () => ({
        id: randomUUID(),
        user_id: `user-${client}`,
        leaf_index: leafIndex++,
        ciphertext: randomBytes(233),
        iv: randomBytes(12),
        leaf_hash: randomBytes(32),
        metadata: "{}",
        created_at: new Date().toISOString(),
      }));
      return raw.sql`insert into bench_plain_writes ${raw.sql(rows)}`;
    };
    const emptyPost = async (client: number) => {
      const status = await emptyClients.postJson(client, "/empty", { content: memoryText(1) });
      if (status !== 204) {
        throw new Error(`POST /empty: ${status}`);
      }
    };
    const linux = process.platform === "linux";
    const rawCpu = new CpuTally();
    const oneCpu = new CpuTally();
    const cost = (tally: CpuTally, pid: number, load: () => Promise<Load>) =>
      linux ? costed(tally, pid, WRITES, load) : load();
    const loads = await interleave(
      {
        raw: () => cost(rawCpu, 0, () => drive(rawInsert, WRITES, CLIENTS)),
        empty: () => drive(emptyPost, WRITES, CLIENTS),
        directOne: () => drive(() => create(one), WRITES, CLIENTS),
        directMany: () => drive((client) => create(many[client]), WRITES, CLIENTS),
        one: () =>
          cost(oneCpu, api.pid, () => drive((client) => write(client, one), WRITES, CLIENTS)),
        many: () => drive((client) => write(client, many[client]), WRITES, CLIENTS),
        batch: () => drive(batchWrite, Math.ceil((4 * WRITES) / BATCH_ITEMS), BATCH_CLIENTS),
        rawMulti: () => drive(rawMultiInsert, Math.ceil((4 * WRITES) / BATCH_ITEMS), BATCH_CLIENTS),
      },
      3,
    );
    const rawName = `raw postgres.js single-row INSERT, ${CLIENTS} in flight`;
    const figures: Figure[] = [
      {
        name: `writes, POST /memories, ${CLIENTS} clients, 1 user`,
        value: loads.one?.rate ?? Number.NaN,
        baseline: loads.raw?.rate ?? Number.NaN,
        unit: "writes/s",
        baselineName: rawName,
        target: "≥ 0.3×",
      },
      {
        name: `writes, POST /memories, ${CLIENTS} clients, ${CLIENTS} users`,
        value: loads.many?.rate ?? Number.NaN,
        baseline: loads.raw?.rate ?? Number.NaN,
        unit: "writes/s",
        baselineName: rawName,
        target: "≥ 0.3×",
      },
      {
        name: `batch writes, POST /memories/batch, ${BATCH_CLIENTS} clients × ${BATCH_ITEMS} items (${BATCH_CLIENTS} users)`,
        value: (loads.batch?.rate ?? Number.NaN) * BATCH_ITEMS,
        baseline: loads.raw?.rate ?? Number.NaN,
        unit: "memories/s",
        baselineName: rawName,
        target: "≥ 1.0×",
      },
      {
        name: "batch writes beside raw multi-row INSERTs of the same rows",
        value: (loads.batch?.rate ?? Number.NaN) * BATCH_ITEMS,
        baseline: (loads.rawMulti?.rate ?? Number.NaN) * BATCH_ITEMS,
        unit: "memories/s",
        baselineName: `raw postgres.js ${BATCH_ITEMS}-row INSERT, ${BATCH_CLIENTS} in flight`,
      },
      {
        name: `write path without HTTP (MemoryService.create), ${CLIENTS} in flight, 1 user`,
        value: loads.directOne?.rate ?? Number.NaN,
        baseline: loads.raw?.rate ?? Number.NaN,
        unit: "writes/s",
        baselineName: rawName,
      },
      {
        name: `write path without HTTP (MemoryService.create), ${CLIENTS} in flight, ${CLIENTS} users`,
        value: loads.directMany?.rate ?? Number.NaN,
        baseline: loads.raw?.rate ?? Number.NaN,
        unit: "writes/s",
        baselineName: rawName,
      },
      {
        name: `reference: empty hono route (own process), same POST body, ${CLIENTS} clients`,
        value: loads.empty?.rate ?? Number.NaN,
        baseline: loads.raw?.rate ?? Number.NaN,
        unit: "requests/s",
        baselineName: rawName,
      },
    ];
    if (linux) {
      figures.push({
        name: "CPU per write over HTTP, 1 user: core-api + PostgreSQL + bench client",
        value: oneCpu.perOperation(),
        baseline: rawCpu.perOperation(),
        unit: "µs",
        baselineName: "raw INSERT: PostgreSQL + bench client",
      });
    }
    return figures;
  } finally {
    await apiClients.close();
    await emptyClients.close();
    await api.stop();
    await empty.stop();
    await direct.close();
    await raw.close();
  }
}

/** Runs the benchmark and prints its figures. */
export async function run(): Promise<void> {
  const database = await benchDatabase("memories");
  const handle = createDatabase({ url: database.url, max: CLIENTS });
  const config = loadConfig(BENCH_ENV);
  const api = await serveCoreApi(handle.db, config);
  try {
    const db = handle.db;
    const reader = await newUser(api.url, db, config);
    const contents = Array.from({ length: MEMORIES }, (_, i) => memoryText(i));
    const ids = await seed(db, reader, contents);
    await handle.sql`analyze memories, merkle_nodes`;

    const n = MEMORIES.toLocaleString("en-US");
    const recall = await recallFigures(handle, config, api.url, reader, contents);
    printFigures(
      `recall: one user, ${n} memories of ~200 bytes, a query that scans them all`,
      recall,
    );
    printFigures(
      `agent recall: relevance ranking and filter-only queries over the same ${n} memories`,
      await agentRecallFigures(db, config, api.url, reader, contents),
    );
    if (process.platform === "linux") {
      const rss = await rssFigures(database.url, reader, contents);
      printFigures(`memory: core-api as its own process, ${n}-memory user cached`, rss);
    }

    const tree = await getTree(db, reader.userId);
    await anchorAt(db, reader.userId, MEMORIES, tree?.root as Hash);
    const big = await newUser(api.url, db, config);
    const bigIds = await seedBigTree(handle, big, BIG_TREE);
    printFigures("proofs (anchored checkpoint at the full size; 1 client)", [
      ...(await proofFigures(handle, api.url, reader, ids, MEMORIES)),
      ...(await proofFigures(handle, api.url, big, bigIds, BIG_TREE)),
    ]);

    const writer = await newUser(api.url, db, config);
    const writers = await Promise.all(
      Array.from({ length: CLIENTS }, () => newUser(api.url, db, config)),
    );
    printFigures("writes (~200-byte memories)", await writeFigures(database.url, writer, writers));

    // Last: a million rows just written keep autovacuum busy, which would slow the figures after.
    if (MILLION > 0) {
      const million = await newUser(api.url, db, config);
      printFigures(
        `cold recall at ${MILLION.toLocaleString("en-US")} memories (one user)`,
        await millionFigures(handle, database.url, million, MILLION),
      );
    }
  } finally {
    await api.close();
    await handle.close();
    await database.close();
  }
}
