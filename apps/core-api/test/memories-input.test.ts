import { fromHex, verifyConsistency } from "@verifiable-memory/merkle-log";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { codeToStatus, type ErrorCode } from "../src/errors.js";
import { callAt, newUser, startTestApp, type TestApp, type TestUser } from "./helpers.js";

let t: TestApp;
let user: TestUser;

beforeAll(async () => {
  t = await startTestApp();
  user = await newUser(t.app);
  await callAt(t.app, "/memories", { headers: user.headers, body: { content: "seed" } });
});
afterAll(async () => {
  await t.close();
});

/** POSTs `body` as is over real HTTP, where the body limits read the socket. */
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

/** True when `query` names at least one parameter (strict routes refuse unknown ones). */
function hasParameters(query: string): boolean {
  return [...new URLSearchParams(query).keys()].some((key) => key !== "");
}

describe("POST /memories rejects bad input with the error shape (docs/protocol.md §1)", () => {
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
    const before = await callAt<{ treeSize: number }>(t.app, "/log", { headers: user.headers });
    await raw("/memories", JSON.stringify({ content: "" }));
    await raw("/memories", JSON.stringify({ content: "x", metadata: [] }));
    const after = await callAt<{ treeSize: number }>(t.app, "/log", { headers: user.headers });
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
      const res = await t.app.request(`/memories?${query}`, { headers: user.headers });
      await expectError(res, 400, "invalid_request");
    }
  });

  it("needs 1 <= from <= to <= treeSize for consistency proofs", async () => {
    for (const query of ["from=0&to=1", "from=2&to=1", "from=1&to=999", "from=a&to=1", "to=1"]) {
      const res = await t.app.request(`/log/consistency?${query}`, { headers: user.headers });
      await expectError(res, 400, "invalid_request");
    }
  });
});

/**
 * A response that is never a 5xx, always carries x-request-id, and, when it is a 4xx, has the
 * docs/protocol.md §1 error shape: `{ error: { code, message, details? } }` with a code from the API's
 * closed set whose status is the one answered.
 */
async function expectSaneAnswer(res: Response, label: string): Promise<unknown> {
  const text = await res.text();
  expect(res.status, `${label} → ${res.status} ${text.slice(0, 200)}`).toBeLessThan(500);
  expect(res.headers.get("x-request-id"), label).toBeTruthy();
  if (res.status < 400) {
    return text ? (JSON.parse(text) as unknown) : null;
  }
  expect(res.headers.get("content-type"), label).toMatch(/^application\/json/);
  const body = JSON.parse(text) as { error?: { code?: unknown; message?: unknown } };
  expect(Object.keys(body), label).toEqual(["error"]);
  const error = body.error ?? {};
  expect(
    Object.keys(error).every((k) => ["code", "message", "details"].includes(k)),
    label,
  ).toBe(true);
  expect(error.code, label).toMatch(/^[a-z]+(_[a-z]+)*$/);
  expect(codeToStatus(error.code as ErrorCode), `${label}: ${String(error.code)}`).toBe(res.status);
  expect(typeof error.message, label).toBe("string");
  expect((error.message as string).length, label).toBeGreaterThan(0);
  return body;
}

/** Bytes as `%XX` escapes: arbitrary, often invalid, UTF-8 in a URL. */
const percentBytes = (bytes: Uint8Array) =>
  Array.from(bytes, (b) => `%${b.toString(16).padStart(2, "0").toUpperCase()}`).join("");

/** A path segment or query component, already encoded for a URL (sometimes malformed on purpose). */
const urlComponent = fc.oneof(
  fc.string().map(encodeURIComponent),
  fc.string({ unit: "binary", maxLength: 300 }).map(encodeURIComponent),
  fc.string({ unit: "grapheme", minLength: 100, maxLength: 400 }).map(encodeURIComponent),
  fc.uint8Array({ minLength: 1, maxLength: 64 }).map(percentBytes),
  fc.constantFrom(
    "%",
    "%2",
    "%zz",
    "%E2%82",
    "%ED%A0%80", // a lone surrogate, CESU-8 style: not UTF-8
    "%C0%AF", // an overlong "/"
    "%00",
    "a%00b",
    "%2F",
    "..%2F..%2Flog",
    "%F0%9F%92%A9",
    "x".repeat(129),
    "x".repeat(4000),
    "NaN",
    "-0",
    "1e309",
    "0x10",
    "9007199254740993",
    "%201",
  ),
);

/** A query string of random pairs, with the routes' own parameter names mixed in. */
const queryString = fc
  .array(
    fc.tuple(
      fc.oneof(fc.constantFrom("limit", "cursor", "from", "to", "id", "__proto__"), urlComponent),
      fc.oneof(
        fc.integer({ min: -3, max: 300 }).map(String),
        fc.double().map(String),
        urlComponent,
      ),
      fc.boolean(),
    ),
    { maxLength: 5 },
  )
  .map((pairs) => pairs.map(([k, v, bare]) => (bare ? k : `${k}=${v}`)).join("&"));

