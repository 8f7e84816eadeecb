/**
 * Strict input: a request is refused (400 `invalid_request` naming the field) rather than partly
 * ignored — unknown body fields, unknown query parameters, metadata filter values that look like
 * query operators, and JSON bodies that are not valid UTF-8 (never stored as U+FFFD substitutes).
 * An empty `publicKey` is `invalid_public_key`. The OpenAPI document says so
 * (`additionalProperties: false`).
 */
import { request } from "node:http";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callAt, newUser, startTestApp, type TestApp, type TestUser } from "./helpers.js";

let t: TestApp;
let user: TestUser;

beforeAll(async () => {
  t = await startTestApp();
  user = await newUser(t.app);
});
afterAll(async () => {
  await t.close();
});

type ErrorAnswer = { error: { code: string; message: string; details?: unknown } };

describe("unknown fields and parameters", () => {
  it("refuses unknown body fields, naming them", async () => {
    const res = await callAt<ErrorAnswer>(t.app, "/keys", {
      headers: user.headers,
      body: { label: "x", scopes: ["read"], expiresInSeconds: 60 },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe("invalid_request");
    expect(JSON.stringify(res.body.error.details)).toContain("scopes");
    expect(JSON.stringify(res.body.error.details)).toContain("expiresInSeconds");
    const memory = await callAt<ErrorAnswer>(t.app, "/memories", {
      headers: user.headers,
      body: { content: "x", tags: ["a"] },
    });
    expect(memory.status).toBe(400);
    expect(JSON.stringify(memory.body.error.details)).toContain("tags");
  });

  it.each([
    "/memories?metadata.topic=x",
    "/memories?limit=5&sort=oldest",
    "/log?verbose=1",
    "/keys?includeRevoked=false",
    "/memories/00000000-0000-0000-0000-000000000000?fields=content",
  ])("refuses unknown query parameters: GET %s", async (path) => {
    const res = await callAt<ErrorAnswer>(t.app, `${path}`, { headers: user.headers });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe("invalid_request");
    const name = [...new URL(path, "http://x").searchParams.keys()].at(-1) as string;
    expect(JSON.stringify(res.body.error.details)).toContain(name);
  });

  it("refuses unknown query parameters on POST routes too", async () => {
    const res = await callAt<ErrorAnswer>(t.app, "/memories?dryRun=true", {
      headers: user.headers,
      body: { content: "x" },
    });
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.body.error.details)).toContain("dryRun");
  });

  it("refuses an unknown metadata filter operator, naming it", async () => {
    const res = await callAt<ErrorAnswer>(t.app, "/memories/search", {
      headers: user.headers,
      body: { query: "x", metadata: { importance: { $regex: "^a" } } },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe("invalid_request");
    expect(JSON.stringify(res.body.error.details)).toContain("importance");
    expect(JSON.stringify(res.body.error.details)).toContain("$regex");
    const plain = await callAt(t.app, "/memories/search", {
      headers: user.headers,
      body: { query: "x", metadata: { importance: { level: 1 } } },
    });
    expect(plain.status).toBe(200);
  });

  it("publishes additionalProperties: false for request bodies", async () => {
    const doc = (await (await t.app.request("/openapi.json")).json()) as {
      paths: Record<
        string,
        Record<string, { requestBody?: { content: Record<string, { schema: unknown }> } }>
      >;
      components: { schemas: Record<string, unknown> };
    };
    const body = doc.paths["/memories"]?.post?.requestBody?.content["application/json"]?.schema;
    expect(JSON.stringify(body)).toContain('"additionalProperties":false');
  });
});

describe("sign-in input", () => {
  it("answers a 65-character or 33-byte publicKey with invalid_public_key", async () => {
    for (const publicKey of ["1".repeat(65), "z".repeat(45)]) {
      const res = await callAt<ErrorAnswer>(t.app, "/auth/challenge", { body: { publicKey } });
      expect(res.status, publicKey).toBe(400);
      expect(res.body.error.code, publicKey).toBe("invalid_public_key");
    }
  });

  it("answers an empty publicKey with invalid_public_key", async () => {
    const res = await callAt<ErrorAnswer>(t.app, "/auth/challenge", { body: { publicKey: "" } });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe("invalid_public_key");
  });
});

/** POSTs raw bytes as a JSON body and returns the status and the parsed answer. */
function postBytes(path: string, bytes: Buffer, headers: Record<string, string>) {
  return new Promise<{ status: number; body: ErrorAnswer }>((resolve, reject) => {
    const req = request(
      `${t.url}${path}`,
      {
        method: "POST",
        headers: { ...headers, "content-type": "application/json", "content-length": bytes.length },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () =>
          resolve({
            status: res.statusCode ?? 0,
            body: JSON.parse(Buffer.concat(chunks).toString("utf8")) as ErrorAnswer,
          }),
        );
      },
    );
    req.on("error", reject);
    req.end(bytes);
  });
}

/** Byte sequences that are not UTF-8 (RFC 3629): stray continuation, overlong, surrogate, > U+10FFFF, truncated. */
const invalidUtf8 = fc.oneof(
  fc.integer({ min: 0x80, max: 0xbf }).map((b) => [b]),
  fc.constantFrom([0xc0, 0x80], [0xc1, 0xbf], [0xe0, 0x80, 0x80], [0xf0, 0x80, 0x80, 0x80]),
  fc.integer({ min: 0xa0, max: 0xbf }).map((b) => [0xed, b, 0x80]),
  fc.integer({ min: 0xf5, max: 0xff }).map((b) => [b, 0x80, 0x80, 0x80]),
  fc.constantFrom([0xe2, 0x82], [0xf0, 0x9f, 0x98], [0xc3]),
);

/** Text that needs no escaping inside a JSON string. */
const plainText = fc.stringMatching(/^[A-Za-z0-9 .,:-]{0,20}$/);

describe("bodies that are not UTF-8", () => {
  it("are refused with 400, never stored (fuzz)", async () => {
    await fc.assert(
      fc.asyncProperty(plainText, invalidUtf8, plainText, async (before, bad, after) => {
        const bytes = Buffer.concat([
          Buffer.from(`{"content":"${before}`, "utf8"),
          Buffer.from(bad),
          Buffer.from(`${after}"}`, "utf8"),
        ]);
        const res = await postBytes("/memories", bytes, user.headers);
        expect(res.status).toBe(400);
        expect(res.body.error.code).toBe("invalid_request");
      }),
      { numRuns: 200 },
    );
    const list = await callAt<{ items: unknown[] }>(t.app, "/memories", { headers: user.headers });
    expect(list.body.items).toEqual([]);
  });

  it("accepts valid UTF-8, with or without a byte order mark", async () => {
    const text = "naïve café — 記憶 🧠";
    for (const prefix of [Buffer.alloc(0), Buffer.from([0xef, 0xbb, 0xbf])]) {
      const res = await postBytes(
        "/memories",
        Buffer.concat([prefix, Buffer.from(JSON.stringify({ content: text }), "utf8")]),
        user.headers,
      );
      expect(res.status).toBe(201);
    }
    const list = await callAt<{ items: { content: string }[] }>(t.app, "/memories", {
      headers: user.headers,
    });
    expect(list.body.items.map((m) => m.content)).toEqual([text, text]);
  });
});

describe("__proto__ metadata keys", () => {
  it("are refused with 400 at any depth, on write and in filters, and nothing is stored", async () => {
    const writer = await newUser(t.app);
    const bodies: [string, string][] = [
      ["/memories", '{"content":"p","metadata":{"__proto__":{"admin":true}}}'],
      ["/memories", '{"content":"p","metadata":{"__proto__":1}}'],
      ["/memories", '{"content":"p","metadata":{"a":{"b":[{"__proto__":1}]}}}'],
      ["/memories/search", '{"query":"p","metadata":{"__proto__":1}}'],
    ];
    for (const [path, text] of bodies) {
      const res = await postBytes(path, Buffer.from(text, "utf8"), writer.headers);
      expect(res.status, text).toBe(400);
      expect(res.body.error.code, text).toBe("invalid_request");
      expect(JSON.stringify(res.body.error.details), text).toContain("__proto__");
    }
    const list = await callAt<{ items: unknown[] }>(t.app, "/memories", {
      headers: writer.headers,
    });
    expect(list.body.items).toEqual([]);
  });

  it("leave other prototype-looking keys stored exactly as sent", async () => {
    const writer = await newUser(t.app);
    const metadata = { constructor: "c", prototype: { toString: 1 } };
    const created = await callAt<{ id: string; metadata: unknown }>(t.app, "/memories", {
      headers: writer.headers,
      body: { content: "kept", metadata },
    });
    expect(created.status).toBe(201);
    expect(created.body.metadata).toEqual(metadata);
  });
});
