/**
 * Vectors in recall: the int8 store and its SIMD scan against exact cosines; then, on real
 * PostgreSQL with real AES-GCM, the background embedder fed by writes (EMBEDDINGS_NAMESPACES
 * honoured), semantic and hybrid ranks (unranked counts, cursor pages), cold and warm answers
 * identical, deletion removing the vector, and a model change re-embedded by a pass while the
 * old model's vectors are never compared. The model is a deterministic hashed bag of words
 * (feature hashing, Weinberger et al., ICML 2009) behind the EmbeddingProvider interface: it checks
 * the machinery; the provider's own tests talk to a real model.
 * @module
 */
import { randomBytes } from "node:crypto";
import { systemClock } from "@verifiable-memory/clock";
import { listMemoryVectors } from "@verifiable-memory/db-schema";
import { createTestDatabase, type TestDatabase } from "@verifiable-memory/db-schema/testing";
import { type EmbeddingProvider, formatModelId } from "@verifiable-memory/embeddings";
import { MasterKeyring } from "@verifiable-memory/envelope-crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  AppendQueue,
  MemoryService,
  quantise,
  RecallCache,
  VectorIndexer,
  VectorStore,
} from "../../src/index.js";
import { createTestOwner } from "../../src/testing/index.js";
import { prng } from "./fixtures.js";

/** A hashed bag of words of `dimensions` (words folded, each adding ±1 to one component). */
function hashingProvider(
  dimensions: number,
  name = "hash-bow",
): EmbeddingProvider & {
  calls: number;
} {
  const embedOne = (text: string) => {
    const v = new Float32Array(dimensions);
    for (const word of text.toLowerCase().match(/[a-z]+/g) ?? []) {
      let h = 2166136261;
      for (let i = 0; i < word.length; i++) {
        h = Math.imul(h ^ word.charCodeAt(i), 16777619);
      }
      const index = (h >>> 1) % dimensions;
      v[index] = (v[index] as number) + (h & 1 ? 1 : -1);
    }
    return v;
  };
  return {
    provider: "openai",
    calls: 0,
    modelId: async () => formatModelId("openai", "http://127.0.0.1:1", name, dimensions),
    async embed(texts) {
      this.calls++;
      return texts.map(embedOne);
    },
    close: async () => undefined,
  };
}

function cosine(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += (a[i] as number) * (b[i] as number);
    na += (a[i] as number) ** 2;
    nb += (b[i] as number) ** 2;
  }
  return dot / Math.sqrt(na * nb);
}

describe("VectorStore", () => {
  it("scores every vector within 0.02 of its exact cosine, through growth and a remap", () => {
    const random = prng(7);
    const dims = 384;
    const store = new VectorStore("m", dims);
    const vectors: Float32Array[] = [];
    for (let p = 0; p < 700; p++) {
      const v = Float32Array.from({ length: dims }, () => random() * 2 - 1);
      vectors.push(v);
      store.add(p * 2, v);
    }
    const query = Float32Array.from({ length: dims }, () => random() * 2 - 1);
    const seen = new Map<number, number>();
    store.scan(query, (position, score) => seen.set(position, score));
    expect(seen.size).toBe(700);
    for (const [position, score] of seen) {
      expect(Math.abs(score - cosine(query, vectors[position / 2] as Float32Array))).toBeLessThan(
        0.02,
      );
    }
    const remapped = store.remap((position) => (position % 4 === 0 ? position / 4 : -1));
    const again = new Map<number, number>();
    remapped.scan(query, (position, score) => again.set(position, score));
    expect(again.size).toBe(350);
    expect(again.get(10)).toBe(seen.get(40));
    expect(store.has(2)).toBe(true);
    expect(store.has(3)).toBe(false);
    expect(() => store.add(9999, new Float32Array(3))).toThrow(RangeError);
    expect(quantise(new Float32Array(4), 16).inverseNorm).toBe(0);
  });
});

let t: TestDatabase;
const master = randomBytes(32);
const masterKeys = new MasterKeyring(master, []);
beforeAll(async () => {
  t = await createTestDatabase();
});
afterAll(async () => {
  await t.close();
});

function setup(provider: EmbeddingProvider, namespaces: string[] | null = null) {
  const recall = new RecallCache({ db: t.db, clock: systemClock, maxBytes: 1 << 30 });
  const vectors = new VectorIndexer({ db: t.db, provider, masterKeys, namespaces });
  const appendQueue = new AppendQueue(t.db);
  const service = new MemoryService({ db: t.db, clock: systemClock, appendQueue, recall, vectors });
  return { recall, vectors, service };
}

const TEXTS = [
  "the cat sat on the warm mat",
  "dogs bark at the mail carrier",
  "a cat and a kitten play with yarn",
  "quarterly revenue grew in the north region",
  "the kitten sleeps on the mat",
];

