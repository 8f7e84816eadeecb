/**
 * Retrieval quality on LoCoMo (Maharana et al., "Evaluating Very Long-Term Conversational Memory
 * of LLM Agents", ACL 2024), through the real HTTP API: core-api on PostgreSQL, a signed-in
 * wallet, `POST /memories/batch` and `POST /memories/search`. The protocol (docs/performance.md
 * "Retrieval quality"): every dialog turn becomes one memory, content
 * `"<speaker> (<session date>): <text>"` plus ` [shares a photo: <caption>]` when the turn has
 * one, `metadata: { diaId }`, one namespace per conversation; each question of categories 1–4 is
 * asked with `limit: 10` in its conversation's namespace; recall@k is the share of the question's
 * evidence turns among the first k results, averaged over the questions. No LLM anywhere.
 *
 * The data is read at run time from `LOCOMO_PATH` (default `../shared/eval/locomo-dev.json`
 * beside the repository) and never copied into the repository (CC BY-NC 4.0); without it the
 * section says so and is skipped. Each variant (a rank, and the core-api configuration it runs
 * under) gets its own app over the same database, so every figure comes from the same memories.
 *
 * `semantic` and `hybrid` run with the embedding model of the environment when `EMBEDDINGS` is set
 * (e.g. `EMBEDDINGS=openai EMBEDDINGS_URL=http://127.0.0.1:11434/v1
 * EMBEDDINGS_MODEL=nomic-embed-text` for Ollama, docs/recall.md), else with the test model (the
 * Universal Sentence Encoder lite served by the embeddings package's test server, in this
 * process: weak, it checks the machinery). Every memory is embedded once, before the questions
 * (a background pass, timed), so no question meets a memory without its vector.
 * @module
 */
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { type Config, loadConfig } from "@verifiable-memory/core-api";
import { createDatabase, type Database } from "@verifiable-memory/db-schema";
import { createEmbeddingProvider } from "@verifiable-memory/embeddings";
import {
  startTestModelServer,
  TEST_MODEL,
  type TestModelServer,
} from "@verifiable-memory/embeddings/testing";
import { VectorIndexer } from "@verifiable-memory/memory";
import { type Figure, median, printFigures } from "./lib.js";
import {
  BENCH_ENV,
  benchDatabase,
  newWallet,
  postJson,
  type Served,
  serveCoreApi,
  signIn,
} from "./sign-in.bench.js";

const repositoryRoot = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const LOCOMO_PATH = resolve(
  repositoryRoot,
  process.env.LOCOMO_PATH ?? "../shared/eval/locomo-dev.json",
);
const KS = [1, 5, 10] as const;
const BATCH = 256;
/** Question categories of LoCoMo; 5 (adversarial: no answer in the conversation) is skipped. */
const CATEGORIES: Readonly<Record<number, string>> = {
  1: "multi-hop",
  2: "temporal",
  3: "open-domain",
  4: "single-hop",
};

interface Turn {
  readonly speaker: string;
  readonly dia_id: string;
  readonly text: string;
  readonly blip_caption?: string;
}

interface Question {
  readonly question: string;
  readonly evidence: readonly string[];
  readonly category: number;
}

interface Conversation {
  readonly sample_id: string;
  readonly conversation: Readonly<Record<string, unknown>>;
  readonly qa: readonly Question[];
}

/** One way of asking: a rank and the core-api environment it runs under. */
export interface QualityVariant {
  readonly label: string;
  readonly rank: string;
  readonly env: Readonly<Record<string, string>>;
}

/** recall@1/5/10 per category and overall, and each search's latency. */
interface QualityResult {
  readonly recall: Map<string, { questions: number; sums: number[] }>;
  readonly latencies: number[];
}

/** The memories of one conversation, in dialog order. */
function memoriesOf(sample: Conversation): { content: string; metadata: { diaId: string } }[] {
  const { conversation } = sample;
  const sessions = Object.keys(conversation)
    .map((key) => /^session_(\d+)$/.exec(key))
    .filter((match) => match !== null)
    .map((match) => Number(match[1]))
    .sort((a, b) => a - b);
  return sessions.flatMap((n) => {
    const date = conversation[`session_${n}_date_time`] as string;
    return (conversation[`session_${n}`] as Turn[]).map((turn) => ({
      content:
        `${turn.speaker} (${date}): ${turn.text}` +
        (turn.blip_caption ? ` [shares a photo: ${turn.blip_caption}]` : ""),
      metadata: { diaId: turn.dia_id },
    }));
  });
}

/** The namespace of a conversation. */
function namespaceOf(sample: Conversation): string {
  return `locomo/${sample.sample_id}`;
}

