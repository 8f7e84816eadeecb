/**
 * The `local` provider (transformers.js in-process). A model missing from EMBEDDINGS_MODEL_DIR and
 * the cache, with downloads off, is a clear `unavailable` error and nothing is fetched (always
 * run). Embedding with a real model needs its files, which this repository does not ship and CI
 * never downloads: set EMBEDDINGS_TEST_MODEL_DIR (holding `<model>/config.json`, `tokenizer.json`,
 * `onnx/model.onnx`) and EMBEDDINGS_TEST_MODEL (default `Xenova/all-MiniLM-L6-v2`) to run it;
 * otherwise it is skipped with a message.
 */
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { EmbeddingsError, LocalEmbeddings, type LocalSettings } from "../src/index.js";

const MODEL_DIR = process.env.EMBEDDINGS_TEST_MODEL_DIR;
const MODEL = process.env.EMBEDDINGS_TEST_MODEL ?? "Xenova/all-MiniLM-L6-v2";
const haveModel = MODEL_DIR !== undefined && existsSync(join(MODEL_DIR, MODEL, "config.json"));

function settings(overrides: Partial<LocalSettings>): LocalSettings {
  return {
    provider: "local",
    model: MODEL,
    modelDir: null,
    allowDownload: false,
    pooling: "mean",
    namespaces: null,
    batchSize: 16,
    concurrency: 1,
    ...overrides,
  };
}

describe("the local provider", () => {
  it("says where it looked when the model is missing and downloads are off", async () => {
    const dir = await mkdtemp(join(tmpdir(), "svc-embeddings-"));
    try {
      const embeddings = new LocalEmbeddings(
        settings({ model: "nobody/no-such-model", modelDir: dir }),
        {
          cacheDir: join(dir, "cache"),
        },
      );
      const error = await embeddings.embed(["x"], "query").catch((e: unknown) => e);
      expect(error).toBeInstanceOf(EmbeddingsError);
      expect((error as EmbeddingsError).code).toBe("unavailable");
      expect((error as EmbeddingsError).message).toContain(`EMBEDDINGS_MODEL_DIR (${dir})`);
      expect((error as EmbeddingsError).message).toContain("EMBEDDINGS_ALLOW_DOWNLOAD=1");
      await embeddings.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it.skipIf(!haveModel)(`embeds with ${MODEL} from EMBEDDINGS_TEST_MODEL_DIR`, async () => {
    const embeddings = new LocalEmbeddings(settings({ modelDir: MODEL_DIR as string }));
    const [cat, kitten, invoice] = await embeddings.embed(
      ["my cat sleeps on the sofa", "the kitten naps on the couch", "pay the invoice by friday"],
      "document",
    );
    const dot = (a: Float32Array, b: Float32Array) =>
      a.reduce((s, x, i) => s + x * (b[i] as number), 0);
    expect(dot(cat as Float32Array, cat as Float32Array)).toBeCloseTo(1, 4);
    expect(dot(cat as Float32Array, kitten as Float32Array)).toBeGreaterThan(
      dot(cat as Float32Array, invoice as Float32Array),
    );
    expect(await embeddings.modelId()).toBe(
      `local|in-process|${MODEL}|${(cat as Float32Array).length}`,
    );
    await embeddings.close();
  });
});

if (!haveModel) {
  console.log(
    "local embeddings: skipped the model test (no model files: set EMBEDDINGS_TEST_MODEL_DIR to a directory holding " +
      `${MODEL}/config.json, tokenizer.json and onnx/model.onnx)`,
  );
}
