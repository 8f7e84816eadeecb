/**
 * `EMBEDDINGS=local` (transformers.js in the core-api process) through core-api's HTTP API. Always
 * run: a model missing from EMBEDDINGS_MODEL_DIR with downloads off does not stop writes (201,
 * embedding is off the request path) and a semantic search is 503 `embeddings_unavailable`, with
 * nothing fetched. With a real model: writes are embedded in the background and stored under the
 * `local|in-process|<model>|<dimensions>` model id, and semantic and hybrid recall rank by
 * meaning. The model files are not shipped and never downloaded by tests: set
 * EMBEDDINGS_TEST_MODEL_DIR (holding `<model>/config.json`, `tokenizer.json`, `onnx/model.onnx`)
 * and EMBEDDINGS_TEST_MODEL (default `Xenova/all-MiniLM-L6-v2`) to run that part; otherwise it is
 * skipped with a message, as in `@verifiable-memory/embeddings`' own local test.
 */
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, newUser, startTestApp, type TestApp } from "./helpers.js";

const MODEL_DIR = process.env.EMBEDDINGS_TEST_MODEL_DIR;
const MODEL = process.env.EMBEDDINGS_TEST_MODEL ?? "Xenova/all-MiniLM-L6-v2";
const haveModel = MODEL_DIR !== undefined && existsSync(join(MODEL_DIR, MODEL, "config.json"));

interface Page {
  items: { id: string; content: string }[];
  unranked?: number;
}

let empty: string;
beforeAll(async () => {
  empty = await mkdtemp(join(tmpdir(), "svc-core-local-"));
});
afterAll(async () => {
  await rm(empty, { recursive: true, force: true });
});

/** core-api with EMBEDDINGS=local over `model` in `dir`, downloads off. */
function startLocal(dir: string, model: string): Promise<TestApp> {
  return startTestApp({
    env: {
      EMBEDDINGS: "local",
      EMBEDDINGS_MODEL: model,
      EMBEDDINGS_MODEL_DIR: dir,
      EMBEDDINGS_ALLOW_DOWNLOAD: "0",
      EMBEDDINGS_PASS_INTERVAL_MS: "0",
    },
  });
}

describe("EMBEDDINGS=local through core-api", () => {
  it("a missing model: writes still succeed, semantic search is 503 embeddings_unavailable", async () => {
    const t = await startLocal(empty, "nobody/no-such-model");
    try {
      const user = await newUser(t.url);
      const res = await call(`${t.url}/memories`, {
        headers: user.headers,
        body: { content: "my cat sleeps on the sofa" },
      });
      expect(res.status).toBe(201);
      const search = await call<{ error: { code: string } }>(`${t.url}/memories/search`, {
        headers: user.headers,
        body: { query: "cat", rank: "semantic" },
      });
      expect(search.status).toBe(503);
      expect(search.body.error.code).toBe("embeddings_unavailable");
      const stored = await t.sql`select 1 from memory_vectors where user_id = ${user.userId}`;
      expect(stored).toHaveLength(0);
    } finally {
      await t.close();
    }
  });

  it.skipIf(!haveModel)(
    `embeds writes with ${MODEL} and ranks semantic and hybrid recall by meaning`,
    async () => {
      const t = await startLocal(MODEL_DIR as string, MODEL);
      try {
        const user = await newUser(t.url);
        const ids: string[] = [];
        for (const content of [
          "my cat sleeps on the sofa",
          "pay the electricity invoice by friday",
          "the kitten naps on the couch",
        ]) {
          const res = await call<{ id: string }>(`${t.url}/memories`, {
            headers: user.headers,
            body: { content },
          });
          expect(res.status).toBe(201);
          ids.push(res.body.id);
        }
        await t.vectors?.idle();
        const models = await t.sql<{ model_id: string }[]>`
          select distinct model_id from memory_vectors where user_id = ${user.userId}`;
        expect(models).toHaveLength(1);
        expect(models[0]?.model_id).toMatch(
          new RegExp(
            `^local\\|in-process\\|${MODEL.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}\\|\\d+$`,
          ),
        );
        for (const rank of ["semantic", "hybrid"]) {
          const res = await call<Page>(`${t.url}/memories/search`, {
            headers: user.headers,
            body: { query: "a pet resting on furniture", rank, limit: 3 },
          });
          expect(res.status).toBe(200);
          expect(res.body.unranked).toBe(0);
          expect(res.body.items.at(-1)?.id).toBe(ids[1]);
        }
      } finally {
        await t.close();
      }
    },
    120_000,
  );
});

if (!haveModel) {
  console.log(
    "core-api local embeddings: skipped the model test (no model files: set EMBEDDINGS_TEST_MODEL_DIR to a directory holding " +
      `${MODEL}/config.json, tokenizer.json and onnx/model.onnx)`,
  );
}
