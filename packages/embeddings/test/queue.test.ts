/**
 * The bounded queue in front of a model: batches of at most the batch size in input order,
 * queries ahead of waiting documents, at most `concurrency` batches at the model, a full queue
 * refusing at once, closing rejecting what waits, and the embedding settings of the environment.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  checkEmbeddingsEnv,
  EmbeddingQueue,
  EmbeddingsError,
  embeddingSettings,
  embeddingsFields,
  embedsNamespace,
} from "../src/index.js";

/** A model that answers each text's length as a 1-vector, once released, and records its calls. */
function gatedModel() {
  const calls: string[][] = [];
  const gates: (() => void)[] = [];
  let running = 0;
  let peak = 0;
  const model = async (texts: readonly string[]) => {
    calls.push([...texts]);
    running++;
    peak = Math.max(peak, running);
    await new Promise<void>((resolve) => gates.push(resolve));
    running--;
    return texts.map((t) => Float32Array.of(t.length));
  };
  return {
    model,
    calls,
    peak: () => peak,
    /** Releases the batches at the model, one turn later (so the queue can start the next). */
    release: async () => {
      for (const open of gates.splice(0)) {
        open();
      }
      await new Promise((resolve) => setImmediate(resolve));
    },
  };
}

describe("the embedding queue", () => {
  it("batches in order, serves queries first, keeps to its concurrency", async () => {
    const gated = gatedModel();
    const queue = new EmbeddingQueue(gated.model, { batchSize: 2, concurrency: 1, maxQueued: 100 });
    const documents = queue.embed(["a", "bb", "ccc", "dddd", "eeeee"], "document");
    const query = queue.embed(["q"], "query");
    await gated.release();
    await gated.release();
    await gated.release();
    await gated.release();
    expect(gated.calls).toEqual([["a", "bb"], ["q"], ["ccc", "dddd"], ["eeeee"]]);
    expect((await documents).map((v) => v[0])).toEqual([1, 2, 3, 4, 5]);
    expect((await query).map((v) => v[0])).toEqual([1]);
    expect(gated.peak()).toBe(1);
  });

  it("refuses texts that do not fit, at once, and rejects what waits on close", async () => {
    const gated = gatedModel();
    const queue = new EmbeddingQueue(gated.model, { batchSize: 1, concurrency: 1, maxQueued: 3 });
    const running = queue.embed(["x"], "document");
    const waiting = queue.embed(["y", "z"], "document");
    expect(queue.waiting).toBe(2);
    const full = await queue.embed(["1", "2"], "query").catch((e: unknown) => e);
    expect(full).toBeInstanceOf(EmbeddingsError);
    expect((full as EmbeddingsError).code).toBe("overloaded");
    queue.close();
    expect(((await waiting.catch((e: unknown) => e)) as EmbeddingsError).code).toBe("closed");
    await gated.release();
    expect((await running)[0]?.[0]).toBe(1);
    expect(
      () => new EmbeddingQueue(gated.model, { batchSize: 0, concurrency: 1, maxQueued: 1 }),
    ).toThrow(RangeError);
  });
});

describe("embedding settings", () => {
  const schema = z.object(embeddingsFields).superRefine(checkEmbeddingsEnv);

  it("default to none; openai and local need a model", () => {
    expect(embeddingSettings(schema.parse({}))).toBeNull();
    const missing = schema.safeParse({ EMBEDDINGS: "openai" });
    expect(missing.success).toBe(false);
    expect(missing.error?.issues[0]?.path).toEqual(["EMBEDDINGS_MODEL"]);
    expect(
      embeddingSettings(
        schema.parse({
          EMBEDDINGS: "openai",
          EMBEDDINGS_MODEL: "nomic-embed-text",
          EMBEDDINGS_URL: "http://127.0.0.1:11434/v1",
          EMBEDDINGS_NAMESPACES: "agent:, notes/ ,",
        }),
      ),
    ).toMatchObject({
      provider: "openai",
      url: "http://127.0.0.1:11434/v1",
      apiKey: null,
      namespaces: ["agent:", "notes/"],
      batchSize: 32,
    });
    expect(
      embeddingSettings(
        schema.parse({
          EMBEDDINGS: "local",
          EMBEDDINGS_MODEL: "m",
          EMBEDDINGS_ALLOW_DOWNLOAD: "1",
        }),
      ),
    ).toMatchObject({ provider: "local", allowDownload: true, modelDir: null, pooling: "mean" });
    expect(schema.safeParse({ EMBEDDINGS_ALLOW_DOWNLOAD: "yes" }).success).toBe(false);
    expect(schema.safeParse({ EMBEDDINGS_URL: "ftp://x" }).success).toBe(false);
  });

  it("EMBEDDINGS_NAMESPACES limits which memories are embedded", () => {
    expect(embedsNamespace(null, null)).toBe(true);
    expect(embedsNamespace(["agent:"], "agent:a/1")).toBe(true);
    expect(embedsNamespace(["agent:"], "notes")).toBe(false);
    expect(embedsNamespace(["agent:"], null)).toBe(false);
  });
});
