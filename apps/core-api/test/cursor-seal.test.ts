/**
 * Sealed cursors (docs/protocol.md §1.6 "Content limits and pagination"), over real HTTP on real
 * PostgreSQL: every paginated operation of the OpenAPI document (a `cursor` query parameter or
 * body field) pages with the cursors it issues, and answers 400 `invalid_request` naming `cursor`
 * to a cursor forged the old way (base64url JSON), to the unsealed inner cursor of an issued one,
 * to an issued cursor with one byte changed, and to one sealed under another `JWT_SECRET`. The MCP
 * tools' cursors are the REST routes' own.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CURSOR_TAG_BYTES } from "@verifiable-memory/http-kit";
import { tool } from "@verifiable-memory/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  callAt,
  mintApiKey,
  newUser,
  recordCheckpoint,
  startTestApp,
  type TestApp,
  type TestUser,
} from "./helpers.js";

interface Operation {
  parameters?: { name: string; in: string }[];
  requestBody?: {
    content: { "application/json": { schema: { properties?: Record<string, unknown> } } };
  };
}
interface PageBody {
  items: unknown[];
  nextCursor: string | null;
}
interface ErrorBody {
  error: { code: string; details?: { path: string[] }[] };
}

/** One paginated operation, ready to call with a cursor. */
interface Paged {
  readonly label: string;
  page(cursor?: string): Promise<{ status: number; body: PageBody & ErrorBody }>;
}

let t: TestApp;
let user: TestUser;
let apiKey: string;
let paged: Paged[];
const clients: Client[] = [];

/** Old-style cursors (unsealed base64url JSON), as the attack run forged them. */
const FORGED = [
  ["memories", -1],
  ["memories", 999999999],
  ["search.v1", 0],
].map((value) => Buffer.from(JSON.stringify(value)).toString("base64url"));

beforeAll(async () => {
  t = await startTestApp();
  user = await newUser(t.app);
  for (const [index, namespace] of ["ns:a", "ns:b", "ns:c"].entries()) {
    const res = await callAt(t.app, "/memories", {
      headers: user.headers,
      body: { content: `note ${index}`, namespace },
    });
    expect(res.status).toBe(201);
  }
  for (let size = 1; size <= 3; size++) {
    await recordCheckpoint(t, user, size, size, `signature-${size}`);
  }
  apiKey = await mintApiKey(t.app, user.token);
  await mintApiKey(t.app, user.token, "second");
  let grantId = "";
  for (let n = 0; n < 2; n++) {
    const grant = await callAt<{ id: string; token: string }>(t.app, "/agent-cases", {
      headers: user.headers,
      body: { operation: { type: "search", query: "note" }, maxUses: 2 },
    });
    expect(grant.status).toBe(201);
    grantId = grant.body.id;
    if (n === 1) {
      for (let use = 0; use < 2; use++) {
        expect((await callAt(t.app, `/agent-cases/${grant.body.token}`)).status).toBe(200);
      }
    }
  }

  const doc = (await (await t.app.request("/openapi.json")).json()) as {
    paths: Record<string, Record<string, Operation>>;
  };
  paged = Object.entries(doc.paths).flatMap(([template, item]) =>
    Object.entries(item).flatMap(([method, operation]): Paged[] => {
      const path = template.replace(/\{[^}]+\}/g, grantId);
      const label = `${method.toUpperCase()} ${template}`;
      if ((operation.parameters ?? []).some((p) => p.in === "query" && p.name === "cursor")) {
        return [
          {
            label,
            page: (cursor) =>
              callAt(
                t.app,
                `${path}?limit=1${cursor === undefined ? "" : `&cursor=${encodeURIComponent(cursor)}`}`,
                { headers: user.headers },
              ),
          },
        ];
      }
      const body = operation.requestBody?.content["application/json"].schema.properties;
      if (method === "post" && body !== undefined && "cursor" in body) {
        return [
          {
            label,
            page: (cursor) =>
              callAt(t.app, `${path}`, {
                headers: user.headers,
                body: { query: "note", limit: 1, ...(cursor === undefined ? {} : { cursor }) },
              }),
          },
        ];
      }
      return [];
    }),
  );
});
afterAll(async () => {
  await Promise.all(clients.map((client) => client.close()));
  await t?.close();
});

function expectCursorRefused(
  answer: { status: number; body: ErrorBody },
  label: string,
  cursor: string,
): void {
  expect([label, cursor, answer.status, answer.body.error?.code]).toEqual([
    label,
    cursor,
    400,
    "invalid_request",
  ]);
  expect(answer.body.error.details?.[0]?.path, label).toEqual(["cursor"]);
}

/** The bytes of a sealed cursor without its tag: what an unsealed service would have answered. */
function innerOf(sealed: string): string {
  const bytes = Buffer.from(sealed, "base64url");
  return bytes.subarray(0, bytes.length - CURSOR_TAG_BYTES).toString("utf8");
}

/** `cursor` with its character at `index` replaced by another base64url character. */
function tamper(cursor: string, index: number): string {
  const swapped = cursor[index] === "A" ? "B" : "A";
  return `${cursor.slice(0, index)}${swapped}${cursor.slice(index + 1)}`;
}