describe("fuzz: 1 000 random inputs per route never yield a 5xx, 4xx have the error shape", () => {
  let other: TestUser;
  let ownIds: string[];
  let otherIds: string[];
  const writeAs = async (who: TestUser, content: string) =>
    (await callAt<{ id: string }>(t.app, "/memories", { headers: who.headers, body: { content } }))
      .body.id;
  beforeAll(async () => {
    other = await newUser(t.app);
    ownIds = [await writeAs(user, "fuzz own 1"), await writeAs(user, "fuzz own 2")];
    otherIds = [await writeAs(other, "fuzz other 1"), await writeAs(other, "fuzz other 2")];
  });

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
          await expectSaneAnswer(res, `POST ${path} ${body.slice(0, 100)}`);
        }),
        { numRuns: 1000 },
      );
    });
  }

  it("an id holding U+0000 (%00) is a 4xx on every /memories/:id route, never a 500", async () => {
    // PostgreSQL text cannot hold U+0000: the id must be refused (400) or unknown (404) before
    // it reaches a query, like U+0000 in metadata (docs/protocol.md §1).
    for (const rawId of ["%00", "a%00b", `${ownIds[0]}%00`]) {
      for (const [method, suffix] of [
        ["GET", ""],
        ["DELETE", ""],
        ["GET", "/proof"],
        ["GET", "/verify"],
      ] as const) {
        const res = await t.app.request(`/memories/${rawId}${suffix}`, {
          method,
          headers: user.headers,
        });
        await expectSaneAnswer(res, `${method} /memories/${rawId}${suffix}`);
        expect([400, 404]).toContain(res.status);
      }
    }
  });

  it("every /memories/:id route (GET, DELETE, /proof, /verify) with random ids and queries", async () => {
    // Ids: random and malformed strings, well-formed unknown UUIDs, another user's real ids
    // (404, never 403, never deleted), and near misses of the caller's own ids.
    const id = fc.oneof(
      { weight: 6, arbitrary: urlComponent.filter((s) => s.length > 0) },
      { weight: 2, arbitrary: fc.uuid() },
      { weight: 2, arbitrary: fc.constantFrom(...otherIds) },
      {
        weight: 1,
        arbitrary: fc
          .tuple(fc.constantFrom(...ownIds), fc.constantFrom("x", "%20", "%00", "/", "UPPER"))
          .map(([own, suffix]) => (suffix === "UPPER" ? own.toUpperCase() : `${own}${suffix}`)),
      },
    );
    const counts = new Map<number, number>();
    await fc.assert(
      fc.asyncProperty(id, queryString, async (rawId, query) => {
        const q = query ? `?${query}` : "";
        const requests: [string, string][] = [
          ["GET", `/memories/${rawId}${q}`],
          ["DELETE", `/memories/${rawId}${q}`],
          ["GET", `/memories/${rawId}/proof${q}`],
          ["GET", `/memories/${rawId}/verify${q}`],
        ];
        await Promise.all(
          requests.map(async ([method, path]) => {
            const res = await t.app.request(`${path}`, { method, headers: user.headers });
            const label = `${method} ${path.slice(0, 200)}`;
            await expectSaneAnswer(res, label);
            if (hasParameters(query)) {
              // None of these routes takes a query parameter: refused, naming it (or no such
              // route at all for a path the id's characters broke up).
              expect([400, 404], label).toContain(res.status);
            } else {
              counts.set(res.status, (counts.get(res.status) ?? 0) + 1);
            }
            // No random id names one of the caller's memories; another user's is 404.
            expect(res.status, label).not.toBe(200);
            expect(res.status, label).not.toBe(204);
          }),
        );
      }),
      { numRuns: 1000 },
    );
    // The fuzz reached the handlers (404 from the id lookup), not only validation.
    expect(counts.get(404) ?? 0).toBeGreaterThan(200);
    // Nothing was deleted: the caller's and the other user's memories are all still there.
    for (const [who, ids] of [
      [user, ownIds],
      [other, otherIds],
    ] as const) {
      for (const memoryId of ids) {
        const res = await callAt(t.app, `/memories/${memoryId}`, { headers: who.headers });
        expect(res.status, memoryId).toBe(200);
      }
    }
  });

  it("GET /memories, /log and /log/consistency with random query strings", async () => {
    const log = await callAt<{ treeSize: number }>(t.app, "/log", { headers: user.headers });
    const size = log.body.treeSize;
    // from/to near the tree size, so valid proofs are served (and verified) as well as refusals.
    const bound = fc.oneof(fc.integer({ min: -1, max: size + 2 }).map(String), urlComponent);
    let proofsVerified = 0;
    await fc.assert(
      fc.asyncProperty(queryString, bound, bound, async (query, from, to) => {
        const q = query ? `?${query}` : "";
        const [list, logRes, consistency] = await Promise.all([
          t.app.request(`/memories${q}`, { headers: user.headers }),
          t.app.request(`/log${q}`, { headers: user.headers }),
          t.app.request(`/log/consistency?from=${from}&to=${to}`, {
            headers: user.headers,
          }),
        ]);
        await expectSaneAnswer(list, `GET /memories${q}`);
        const logBody = (await expectSaneAnswer(logRes, `GET /log${q}`)) as { treeSize: number };
        // GET /log takes no parameters: any parameter is refused, naming it.
        if (hasParameters(query)) {
          expect(logRes.status).toBe(400);
        } else {
          expect(logRes.status).toBe(200);
          expect(logBody.treeSize).toBe(size);
        }
        const proof = (await expectSaneAnswer(
          consistency,
          `GET /log/consistency?from=${from}&to=${to}`,
        )) as { from: number; to: number; fromRoot: string; toRoot: string; proof: string[] };
        if (consistency.status === 200) {
          expect(1 <= proof.from && proof.from <= proof.to && proof.to <= size).toBe(true);
          verifyConsistency(
            proof.from,
            proof.to,
            proof.proof.map(fromHex),
            fromHex(proof.fromRoot),
            fromHex(proof.toRoot),
          );
          proofsVerified += 1;
        }
      }),
      { numRuns: 1000 },
    );
    expect(proofsVerified).toBeGreaterThan(20);
  });
});
