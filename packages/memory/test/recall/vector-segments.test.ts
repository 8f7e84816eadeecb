/**
 * Vectors sealed into recall vector segments (docs/protocol.md §4.5 "Recall", docs/data-model.md
 * "Recall segments"), on real PostgreSQL with real AES-GCM and the real test model (Universal
 * Sentence Encoder lite behind the OpenAI-compatible test server of
 * `@verifiable-memory/embeddings/testing`): cold and warm semantic and hybrid answers identical; a
 * cold load reads no stored vector of a sealed range (those rows are made unopenable and the cold
 * answer is still the warm one); a late vector drops its range's segment and the range is sealed
 * again; a deletion re-seals the segment without the vector; a second model gets its own segments
 * and is never mixed with the first; segments sealed before vectors existed still read.
 */
import { randomBytes } from "node:crypto";
import { systemClock } from "@verifiable-memory/clock";
import { createTestDatabase, type TestDatabase } from "@verifiable-memory/db-schema/testing";
import { OpenAiEmbeddings } from "@verifiable-memory/embeddings";
import {
  startTestModelServer,
  TEST_MODEL,
  type TestModelServer,
} from "@verifiable-memory/embeddings/testing";
import { MasterKeyring } from "@verifiable-memory/envelope-crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AppendQueue, MemoryService, RecallCache, VectorIndexer } from "../../src/index.js";
import { createTestOwner } from "../../src/testing/index.js";

let t: TestDatabase;
let server: TestModelServer;
const master = randomBytes(32);
const masterKeys = new MasterKeyring(master, []);
const SEGMENT = 4;

beforeAll(async () => {
  t = await createTestDatabase();
  server = await startTestModelServer();
}, 120_000);
afterAll(async () => {
  await server?.close();
  await t?.close();
});

function provider(dimensions: number | null) {
  return new OpenAiEmbeddings({
    provider: "openai",
    model: TEST_MODEL,
    url: server.url,
    apiKey: null,
    dimensions,
    timeoutMs: 30_000,
    maxRetries: 0,
    namespaces: null,
    batchSize: 16,
    concurrency: 1,
  });
}

function services(vectors: VectorIndexer) {
  const recall = new RecallCache({
    db: t.db,
    clock: systemClock,
    maxBytes: 1 << 30,
    segmentLeaves: SEGMENT,
  });
  const appendQueue = new AppendQueue(t.db);
  const service = new MemoryService({ db: t.db, clock: systemClock, appendQueue, recall, vectors });
  return { recall, service };
}

const TEXTS: [string, string][] = [
  ["pets", "My cat loves to sleep on the sofa all afternoon"],
  ["pets", "The dog needs a walk every morning before breakfast"],
  ["food", "I baked sourdough bread with a crispy crust"],
  ["work", "The quarterly budget meeting moved to Thursday"],
  ["pets", "Our kitten chased a ball of yarn across the floor"],
  ["food", "Fresh tomatoes and basil make a simple summer salad"],
  ["work", "The release train leaves every second Tuesday"],
  ["pets", "The parrot repeats every word the children say"],
  ["food", "Slow cooked lentil soup warms a cold evening"],
];