/** Writes every conversation's turns through `POST /memories/batch`. */
async function store(
  url: string,
  headers: Record<string, string>,
  samples: readonly Conversation[],
): Promise<number> {
  let stored = 0;
  for (const sample of samples) {
    const items = memoriesOf(sample).map((m) => ({ ...m, namespace: namespaceOf(sample) }));
    for (let start = 0; start < items.length; start += BATCH) {
      const res = await postJson<unknown>(
        `${url}/memories/batch`,
        { items: items.slice(start, start + BATCH) },
        headers,
      );
      if (res.status !== 201) {
        throw new Error(`POST /memories/batch: ${res.status} ${JSON.stringify(res.body)}`);
      }
      stored += Math.min(BATCH, items.length - start);
    }
  }
  return stored;
}

/** A running variant: where its app answers. */
interface Asked {
  readonly url: string;
  readonly rank: string;
}

/**
 * Asks every question of categories 1–4 through `POST /memories/search`, of every variant in
 * turn (so load from elsewhere on the machine hits them alike), after one untimed warm-up
 * question per variant and conversation.
 */
async function evaluate(
  variants: readonly Asked[],
  headers: Record<string, string>,
  samples: readonly Conversation[],
): Promise<QualityResult[]> {
  const results: QualityResult[] = variants.map(() => ({ recall: new Map(), latencies: [] }));
  const count = (result: QualityResult, key: string, found: number[]) => {
    const row = result.recall.get(key) ?? { questions: 0, sums: KS.map(() => 0) };
    row.questions++;
    found.forEach((value, i) => {
      row.sums[i] = (row.sums[i] as number) + value;
    });
    result.recall.set(key, row);
  };
  const ask = async (variant: Asked, sample: Conversation, question: string) => {
    const t0 = performance.now();
    const res = await postJson<{ items: { metadata: { diaId?: string } }[] }>(
      `${variant.url}/memories/search`,
      { query: question, rank: variant.rank, limit: 10, namespace: namespaceOf(sample) },
      headers,
    );
    const ms = performance.now() - t0;
    if (res.status !== 200) {
      throw new Error(`POST /memories/search: ${res.status} ${JSON.stringify(res.body)}`);
    }
    return { ms, ids: res.body.items.map((item) => item.metadata.diaId) };
  };
  for (const sample of samples) {
    for (const variant of variants) {
      await ask(variant, sample, sample.qa[0]?.question ?? "warm-up");
    }
  }
  for (const sample of samples) {
    for (const qa of sample.qa) {
      const category = CATEGORIES[qa.category];
      if (category === undefined || qa.evidence.length === 0) {
        continue;
      }
      const evidence = new Set(qa.evidence);
      for (const [v, variant] of variants.entries()) {
        const { ms, ids } = await ask(variant, sample, qa.question);
        const result = results[v] as QualityResult;
        result.latencies.push(ms);
        const found = KS.map(
          (k) => ids.slice(0, k).filter((id) => id !== undefined && evidence.has(id)).length,
        ).map((hits) => hits / evidence.size);
        count(result, category, found);
        count(result, "overall", found);
      }
    }
  }
  return results;
}

/** recall@k of `result` for `key` ("overall" or a category name). */
function recallAt(result: QualityResult, key: string, k: (typeof KS)[number]): number {
  const row = result.recall.get(key);
  return row === undefined ? 0 : (row.sums[KS.indexOf(k)] as number) / row.questions;
}

function printQuality(label: string, result: QualityResult): void {
  console.log(`\n### ${label}`);
  console.log("category    | questions | recall@1 | recall@5 | recall@10");
  console.log("------------|-----------|----------|----------|----------");
  for (const key of [...Object.values(CATEGORIES), "overall"]) {
    const row = result.recall.get(key);
    if (row === undefined) {
      continue;
    }
    const cells = KS.map((k) => recallAt(result, key, k).toFixed(3).padStart(8));
    console.log(`${key.padEnd(11)} | ${String(row.questions).padStart(9)} | ${cells.join(" | ")}`);
  }
  console.log(`p50 latency per search: ${median(result.latencies).toFixed(2)} ms`);
}

/**
 * The variants measured: `relevance` (BM25) as configured, and with `RECALL_LANGUAGE=none`
 * (words as before the lexical analyser) as the same-run baseline; `semantic` and `hybrid` with
 * the embedding model `embeddings` (the EMBEDDINGS variables).
 */
function variants(embeddings: Readonly<Record<string, string>>): QualityVariant[] {
  return [
    {
      label: "relevance, RECALL_LANGUAGE=none",
      rank: "relevance",
      env: { RECALL_LANGUAGE: "none" },
    },
    { label: "relevance", rank: "relevance", env: { RECALL_LANGUAGE: "en" } },
    { label: "semantic", rank: "semantic", env: { RECALL_LANGUAGE: "en", ...embeddings } },
    { label: "hybrid", rank: "hybrid", env: { RECALL_LANGUAGE: "en", ...embeddings } },
  ];
}

/**
 * The EMBEDDINGS variables of the semantic variants: the environment's when EMBEDDINGS is set,
 * else the test model server's (started here; `server` is then to be closed).
 */