describe("sealed cursors", () => {
  it("finds every paginated operation in the OpenAPI document", () => {
    expect(paged.map((p) => p.label).sort()).toEqual([
      "GET /agent-cases",
      "GET /agent-cases/{id}/audit",
      "GET /keys",
      "GET /log/checkpoints",
      "GET /memories",
      "GET /namespaces",
      "POST /memories/search",
    ]);
  });

  it("pages every list to its end with the cursors it issues", async () => {
    for (const { label, page } of paged) {
      const seen: string[] = [];
      let cursor: string | undefined;
      let pages = 0;
      do {
        const answer = await page(cursor);
        expect([label, answer.status]).toEqual([label, 200]);
        seen.push(...answer.body.items.map((item) => JSON.stringify(item)));
        cursor = answer.body.nextCursor ?? undefined;
        pages++;
      } while (cursor !== undefined && pages < 20);
      expect(pages, label).toBeGreaterThanOrEqual(2);
      expect(new Set(seen).size, label).toBe(seen.length);
    }
  });

  it("refuses forged, unsealed and tampered cursors with 400 on every paginated operation", async () => {
    for (const { label, page } of paged) {
      const issued = (await page()).body.nextCursor as string;
      expect(issued, label).toEqual(expect.any(String));
      const refused = [
        ...FORGED,
        innerOf(issued),
        tamper(issued, 0),
        tamper(issued, Math.floor(issued.length / 2)),
        tamper(issued, issued.length - 2),
        issued.slice(0, -4),
        `${issued}AAAA`,
        "x".repeat(513),
        "",
        "a+b/c=",
      ];
      for (const cursor of refused) {
        expectCursorRefused(await page(cursor), label, cursor);
      }
    }
  });

  it("refuses a cursor from another list", async () => {
    const [memories, keys] = ["GET /memories", "GET /keys"].map(
      (label) => paged.find((p) => p.label === label) as Paged,
    ) as [Paged, Paged];
    const fromKeys = (await keys.page()).body.nextCursor as string;
    expectCursorRefused(await memories.page(fromKeys), "GET /memories", fromKeys);
  });

  it("refuses a cursor sealed under another JWT_SECRET, which the issuing secret accepts", async () => {
    const other = await startTestApp({
      shareDatabaseOf: t,
      env: { JWT_SECRET: "another-secret-that-is-long-enough-98765" },
    });
    try {
      const headers = { authorization: `Bearer ${apiKey}` };
      const first = await callAt<PageBody>(t.app, "/memories?limit=1", { headers });
      const cursor = first.body.nextCursor as string;
      const there = await callAt<ErrorBody>(
        other.app,
        `/memories?limit=1&cursor=${encodeURIComponent(cursor)}`,
        { headers },
      );
      expectCursorRefused(there, "GET /memories (other secret)", cursor);
      const mine = await callAt<PageBody>(
        other.app,
        `/memories?limit=1&cursor=${encodeURIComponent(
          (await callAt<PageBody>(other.app, "/memories?limit=1", { headers })).body
            .nextCursor as string,
        )}`,
        { headers },
      );
      expect(mine.status).toBe(200);
      const here = await callAt<PageBody>(
        t.app,
        `/memories?limit=1&cursor=${encodeURIComponent(cursor)}`,
        { headers },
      );
      expect(here.status).toBe(200);
      expect(here.body.items).toEqual(mine.body.items);
    } finally {
      await other.close();
    }
  });

  it("MCP list and recall page with sealed cursors, shared with POST /memories/search", async () => {
    const client = new Client({ name: "cursor-seal", version: "1.0.0" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${t.url}/mcp`), {
        requestInit: { headers: user.headers },
      }),
    );
    clients.push(client);
    const ids = async (args: Record<string, unknown>) =>
      tool<{ items: { id: string }[]; nextCursor: string | null }>(client, "list", args);
    const all = await ids({});
    expect(all.body.items).toHaveLength(3);
    const first = await ids({ limit: 2 });
    const cursor = first.body.nextCursor as string;
    expect(cursor).toEqual(expect.any(String));
    const rest = await ids({ limit: 2, cursor });
    expect([...first.body.items, ...rest.body.items]).toEqual(all.body.items);
    expect(rest.body.nextCursor).toBeNull();
    const viaRest = await callAt<PageBody>(t.app, "/memories/search", {
      headers: user.headers,
      body: { limit: 2, cursor, namespacePrefix: "ns:" },
    });
    expect(viaRest.status).toBe(200);
    expect(viaRest.body.items.map((item) => (item as { id: string }).id)).toEqual(
      rest.body.items.map((item) => item.id),
    );
    const recalled = await tool<{ nextCursor: string | null }>(client, "recall", {
      query: "note",
      limit: 1,
    });
    const next = await tool<{ items: unknown[] }>(client, "recall", {
      query: "note",
      limit: 1,
      cursor: recalled.body.nextCursor,
    });
    expect(next.body.items).toHaveLength(1);
    for (const forged of [...FORGED, innerOf(cursor), tamper(cursor, 3)]) {
      for (const name of ["list", "recall"]) {
        const refused = await tool<ErrorBody>(client, name, {
          ...(name === "recall" ? { query: "note" } : {}),
          cursor: forged,
        });
        expect([name, forged, refused.body.error?.code]).toEqual([name, forged, "invalid_request"]);
      }
    }
  });
});
