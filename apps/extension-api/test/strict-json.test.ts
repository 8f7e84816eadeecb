/**
 * Strict JSON bodies (docs/protocol.md §1.2 "Requests") on the extension API's ingest, over real
 * HTTP on real PostgreSQL: duplicate keys and inexact metadata numbers are 400 naming the path;
 * `1.0`, `1e2` and `0.50` are stored as 1, 100 and 0.5.
 * @module
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bearer, connect, newWallet, startExtensionApp, type TestExtensionApp } from "./helpers.js";

let ext: TestExtensionApp;
let token: string;

beforeAll(async () => {
  ext = await startExtensionApp();
  ({ token } = await connect(ext.url, newWallet()));
});
afterAll(async () => {
  await ext.close();
});

/** POSTs the JSON text `body` as written to `path`. */
async function send(path: string, body: string) {
  const res = await fetch(`${ext.url}${path}`, {
    method: "POST",
    headers: { ...bearer(token), "content-type": "application/json" },
    body,
  });
  return {
    status: res.status,
    body: (await res.json()) as {
      metadata?: unknown;
      error?: { code: string; message: string; details?: { path: unknown[] }[] };
    },
  };
}

describe("ingest takes strict JSON", () => {
  it("400 for duplicate keys, top level and nested, naming the path", async () => {
    for (const [text, path, shown] of [
      ['{"content":"a","content":"b"}', ["content"], "content"],
      ['{"content":"a","metadata":{"t":{"k":1,"k":2}}}', ["metadata", "t", "k"], "metadata.t.k"],
    ] as const) {
      const res = await send("/memories", text);
      expect([res.status, res.body.error?.code]).toEqual([400, "invalid_request"]);
      expect(res.body.error?.details?.[0]?.path).toEqual(path);
      expect(res.body.error?.message.startsWith(`${shown}: `)).toBe(true);
    }
  });

  it("400 for 123456789012345678901234567890 in metadata, naming the path", async () => {
    const res = await send(
      "/memories",
      '{"content":"a","metadata":{"big":[123456789012345678901234567890]}}',
    );
    expect([res.status, res.body.error?.code]).toEqual([400, "invalid_request"]);
    expect(res.body.error?.details?.[0]?.path).toEqual(["metadata", "big", 0]);
  });

  it("stores 1.0, 1e2 and 0.50 as 1, 100 and 0.5", async () => {
    const res = await send("/memories", '{"content":"n","metadata":{"a":1.0,"b":1e2,"c":0.50}}');
    expect([res.status, res.body.metadata]).toEqual([201, { a: 1, b: 100, c: 0.5 }]);
  });
});