describe("semantic and hybrid recall", () => {
  it("embeds writes in the background, ranks by cosine and fusion, pages, deletes, cold = warm", async () => {
    const provider = hashingProvider(64);
    const { service, vectors, recall } = setup(provider, ["pets"]);
    const u = await createTestOwner(t.db, master);
    const created = [];
    for (const [i, content] of TEXTS.entries()) {
      created.push(
        await service.create(u.owner, u.dataKey, {
          content,
          metadata: {},
          namespace: i === 3 ? "work" : "pets",
        }),
      );
    }
    await vectors.idle();
    const modelId = await vectors.modelId();
    const stored = await listMemoryVectors(t.db, u.owner.userId, modelId, null);
    expect(stored).toHaveLength(4);
    for (const row of stored) {
      expect(Buffer.from(row.ciphertext).includes(Buffer.from("cat"))).toBe(false);
    }
    const ask = (rank: "semantic" | "hybrid", cursor?: string, limit = 2) =>
      service.search(u.owner, u.dataKey, {
        query: "kitten on a mat",
        rank,
        limit,
        caseSensitive: false,
        ...(cursor === undefined ? {} : { cursor }),
      });
    const semantic = await ask("semantic", undefined, 10);
    expect(semantic.unranked).toBe(1);
    expect(semantic.items[0]?.content).toBe("the kitten sleeps on the mat");
    expect(semantic.items.map((m) => m.content)).not.toContain(TEXTS[3]);
    const scores = semantic.items.map((m) => m.score as number);
    expect([...scores].sort((a, b) => b - a)).toEqual(scores);
    // Pages of 2 give the same order, no repeats.
    const paged: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await ask("semantic", cursor);
      paged.push(...page.items.map((m) => m.id));
      cursor = page.nextCursor ?? undefined;
    } while (cursor !== undefined);
    expect(paged).toEqual(semantic.items.map((m) => m.id));
    const hybrid = await ask("hybrid", undefined, 10);
    expect(hybrid.unranked).toBe(1);
    expect(hybrid.items[0]?.content).toBe("the kitten sleeps on the mat");
    expect(hybrid.items[0]?.score).toBeCloseTo(2 / 61, 10);
    // A fresh cache (cold load) answers exactly as the warm one.
    const cold = setup(provider, ["pets"]);
    const coldAnswer = await cold.service.search(u.owner, u.dataKey, {
      query: "kitten on a mat",
      rank: "hybrid",
      limit: 10,
      caseSensitive: false,
    });
    expect(coldAnswer).toEqual(hybrid);
    // Deletion removes the vector from the table and the memory from the ranks.
    await service.delete(u.owner, u.dataKey, created[4]?.id as string);
    expect(await listMemoryVectors(t.db, u.owner.userId, modelId, null)).toHaveLength(3);
    const after = await ask("semantic", undefined, 10);
    expect(after.items.map((m) => m.id)).not.toContain(created[4]?.id);
    expect(recall.stats().users).toBe(1);
  });

  it("refuses semantic without a model or a query; a model change is re-embedded by a pass", async () => {
    const plain = new MemoryService({
      db: t.db,
      clock: systemClock,
      appendQueue: new AppendQueue(t.db),
      recall: new RecallCache({ db: t.db, clock: systemClock, maxBytes: 1 << 30 }),
    });
    const u = await createTestOwner(t.db, master);
    for (const content of TEXTS) {
      await plain.create(u.owner, u.dataKey, { content, metadata: {} });
    }
    await expect(
      plain.search(u.owner, u.dataKey, {
        query: "cat",
        rank: "semantic",
        limit: 5,
        caseSensitive: false,
      }),
    ).rejects.toMatchObject({ code: "invalid_request" });
    const first = setup(hashingProvider(64, "first"));
    await expect(
      first.service.search(u.owner, u.dataKey, { rank: "hybrid", limit: 5, caseSensitive: false }),
    ).rejects.toMatchObject({ code: "invalid_request" });
    // Written without an embedder: nothing to rank until a pass embeds them.
    const before = await first.service.search(u.owner, u.dataKey, {
      query: "cat",
      rank: "semantic",
      limit: 5,
      caseSensitive: false,
    });
    expect(before.items).toEqual([]);
    expect(before.unranked).toBe(5);
    expect(await first.vectors.runPass()).toBeGreaterThanOrEqual(5);
    expect(await first.vectors.runPass()).toBe(0);
    const firstAnswer = await first.service.search(u.owner, u.dataKey, {
      query: "cat",
      rank: "semantic",
      limit: 5,
      caseSensitive: false,
    });
    expect(firstAnswer.unranked).toBe(0);
    // Another model (another id): its own vectors only; the same cache never mixes them.
    const second = hashingProvider(32, "second");
    const other = new VectorIndexer({ db: t.db, provider: second, masterKeys, namespaces: null });
    const switched = new MemoryService({
      db: t.db,
      clock: systemClock,
      appendQueue: new AppendQueue(t.db),
      recall: first.recall,
      vectors: other,
    });
    const unembedded = await switched.search(u.owner, u.dataKey, {
      query: "cat",
      rank: "semantic",
      limit: 5,
      caseSensitive: false,
    });
    expect(unembedded.unranked).toBe(5);
    expect(await other.runPass()).toBeGreaterThanOrEqual(5);
    const reembedded = await switched.search(u.owner, u.dataKey, {
      query: "cat",
      rank: "semantic",
      limit: 5,
      caseSensitive: false,
    });
    expect(reembedded.unranked).toBe(0);
    expect(reembedded.items.length).toBeGreaterThan(0);
  });
});