describe("vectors in recall segments", () => {
  it("cold loads read vector segments, answer as warm, follow late vectors, deletions and models", async () => {
    const u = await createTestOwner(t.db, master);
    const first = provider(null);
    // The namespace "work" is left out at first: its memories get vectors late.
    const indexer = new VectorIndexer({
      db: t.db,
      provider: first,
      masterKeys,
      namespaces: ["pets", "food"],
    });
    const warm = services(indexer);
    const ids: string[] = [];
    for (const [namespace, content] of TEXTS) {
      const created = await warm.service.create(u.owner, u.dataKey, {
        content,
        namespace,
        metadata: {},
      });
      ids.push(created.id);
    }
    await indexer.idle();
    const modelId = await indexer.modelId();
    const ask = (service: MemoryService, rank: "semantic" | "hybrid") =>
      service.search(u.owner, u.dataKey, {
        query: "a sleepy cat on the couch",
        rank,
        limit: 10,
        caseSensitive: false,
      });
    const answers = async (service: MemoryService) => ({
      semantic: await ask(service, "semantic"),
      hybrid: await ask(service, "hybrid"),
    });
    // Content segments first ([0, 4), [4, 8) and the tail [8, 9)), before any vector segment.
    expect(await warm.recall.seal(u.owner.userId, u.dataKey)).toBe(3);
    const before = await answers(warm.service);
    expect(before.semantic.unranked).toBe(2);
    expect(before.semantic.items[0]?.id).toBe(ids[0]);
    // A cold cache of that state reads content segments and stored vectors, and answers the same.
    expect(await answers(services(indexer).service)).toEqual(before);
    // The vectors of the sealed ranges are sealed lazily (the searches above started it in the
    // background; sealVectors waits for every range), one segment per range and model.
    await warm.recall.sealVectors(u.owner.userId, u.dataKey);
    const segments = () =>
      t.sql<{ model_id: string; first_leaf: string; entries: number }[]>`
        select model_id, first_leaf::text, entries from recall_vector_segments
        where user_id = ${u.owner.userId} order by model_id, first_leaf`;
    expect(await segments()).toEqual([
      { model_id: modelId, first_leaf: "0", entries: 3 },
      { model_id: modelId, first_leaf: "4", entries: 3 },
    ]);

    // A cold load reads no stored vector below the segments: those rows cannot be opened now
    // (their last ciphertext byte flipped), yet the cold answer is the warm one.
    const flip = (rows: string) =>
      t.sql.unsafe(`update memory_vectors
      set ciphertext = overlay(ciphertext placing set_byte('\\x00'::bytea, 0,
        get_byte(ciphertext, octet_length(ciphertext) - 1) # 1)
        from octet_length(ciphertext) for 1)
      where user_id = '${u.owner.userId}' and leaf_index < ${rows}`);
    await flip("8");
    expect(await answers(services(indexer).service)).toEqual(before);
    await flip("8");

    // A late vector (the "work" memories embedded by a pass) drops its range's segment.
    const everything = new VectorIndexer({
      db: t.db,
      provider: first,
      masterKeys,
      namespaces: null,
    });
    expect(await everything.runPass()).toBe(2);
    expect((await segments()).map((s) => s.first_leaf)).toEqual([]);
    // Without segments a cold load reads those rows: the flipped bytes make it fail.
    await flip("8");
    await expect(ask(services(indexer).service, "semantic")).rejects.toMatchObject({
      name: "DecryptionError",
    });
    await flip("8");
    const late = await answers(warm.service);
    expect(late.semantic.unranked).toBe(0);
    expect(await answers(services(indexer).service)).toEqual(late);
    // The warm cache saw the late vectors below its sealed end: it seals those ranges again.
    await warm.recall.sealVectors(u.owner.userId, u.dataKey);
    expect((await segments()).map((s) => s.entries)).toEqual([4, 4]);
    await flip("8");
    expect(await answers(services(indexer).service)).toEqual(late);
    await flip("8");

    // A deletion re-seals the segment without the vector, in the deletion's transaction.
    await warm.service.delete(u.owner, u.dataKey, ids[0] as string);
    expect((await segments()).map((s) => s.entries)).toEqual([3, 4]);
    const deleted = await answers(warm.service);
    expect(deleted.semantic.items.map((m) => m.id)).not.toContain(ids[0]);
    expect(await answers(services(indexer).service)).toEqual(deleted);

    // Another model (shortened vectors: another model id) has its own segments, never mixed.
    const second = provider(128);
    const other = new VectorIndexer({ db: t.db, provider: second, masterKeys, namespaces: null });
    const otherId = await other.modelId();
    expect(otherId).not.toBe(modelId);
    expect(await other.runPass()).toBe(8);
    const switched = services(other);
    const secondAnswers = await answers(switched.service);
    expect(secondAnswers.semantic.unranked).toBe(0);
    await switched.recall.sealVectors(u.owner.userId, u.dataKey);
    const all = await segments();
    expect(all.filter((s) => s.model_id === otherId).map((s) => s.entries)).toEqual([3, 4]);
    expect(all.filter((s) => s.model_id === modelId).map((s) => s.entries)).toEqual([3, 4]);
    await flip("8");
    expect(await answers(services(other).service)).toEqual(secondAnswers);
    expect(await answers(services(indexer).service)).toEqual(deleted);
    await flip("8");
    await first.close();
    await second.close();
  }, 120_000);
});
