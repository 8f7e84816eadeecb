/**
 * Defects found by an outside attack run, each pinned: HEAD on a grant URL spends nothing; a
 * grant token in the path never reaches a log line, whatever the method or path variant; U+0000
 * in key labels, grant labels, grant queries and memory ids is a 400, never a 500.
 */
import { Writable } from "node:stream";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loggablePath } from "../src/app.js";
import { callAt, newUser, startTestApp, type TestApp, type TestUser } from "./helpers.js";

const written: string[] = [];
const sink = new Writable({
  write(chunk: Buffer | string, _encoding, done) {
    written.push(String(chunk));
    done();
  },
});

let t: TestApp;
let user: TestUser;
let memoryId: string;

beforeAll(async () => {
  t = await startTestApp({ logger: pino({ level: "trace" }, sink) });
  user = await newUser(t.app);
  const created = await callAt<{ id: string }>(t.app, "/memories", {
    headers: user.headers,
    body: { content: "shared once" },
  });
  memoryId = created.body.id;
});
afterAll(async () => {
  await t.close();
});

async function grant(maxUses = 1): Promise<string> {
  const res = await callAt<{ token: string }>(t.app, "/agent-cases", {
    headers: user.headers,
    body: { operation: { type: "read_memories", memoryIds: [memoryId] }, maxUses },
  });
  expect(res.status).toBe(201);
  return res.body.token;
}

describe("grant URLs", () => {
  it("HEAD spends no use (405, Allow: GET); the GET after it still works", async () => {
    const token = await grant(1);
    const head = await t.app.request(`/agent-cases/${token}`, { method: "HEAD" });
    expect(head.status).toBe(405);
    expect(head.headers.get("allow")).toBe("GET");
    const get = await callAt<{ usesRemaining: number }>(t.app, `/agent-cases/${token}`);
    expect(get.status).toBe(200);
    expect(get.body.usesRemaining).toBe(0);
  });

  it("never logs a token, on any method or path variant", async () => {
    const token = await grant(5);
    const variants: [string, string][] = [
      ["GET", `/agent-cases/${token}`],
      ["HEAD", `/agent-cases/${token}`],
      ["POST", `/agent-cases/${token}`],
      ["DELETE", `/agent-cases/${token}`],
      ["GET", `/agent-cases/${token}/x`],
      ["GET", `//agent-cases/${token}`],
      ["GET", `/AGENT-CASES/${token}`],
      ["GET", `/agent-cases/${token}/audit`],
    ];
    for (const [method, path] of variants) {
      const res = await t.app.request(`${path}`, {
        method,
        headers: {
          ...user.headers,
          ...(method === "POST" ? { "content-type": "application/json" } : {}),
        },
        ...(method === "POST" ? { body: "{}" } : {}),
      });
      expect(res.status, `${method} ${path}`).toBeLessThan(500);
    }
    const text = written.join("");
    expect(text.includes(token), "a grant token appears in the logs").toBe(false);
    expect(text).toContain("/agent-cases/:token");
  });

  it("keeps grant ids and the audit path readable in logs", () => {
    const id = "0b6f7c1e-5a0e-4c1a-9a53-7f1f5b2f8d11";
    expect(loggablePath("GET", `/agent-cases/${id}/audit`)).toBe(`/agent-cases/${id}/audit`);
    expect(loggablePath("DELETE", `/agent-cases/${id}`)).toBe(`/agent-cases/${id}`);
    expect(loggablePath("GET", "/memories/abc")).toBe("/memories/abc");
  });
});

describe("U+0000", () => {
  it.each([
    ["/keys", { label: "a\u0000b" }],
    ["/agent-cases", { operation: { type: "search", query: "a\u0000b" } }],
    ["/agent-cases", { operation: { type: "read_memories", memoryIds: ["a\u0000"] } }],
    ["/agent-cases", { operation: { type: "search", query: "x" }, label: "label\u0000" }],
  ])("in %s %j is a 400", async (path, body) => {
    const res = await callAt<{ error: { code: string } }>(t.app, `${path}`, {
      headers: user.headers,
      body,
    });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe("invalid_request");
  });
});
