import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, newUser, startTestApp, type TestApp, type TestUser } from "./helpers.js";

let t: TestApp;
let user: TestUser;

beforeAll(async () => {
  t = await startTestApp();
  user = await newUser(t.url);
  await call(`${t.url}/memories`, { headers: user.headers, body: { content: "seed" } });
});
afterAll(async () => {
  await t.close();
});

function raw(path: string, body: string, contentType = "application/json") {
  return fetch(`${t.url}${path}`, {
    method: "POST",
    headers: { ...user.headers, "content-type": contentType },
    body,
  });
}

async function expectError(res: Response, status: number, code: string): Promise<void> {
  expect(res.status).toBe(status);
  expect(res.headers.get("x-request-id")).toBeTruthy();
  const body = (await res.json()) as { error: { code: string; message: string } };
  expect(body.error.code).toBe(code);
  expect(typeof body.error.message).toBe("string");
}

describe("POST /memories rejects bad input with the error shape (CONTRACT §1)", () => {
  const cases: [string, unknown][] = [
    ["missing content", {}],
    ["empty content", { content: "" }],
    ["content not a string", { content: 42 }],
    ["32 769-byte content", { content: "a".repeat(32_769) }],
    ["multi-byte content over 32 768 bytes", { content: "€".repeat(10_923) }],
    ["a lone surrogate in content", { content: "abc\ud800def" }],
    ["metadata an array", { content: "x", metadata: [1, 2] }],
    ["metadata a string", { content: "x", metadata: "tag" }],
    ["metadata null", { content: "x", metadata: null }],
    ["metadata over 4 096 canonical bytes", { content: "x", metadata: { k: "v".repeat(4090) } }],
    ["an empty metadata key", { content: "x", metadata: { "": 1 } }],
    ["a 65-char metadata key", { content: "x", metadata: { ["k".repeat(65)]: 1 } }],
    ["U+0000 in a metadata string", { content: "x", metadata: { k: "a\u0000b" } }],
    ["a lone surrogate in a metadata string", { content: "x", metadata: { k: "\udc00" } }],
  ];
  for (const [name, body] of cases) {
    it(`400 invalid_request: ${name}`, async () => {
      await expectError(await raw("/memories", JSON.stringify(body)), 400, "invalid_request");
    });
  }

  it("accepts exactly 32 768 bytes of content and exactly 64-char keys", async () => {
    const res = await raw(
      "/memories",
      JSON.stringify({ content: "a".repeat(32_768), metadata: { ["k".repeat(64)]: 1 } }),
    );
    expect(res.status).toBe(201);
  });

  it("400 for malformed JSON, 413 past 256 KiB, 415 for a non-JSON content type", async () => {
    await expectError(await raw("/memories", '{"content": "x"'), 400, "invalid_request");
    await expectError(
      await raw("/memories", JSON.stringify({ content: "a".repeat(300 * 1024) })),
      413,
      "payload_too_large",
    );
    await expectError(
      await raw("/memories", "content=x", "text/plain"),
      415,
      "unsupported_media_type",
    );
  });

  it("loses nothing: rejected writes leave the log unchanged", async () => {
    const before = await call<{ treeSize: number }>(`${t.url}/log`, { headers: user.headers });
    await raw("/memories", JSON.stringify({ content: "" }));
    await raw("/memories", JSON.stringify({ content: "x", metadata: [] }));
    const after = await call<{ treeSize: number }>(`${t.url}/log`, { headers: user.headers });
    expect(after.body.treeSize).toBe(before.body.treeSize);
  });
});

describe("search, list and consistency parameters", () => {
  it("rejects limit 0 and 201, a missing query and a bad metadata filter", async () => {
    for (const body of [
      { query: "x", limit: 0 },
      { query: "x", limit: 201 },
      { query: "x", limit: 1.5 },
      {},
      { query: "" },
      { query: "x", caseSensitive: "yes" },
      { query: "x", metadata: [] },
    ]) {
      await expectError(
        await raw("/memories/search", JSON.stringify(body)),
        400,
        "invalid_request",
      );
    }
    for (const query of ["limit=0", "limit=201", "limit=abc"]) {
      const res = await fetch(`${t.url}/memories?${query}`, { headers: user.headers });
      await expectError(res, 400, "invalid_request");
    }
  });

  it("needs 1 <= from <= to <= treeSize for consistency proofs", async () => {
    for (const query of ["from=0&to=1", "from=2&to=1", "from=1&to=999", "from=a&to=1", "to=1"]) {
      const res = await fetch(`${t.url}/log/consistency?${query}`, { headers: user.headers });
      await expectError(res, 400, "invalid_request");
    }
  });
});

describe("fuzz: 1 000 random bodies per route never yield a 5xx", () => {
  const jsonBody = fc.oneof(
    fc.json(),
    fc
      .record(
        {
          content: fc.oneof(fc.string(), fc.string({ unit: "binary" }), fc.jsonValue()),
          metadata: fc.oneof(fc.jsonValue(), fc.dictionary(fc.string(), fc.jsonValue())),
          query: fc.oneof(fc.string(), fc.jsonValue()),
          limit: fc.oneof(fc.integer(), fc.double(), fc.string()),
          caseSensitive: fc.jsonValue(),
        },
        { requiredKeys: [] },
      )
      .map((o) => JSON.stringify(o)),
    fc.string(),
  );
  for (const path of ["/memories", "/memories/search"]) {
    it(`POST ${path}`, async () => {
      await fc.assert(
        fc.asyncProperty(jsonBody, async (body) => {
          const res = await raw(path, typeof body === "string" ? body : JSON.stringify(body));
          await res.arrayBuffer();
          expect(res.status).toBeLessThan(500);
        }),
        { numRuns: 1000 },
      );
    });
  }
  it("GET routes with random ids and query strings", async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ minLength: 1 }), fc.string(), async (id, query) => {
        for (const path of [
          `/memories/${encodeURIComponent(id)}`,
          `/memories/${encodeURIComponent(id)}/proof`,
          `/memories?limit=${encodeURIComponent(query)}&cursor=${encodeURIComponent(id)}`,
          `/log/consistency?from=${encodeURIComponent(query)}&to=${encodeURIComponent(id)}`,
        ]) {
          const res = await fetch(`${t.url}${path}`, { headers: user.headers });
          await res.arrayBuffer();
          expect(res.status, path).toBeLessThan(500);
        }
      }),
      { numRuns: 1000 },
    );
  });
});
