/**
 * Ingest and recall through the extension API (docs/protocol.md §9.4 "Routes with the token"):
 * ingest answers like core's `POST /memories`, validates like it, and search takes the narrower
 * body. That both APIs append to one log is e2e/extension-api/one-domain.test.ts.
 * @module
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  bearer,
  call,
  connect,
  newWallet,
  startExtensionApp,
  type TestExtensionApp,
} from "./helpers.js";

let ext: TestExtensionApp;

beforeAll(async () => {
  ext = await startExtensionApp();
});
afterAll(async () => {
  await ext.close();
});

interface Created {
  id: string;
  leafIndex: number;
  leafHash: string;
  metadata: Record<string, unknown>;
  createdAt: string;
  anchored: boolean;
}

describe("ingest and recall", () => {
  it("ingests like core: 201 with the leaf, then found by search", async () => {
    const { token } = await connect(ext.url, newWallet());
    const res = await call<Created>(`${ext.url}/memories`, {
      headers: bearer(token),
      body: {
        content: "The selected paragraph about Merkle trees",
        metadata: { url: "https://example.com/a", title: "A page" },
      },
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.any(String),
      leafIndex: 0,
      leafHash: expect.stringMatching(/^[0-9a-f]{64}$/),
      metadata: { url: "https://example.com/a", title: "A page" },
      namespace: null,
      writtenBy: { kind: "session" },
      supersedes: null,
      supersededBy: null,
      createdAt: ext.clock.now().toISOString(),
      anchored: false,
    });
    const found = await call<{ items: { id: string; content: string }[]; scanned: number }>(
      `${ext.url}/memories/search`,
      { headers: bearer(token), body: { query: "merkle" } },
    );
    expect(found.status).toBe(200);
    expect(found.body.items.map((m) => m.id)).toEqual([res.body.id]);
    expect(found.body.items[0]?.content).toBe("The selected paragraph about Merkle trees");
    expect(found.body.scanned).toBe(1);
  });

  it("validates ingest like core", async () => {
    const { token } = await connect(ext.url, newWallet());
    const cases: [unknown, number, string][] = [
      [{}, 400, "invalid_request"],
      [{ content: "" }, 400, "invalid_request"],
      [{ content: "x".repeat(32_769) }, 400, "invalid_request"],
      [{ content: "\ud800" }, 400, "invalid_request"],
      [{ content: "x", metadata: [] }, 400, "invalid_request"],
      [{ content: "x", metadata: { "": 1 } }, 400, "invalid_request"],
      [{ content: "x", metadata: { k: "a\u0000b" } }, 400, "invalid_request"],
      [{ content: "x", metadata: { k: "y".repeat(5000) } }, 400, "invalid_request"],
      [{ content: "x".repeat(300 * 1024) }, 413, "payload_too_large"],
    ];
    for (const [body, status, code] of cases) {
      const res = await call<{ error: { code: string } }>(`${ext.url}/memories`, {
        headers: bearer(token),
        body,
      });
      expect([res.status, res.body.error.code]).toEqual([status, code]);
    }
    const text = await fetch(`${ext.url}/memories`, {
      method: "POST",
      headers: { ...bearer(token), "content-type": "text/plain" },
      body: "hello",
    });
    expect(text.status).toBe(415);
    const broken = await fetch(`${ext.url}/memories`, {
      method: "POST",
      headers: { ...bearer(token), "content-type": "application/json" },
      body: '{"content": "x"',
    });
    expect(broken.status).toBe(400);
    const none = await call(`${ext.url}/memories`, { body: { content: "x" } });
    expect(none.status).toBe(401);
    const list = await call<{ items: unknown[] }>(`${ext.url}/memories/search`, {
      headers: bearer(token),
      body: { query: "x" },
    });
    expect(list.body.items).toEqual([]);
  });

  it("takes the narrower bodies of docs/protocol.md §9.4: no namespace, rank, time filter or cursor", async () => {
    const { token } = await connect(ext.url, newWallet());
    type Refusal = { error: { code: string; details: { path: string[] }[] } };
    const written = await call<Refusal>(`${ext.url}/memories`, {
      headers: bearer(token),
      body: { content: "x", namespace: "agent:a" },
    });
    expect([written.status, written.body.error.code]).toEqual([400, "invalid_request"]);
    for (const field of [
      { namespace: "agent:a" },
      { namespacePrefix: "agent:" },
      { rank: "relevance" },
      { cursor: "abc" },
      { createdAfter: "2026-01-01T00:00:00Z" },
      { includeSuperseded: true },
    ]) {
      const res = await call<Refusal>(`${ext.url}/memories/search`, {
        headers: bearer(token),
        body: { query: "x", ...field },
      });
      expect([res.status, res.body.error.code], JSON.stringify(field)).toEqual([
        400,
        "invalid_request",
      ]);
    }
    const noQuery = await call<Refusal>(`${ext.url}/memories/search`, {
      headers: bearer(token),
      body: { limit: 5 },
    });
    expect(noQuery.status).toBe(400);
    expect(noQuery.body.error.details[0]?.path).toEqual(["query"]);
    await call(`${ext.url}/memories`, {
      headers: bearer(token),
      body: { content: "tagged", metadata: { tag: "t" } },
    });
    const filtered = await call<Record<string, unknown>>(`${ext.url}/memories/search`, {
      headers: bearer(token),
      body: { metadata: { tag: "t" }, limit: 1 },
    });
    expect(filtered.status).toBe(200);
    expect(Object.keys(filtered.body).sort()).toEqual(["items", "scanned"]);
    expect(filtered.body.items).toHaveLength(1);
  });
});
