/**
 * Ingest and recall through the extension API (docs/protocol.md §9.4 "Routes with the token"):
 * ingest answers like core's `POST /memories`, validates like it, and search takes the narrower
 * body. That both APIs append to one log is e2e/extension-api/one-domain.test.ts.
 * @module
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  bearer,
  callAt,
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
    const { token } = await connect(ext.app, newWallet());
    const res = await callAt<Created>(ext.app, "/memories", {
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
    const found = await callAt<{ items: { id: string; content: string }[]; scanned: number }>(
      ext.app,
      "/memories/search",
      { headers: bearer(token), body: { query: "merkle" } },
    );
    expect(found.status).toBe(200);
    expect(found.body.items.map((m) => m.id)).toEqual([res.body.id]);
    expect(found.body.items[0]?.content).toBe("The selected paragraph about Merkle trees");
    expect(found.body.scanned).toBe(1);
  });

  it("validates ingest like core", async () => {
    const { token } = await connect(ext.app, newWallet());
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
      const res = await callAt<{ error: { code: string } }>(ext.app, "/memories", {
        headers: bearer(token),
        body,
      });
      expect([res.status, res.body.error.code]).toEqual([status, code]);
    }
    const text = await ext.app.request("/memories", {
      method: "POST",
      headers: { ...bearer(token), "content-type": "text/plain" },
      body: "hello",
    });
    expect(text.status).toBe(415);
    const broken = await ext.app.request("/memories", {
      method: "POST",
      headers: { ...bearer(token), "content-type": "application/json" },
      body: '{"content": "x"',
    });
    expect(broken.status).toBe(400);
    const none = await callAt(ext.app, "/memories", { body: { content: "x" } });
    expect(none.status).toBe(401);
    const list = await callAt<{ items: unknown[] }>(ext.app, "/memories/search", {
      headers: bearer(token),
      body: { query: "x" },
    });
    expect(list.body.items).toEqual([]);
  });

  it("takes the narrower bodies of docs/protocol.md §9.4: no namespace, rank, time filter or cursor", async () => {
    const { token } = await connect(ext.app, newWallet());
    type Refusal = { error: { code: string; details: { path: string[] }[] } };
    const written = await callAt<Refusal>(ext.app, "/memories", {
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
      const res = await callAt<Refusal>(ext.app, "/memories/search", {
        headers: bearer(token),
        body: { query: "x", ...field },
      });
      expect([res.status, res.body.error.code], JSON.stringify(field)).toEqual([
        400,
        "invalid_request",
      ]);
    }
    const noQuery = await callAt<Refusal>(ext.app, "/memories/search", {
      headers: bearer(token),
      body: { limit: 5 },
    });
    expect(noQuery.status).toBe(400);
    expect(noQuery.body.error.details[0]?.path).toEqual(["query"]);
    await callAt(ext.app, "/memories", {
      headers: bearer(token),
      body: { content: "tagged", metadata: { tag: "t" } },
    });
    const filtered = await callAt<Record<string, unknown>>(ext.app, "/memories/search", {
      headers: bearer(token),
      body: { metadata: { tag: "t" }, limit: 1 },
    });
    expect(filtered.status).toBe(200);
    expect(Object.keys(filtered.body).sort()).toEqual(["items", "scanned"]);
    expect(filtered.body.items).toHaveLength(1);
  });
});
