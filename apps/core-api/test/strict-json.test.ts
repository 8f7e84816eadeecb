/**
 * Strict JSON bodies (docs/protocol.md §1.2 "Requests") over real HTTP on real PostgreSQL: a
 * duplicate key (top level or nested) is 400 naming its path, a metadata number a double does not
 * hold exactly is 400 naming its path, and `1.0`, `1e2`, `0.50` are stored as 1, 100, 0.5: on
 * `POST /memories`, `POST /memories/batch`, `PUT /memories/{id}` and the MCP tool `remember`.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, newUser, startTestApp, type TestApp, type TestUser } from "./helpers.js";

let t: TestApp;
let user: TestUser;

beforeAll(async () => {
  t = await startTestApp();
  user = await newUser(t.url);
});
afterAll(async () => {
  await t.close();
});

interface Refusal {
  error: { code: string; message: string; details?: { path: (string | number)[] }[] };
}

/** POSTs (or `method`s) the JSON text `body` as written, with the user's bearer. */
async function send(
  path: string,
  body: string,
  method = "POST",
  headers: Record<string, string> = {},
): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${t.url}${path}`, {
    method,
    headers: { ...user.headers, "content-type": "application/json", ...headers },
    body,
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

/** Expects 400 invalid_request whose details name `path` and whose message shows it. */
function expectRefusal(
  res: { status: number; body: Record<string, unknown> },
  path: (string | number)[],
  shown: string,
): void {
  const { error } = res.body as unknown as Refusal;
  expect([res.status, error.code]).toEqual([400, "invalid_request"]);
  expect(error.details?.[0]?.path).toEqual(path);
  expect(error.message.startsWith(`${shown}: `)).toBe(true);
}

const BIG = "123456789012345678901234567890";

describe("duplicate keys", () => {
  it("400 at the top level and nested, naming the path", async () => {
    expectRefusal(await send("/memories", '{"content":"a","content":"b"}'), ["content"], "content");
    expectRefusal(
      await send("/memories", '{"content":"a","metadata":{"k":1,"k":1}}'),
      ["metadata", "k"],
      "metadata.k",
    );
    expectRefusal(
      await send("/memories/batch", '{"items":[{"content":"a"},{"content":"b","content":"c"}]}'),
      ["items", 1, "content"],
      "items[1].content",
    );
    // The same key written with an escape is the same key.
    expectRefusal(
      await send("/memories", '{"content":"a","metadata":{"t":{"x":1,"\\u0078":2}}}'),
      ["metadata", "t", "x"],
      "metadata.t.x",
    );
    const listed = await call<{ items: unknown[] }>(`${t.url}/memories`, {
      headers: user.headers,
    });
    expect(listed.body.items).toEqual([]);
  });
});

describe("exact metadata numbers", () => {
  it(`400 for ${BIG} and other numbers a double changes, naming the path`, async () => {
    expectRefusal(
      await send("/memories", `{"content":"a","metadata":{"n":${BIG}}}`),
      ["metadata", "n"],
      "metadata.n",
    );
    expectRefusal(
      await send(
        "/memories/batch",
        `{"items":[{"content":"a"},{"content":"b","metadata":{"l":[1,9007199254740992]}}]}`,
      ),
      ["items", 1, "metadata", "l", 1],
      "items[1].metadata.l[1]",
    );
    for (const literal of ["0.10000000000000000001", "-9007199254740993", "1e400"]) {
      expectRefusal(
        await send("/memories", `{"content":"a","metadata":{"x":${literal}}}`),
        ["metadata", "x"],
        "metadata.x",
      );
    }
  });

  it("stores 1.0, 1e2 and 0.50 as 1, 100 and 0.5 (and ±(2^53 − 1) as sent)", async () => {
    const text =
      '{"content":"numbers","metadata":{"a":1.0,"b":1e2,"c":0.50,"d":9007199254740991,"e":-9007199254740991,"f":0.1}}';
    const expected = { a: 1, b: 100, c: 0.5, d: 9007199254740991, e: -9007199254740991, f: 0.1 };
    const created = await send("/memories", text);
    expect(created.status).toBe(201);
    expect(created.body.metadata).toEqual(expected);
    const read = await call<{ metadata: unknown }>(`${t.url}/memories/${created.body.id}`, {
      headers: user.headers,
    });
    expect(read.body.metadata).toEqual(expected);
    const updated = await send(`/memories/${created.body.id}`, text, "PUT");
    expect([updated.status, updated.body.metadata]).toEqual([201, expected]);
    const batch = await send("/memories/batch", `{"items":[${text}]}`);
    expect(batch.status).toBe(201);
    expect((batch.body.items as { metadata: unknown }[])[0]?.metadata).toEqual(expected);
  });

  it("leaves numbers outside metadata to their schemas", async () => {
    const res = await send("/memories/search", `{"query":"x","limit":${BIG}}`);
    const { error } = res.body as unknown as Refusal;
    expect([res.status, error.code]).toEqual([400, "invalid_request"]);
    expect(error.details?.[0]?.path).toEqual(["limit"]);
  });
});

describe("MCP remember (POST /mcp)", () => {
  const mcpHeaders = { accept: "application/json, text/event-stream" };
  /** A JSON-RPC tools/call of remember whose arguments are the JSON text `args`. */
  const remember = (args: string) =>
    `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"remember","arguments":${args}}}`;

  it("refuses duplicate keys and inexact metadata numbers with 400 naming the path", async () => {
    expectRefusal(
      await send("/mcp", remember('{"content":"a","content":"b"}'), "POST", mcpHeaders),
      ["params", "arguments", "content"],
      "params.arguments.content",
    );
    expectRefusal(
      await send("/mcp", remember(`{"content":"a","metadata":{"n":${BIG}}}`), "POST", mcpHeaders),
      ["params", "arguments", "metadata", "n"],
      "params.arguments.metadata.n",
    );
  });

  it("stores 1.0, 1e2 and 0.50 as 1, 100 and 0.5", async () => {
    const res = await send(
      "/mcp",
      remember('{"content":"mcp numbers","metadata":{"a":1.0,"b":1e2,"c":0.50}}'),
      "POST",
      mcpHeaders,
    );
    expect(res.status).toBe(200);
    const result = res.body.result as { isError?: boolean; content: { text: string }[] };
    expect(result.isError ?? false).toBe(false);
    const stored = JSON.parse(result.content[0]?.text ?? "{}") as { id: string };
    const read = await call<{ metadata: unknown }>(`${t.url}/memories/${stored.id}`, {
      headers: user.headers,
    });
    expect(read.body.metadata).toEqual({ a: 1, b: 100, c: 0.5 });
  });
});
