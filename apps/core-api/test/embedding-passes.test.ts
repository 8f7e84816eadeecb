/**
 * The timed background embedding pass as core-api's main wires it (EMBEDDINGS=openai,
 * EMBEDDINGS_PASS_INTERVAL_MS): the real process (main.ts under node --import tsx) on the test
 * database, embedding through the OpenAI-compatible test server of
 * `@verifiable-memory/embeddings/testing` (the Universal Sentence Encoder lite). A memory whose
 * embedding on the write path fails (the server answers 400 once) is embedded by the next timed
 * pass, within its interval, with nobody calling `runPass`.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { createServer } from "node:net";
import { fileURLToPath } from "node:url";
import {
  startTestModelServer,
  TEST_MODEL,
  type TestModelServer,
} from "@verifiable-memory/embeddings/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, newUser, startTestApp, TEST_ENV, type TestApp } from "./helpers.js";

const INTERVAL_MS = 1000;

let t: TestApp;
let server: TestModelServer;
let child: ChildProcess | undefined;

beforeAll(async () => {
  server = await startTestModelServer();
  t = await startTestApp();
}, 120_000);
afterAll(async () => {
  if (child && child.exitCode === null && child.signalCode === null) {
    const exited = new Promise((resolve) => child?.once("exit", resolve));
    child.kill("SIGTERM");
    await exited;
  }
  await t?.close();
  await server?.close();
});

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const address = probe.address();
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return typeof address === "object" && address ? address.port : 0;
}

/** Polls `check` every 20 ms until it holds; throws naming `what` after `ms`. */
async function until(what: string, check: () => boolean | Promise<boolean>, ms = 60_000) {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) {
      throw new Error(`timed out waiting for ${what}`);
    }
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe("core-api main: the timed background embedding pass", () => {
  it("embeds a memory whose write-path embedding failed within the pass interval", async () => {
    const port = await freePort();
    const main = fileURLToPath(new URL("../src/main.ts", import.meta.url));
    child = spawn(process.execPath, ["--import", "tsx", main], {
      env: {
        ...process.env,
        ...TEST_ENV,
        DATABASE_URL: t.databaseUrl,
        PORT: String(port),
        LOG_LEVEL: "info",
        EMBEDDINGS: "openai",
        EMBEDDINGS_URL: server.url,
        EMBEDDINGS_MODEL: TEST_MODEL,
        EMBEDDINGS_MAX_RETRIES: "0",
        EMBEDDINGS_PASS_INTERVAL_MS: String(INTERVAL_MS),
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout?.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.stderr?.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    const url = `http://127.0.0.1:${port}`;
    await until(
      "core-api /readyz",
      async () => {
        if (child?.exitCode !== null) {
          throw new Error(`core-api exited ${child?.exitCode}:\n${output}`);
        }
        return fetch(`${url}/readyz`).then(
          (res) => res.ok,
          () => false,
        );
      },
      90_000,
    );
    // The first pass runs at start: it asks the model for its dimensions (the model id).
    await until("the start-up pass's model probe", () => server.requests.length >= 1);
    const user = await newUser(url);
    server.fail({ status: 400 });
    const written = Date.now();
    const res = await call<{ id: string }>(`${url}/memories`, {
      headers: user.headers,
      body: { content: "The kitten sleeps in a basket by the window" },
    });
    expect(res.status).toBe(201);
    await until("the write path's failed embedding", () =>
      output.includes("background embedding failed"),
    );
    const stored = async () => {
      const rows = await t.sql<{ memory_id: string }[]>`
        select memory_id from memory_vectors where user_id = ${user.userId}`;
      return rows.map((row) => row.memory_id);
    };
    expect(await stored()).toEqual([]);
    await until("the timed pass to store the vector", async () => (await stored()).length === 1);
    const elapsed = Date.now() - written;
    expect(await stored()).toEqual([res.body.id]);
    // Within the interval after the failure (plus the pass's own embedding round trip).
    expect(elapsed).toBeLessThan(INTERVAL_MS + 5_000);
    // The refused request embedded nothing; the pass's request embedded the memory.
    expect(server.requests.some((r) => r.inputs === 0)).toBe(true);
    const search = await call<{ items: { id: string }[]; unranked?: number }>(
      `${url}/memories/search`,
      { headers: user.headers, body: { query: "a cat napping", rank: "semantic", limit: 5 } },
    );
    expect(search.status).toBe(200);
    expect(search.body.items.map((m) => m.id)).toEqual([res.body.id]);
    expect(search.body.unranked).toBe(0);
  }, 180_000);
});
