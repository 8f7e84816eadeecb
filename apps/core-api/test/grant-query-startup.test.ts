/**
 * The start-up sealing of grant queries written in clear (docs/protocol.md §8.1 "Creation"), run
 * by the real core-api process: two processes started at once on one PostgreSQL database holding
 * search grants with their query in clear both become ready, together they seal every row exactly
 * once (their logged counts add up), no clear text is left, and the grant answers through its
 * capability URL on either process.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { createServer } from "node:net";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, newUser, startTestApp, TEST_ENV, type TestApp, type TestUser } from "./helpers.js";

const QUERY = "okapi";
const CLEAR_ROWS = 60;

let t: TestApp;
let user: TestUser;
let memoryId: string;
const children: ChildProcess[] = [];

beforeAll(async () => {
  t = await startTestApp();
  user = await newUser(t.url);
  const res = await call<{ id: string }>(`${t.url}/memories`, {
    headers: user.headers,
    body: { content: `an ${QUERY} sighting` },
  });
  expect(res.status).toBe(201);
  memoryId = res.body.id;
});
afterAll(async () => {
  await Promise.all(
    children.map(
      (child) =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) {
            resolve();
            return;
          }
          child.once("exit", () => resolve());
          child.kill("SIGTERM");
        }),
    ),
  );
  await t.close();
});

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return typeof address === "object" && address ? address.port : 0;
}

/** Starts core-api's main.ts on the test database; resolves with its URL and output once ready. */
async function startMain(): Promise<{ url: string; output: () => string }> {
  const port = await freePort();
  const main = fileURLToPath(new URL("../src/main.ts", import.meta.url));
  const child = spawn(process.execPath, ["--import", "tsx", main], {
    env: {
      ...process.env,
      ...TEST_ENV,
      DATABASE_URL: t.databaseUrl,
      PORT: String(port),
      LOG_LEVEL: "info",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(child);
  let output = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 90_000;
  while (Date.now() < deadline && child.exitCode === null) {
    try {
      if ((await fetch(`${url}/readyz`)).ok) {
        return { url, output: () => output };
      }
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`core-api did not become ready (exit ${child.exitCode}):\n${output}`);
}

/** The number of rows a process reported sealing at start-up. */
function sealedCount(output: string): number {
  const line = output.split("\n").find((l) => l.includes("grant queries stored in clear sealed"));
  if (!line) {
    throw new Error(`no start-up sealing logged:\n${output}`);
  }
  return (JSON.parse(line) as { grantQueries: number }).grantQueries;
}

describe("core-api start-up seals grant queries stored in clear", () => {
  it("two processes starting at once seal every clear row once; the grant still answers", async () => {
    const created = await call<{ id: string; token: string }>(`${t.url}/agent-cases`, {
      headers: user.headers,
      body: { operation: { type: "search", query: QUERY }, maxUses: 5 },
    });
    expect(created.status).toBe(201);
    await t.sql`update capability_grants
      set operation = operation || jsonb_build_object('query', ${QUERY}::text),
          query_ciphertext = null, query_iv = null,
          -- the test app's clock is not the child's: expire by the database's clock instead
          expires_at = now() + interval '1 day', created_at = now()
      where id = ${created.body.id}`;
    await t.sql`insert into capability_grants (user_id, token_hash, operation, max_uses, expires_at)
      select ${user.userId}, sha256(('startup' || n)::bytea),
             jsonb_build_object('type', 'search', 'query', 'clear words ' || n),
             1, now() + interval '1 day'
      from generate_series(1, ${CLEAR_ROWS}) n`;
    const clear = async () =>
      Number(
        (
          await t.sql<{ n: string }[]>`select count(*) as n from capability_grants g
            where operation ? 'query' or g::text like '%clear words%' or g::text like ${`%${QUERY}%`}`
        )[0]?.n,
      );
    expect(await clear()).toBe(CLEAR_ROWS + 1);

    const [a, b] = await Promise.all([startMain(), startMain()]);
    expect(sealedCount(a.output()) + sealedCount(b.output())).toBe(CLEAR_ROWS + 1);
    expect(await clear()).toBe(0);
    const sealed = await t.sql<{ n: string }[]>`select count(*) as n from capability_grants
      where query_ciphertext is not null and query_iv is not null`;
    expect(Number(sealed[0]?.n)).toBe(CLEAR_ROWS + 1);

    for (const url of [a.url, b.url]) {
      const used = await call<{ operation: Record<string, unknown>; memories: { id: string }[] }>(
        `${url}/agent-cases/${created.body.token}`,
      );
      expect(used.status).toBe(200);
      expect(used.body.operation).toMatchObject({ type: "search", query: QUERY });
      expect(used.body.memories.map((m) => m.id)).toEqual([memoryId]);
    }
  });
});