async function embeddingModel(): Promise<{
  env: Record<string, string>;
  server: TestModelServer | null;
}> {
  const configured = process.env.EMBEDDINGS;
  if (configured !== undefined && configured !== "" && configured !== "none") {
    const env: Record<string, string> = {};
    for (const [name, value] of Object.entries(process.env)) {
      if (name.startsWith("EMBEDDINGS") && value !== undefined) {
        env[name] = value;
      }
    }
    return { env: { ...env, EMBEDDINGS_PASS_INTERVAL_MS: "0" }, server: null };
  }
  const server = await startTestModelServer();
  return {
    env: {
      EMBEDDINGS: "openai",
      EMBEDDINGS_URL: server.url,
      EMBEDDINGS_MODEL: TEST_MODEL,
      EMBEDDINGS_PASS_INTERVAL_MS: "0",
    },
    server,
  };
}

/** The background embedder of a variant's configuration; null without an embedding model. */
function indexerOf(db: Database, config: Config): VectorIndexer | null {
  const settings = config.embeddings;
  return settings === null
    ? null
    : new VectorIndexer({
        db,
        provider: createEmbeddingProvider(settings),
        masterKeys: config.masterKeys,
        namespaces: settings.namespaces,
        batchSize: settings.batchSize,
      });
}

/** Runs the benchmark and prints its figures. */
export async function run(): Promise<void> {
  console.log("\n## recall quality (LoCoMo)");
  if (!existsSync(LOCOMO_PATH)) {
    console.log(`skipped: ${LOCOMO_PATH} not found (set LOCOMO_PATH to a LoCoMo JSON file)`);
    return;
  }
  const samples = JSON.parse(await readFile(LOCOMO_PATH, "utf8")) as Conversation[];
  console.log(`${LOCOMO_PATH}: ${samples.length} conversations`);
  const database = await benchDatabase("quality");
  const handle = createDatabase({ url: database.url, max: 8 });
  const model = await embeddingModel();
  const indexers: VectorIndexer[] = [];
  try {
    const all = variants(model.env);
    const served: Served[] = [];
    const results = new Map<string, QualityResult>();
    try {
      for (const variant of all) {
        const config = loadConfig({ ...BENCH_ENV, ...variant.env, DATABASE_URL: database.url });
        const indexer = indexerOf(handle.db, config);
        if (indexer !== null) {
          indexers.push(indexer);
        }
        served.push(await serveCoreApi(handle.db, config, indexer ?? undefined));
      }
      const first = served[0] as Served;
      const { token } = await signIn(first.url, newWallet());
      const headers = { authorization: `Bearer ${token}` };
      console.log(`${await store(first.url, headers, samples)} memories stored`);
      const embedder = indexers[0];
      if (embedder !== undefined) {
        const t0 = performance.now();
        const embedded = await embedder.runPass();
        console.log(
          `${embedded} memories embedded by ${await embedder.modelId()} in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
        );
      }
      const asked = all.map((variant, v) => ({
        url: (served[v] as Served).url,
        rank: variant.rank,
      }));
      for (const [v, result] of (await evaluate(asked, headers, samples)).entries()) {
        const { label } = all[v] as QualityVariant;
        results.set(label, result);
        printQuality(label, result);
      }
    } finally {
      await Promise.all(served.map((s) => s.close()));
      for (const indexer of indexers) {
        indexer.close();
      }
    }
    const figures: Figure[] = [];
    const relevance = results.get("relevance");
    const plain = results.get("relevance, RECALL_LANGUAGE=none");
    if (relevance !== undefined && plain !== undefined) {
      figures.push(
        {
          name: "relevance recall@10, overall",
          value: recallAt(relevance, "overall", 10),
          baseline: recallAt(plain, "overall", 10),
          unit: "",
          baselineName: "RECALL_LANGUAGE=none",
          target: "≥ 0.60 absolute",
        },
        {
          name: "relevance p50 per search (HTTP)",
          value: median(relevance.latencies),
          baseline: median(plain.latencies),
          unit: "ms",
          baselineName: "RECALL_LANGUAGE=none",
          target: "≤ 1.5×",
        },
      );
    }
    const hybrid = results.get("hybrid");
    const semantic = results.get("semantic");
    if (relevance !== undefined && hybrid !== undefined && semantic !== undefined) {
      figures.push(
        {
          name: "hybrid recall@10, overall",
          value: recallAt(hybrid, "overall", 10),
          baseline: recallAt(relevance, "overall", 10),
          unit: "",
          baselineName: "relevance",
          target: "≥ relevance − 0.03",
        },
        {
          name: "semantic recall@10, overall",
          value: recallAt(semantic, "overall", 10),
          baseline: recallAt(relevance, "overall", 10),
          unit: "",
          baselineName: "relevance",
        },
        {
          name: "hybrid p50 per search (HTTP, query embedded)",
          value: median(hybrid.latencies),
          baseline: median(relevance.latencies),
          unit: "ms",
          baselineName: "relevance",
        },
      );
    }
    printFigures("recall quality (LoCoMo): targets", figures);
  } finally {
    await model.server?.close();
    await handle.close();
    await database.close();
  }
}
