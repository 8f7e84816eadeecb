/**
 * `POST /mcp`'s tools for the whole memory model (docs/protocol.md §4.9 "MCP"), with the MCP SDK's
 * own client over Streamable HTTP against the real app on real PostgreSQL: `get`, `update` (a new
 * version, the old one kept), `history` and `list` (search without a query, newest first, with
 * namespace and metadata filters), and argument validation by the REST routes' own schemas: every
 * refused argument set answers the same `invalid_request` details as the route's 400.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { tool } from "@verifiable-memory/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callAt, newUser, startTestApp, type TestApp, type TestUser } from "./helpers.js";

let t: TestApp;
const open: Client[] = [];

beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await Promise.all(open.map((client) => client.close()));
  await t?.close();
});

/** An MCP client connected to `/mcp` as `user`. */
async function connect(user: TestUser): Promise<Client> {
  const client = new Client({ name: "core-api-mcp-tools", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${t.url}/mcp`), {
      requestInit: { headers: user.headers },
    }),
  );
  open.push(client);
  return client;
}

interface Item {
  id: string;
  content: string;
  namespace: string | null;
  metadata: Record<string, unknown>;
  supersedes: string | null;
  supersededBy: string | null;
}
interface Page {
  count: number;
  nextCursor: string | null;
  items: Item[];
}
interface ToolError {
  error: { code: string; message: string; details?: unknown };
}

describe("MCP tools get, update, history, list", () => {
  it("updates a memory as a new version, keeps the old one in history, and gets both", async () => {
    const user = await newUser(t.app);
    const client = await connect(user);
    const first = await tool<Item>(client, "remember", {
      content: "The user lives in Lyon.",
      metadata: { topic: "home" },
    });
    expect(first.isError).toBe(false);
    const second = await tool<Item>(client, "update", {
      id: first.body.id,
      content: "The user lives in Grenoble.",
      metadata: { topic: "home" },
    });
    expect(second.isError).toBe(false);
    expect(second.body.supersedes).toBe(first.body.id);

    const got = await tool<Item>(client, "get", { id: first.body.id });
    expect(got.body).toMatchObject({
      content: "The user lives in Lyon.",
      supersededBy: second.body.id,
    });
    const history = await tool<Page>(client, "history", { id: second.body.id });
    expect(history.body.items.map((item) => [item.id, item.content])).toEqual([
      [first.body.id, "The user lives in Lyon."],
      [second.body.id, "The user lives in Grenoble."],
    ]);
    // Recall sees the current version only; the old one is superseded, not lost.
    const found = await tool<Page>(client, "recall", { query: "lives in" });
    expect(found.body.items.map((item) => item.id)).toEqual([second.body.id]);
    const again = await tool<ToolError>(client, "update", {
      id: first.body.id,
      content: "The user lives in Paris.",
    });
    expect(again.isError).toBe(true);
    expect(again.body.error.code).toBe("conflict");
    const unknown = await tool<ToolError>(client, "get", { id: "no-such-memory" });
    expect(unknown.body.error.code).toBe("not_found");
  });

  it("lists newest first without a query, filtered by namespace and metadata, page by page", async () => {
    const user = await newUser(t.app);
    const client = await connect(user);
    const ids: string[] = [];
    for (const [index, namespace] of ["agent:a", "agent:b", "agent:a", "agent:a"].entries()) {
      const stored = await tool<Item>(client, "remember", {
        content: `note ${index}`,
        namespace,
        metadata: { n: index },
      });
      ids.push(stored.body.id);
    }
    const all = await tool<Page>(client, "list", {});
    expect(all.body.items.map((item) => item.id)).toEqual([...ids].reverse());
    const inA = await tool<Page>(client, "list", { namespace: "agent:a", limit: 2 });
    expect(inA.body.items.map((item) => item.id)).toEqual([ids[3], ids[2]]);
    expect(inA.body.nextCursor).toEqual(expect.any(String));
    const rest = await tool<Page>(client, "list", {
      namespace: "agent:a",
      limit: 2,
      cursor: inA.body.nextCursor,
    });
    expect(rest.body.items.map((item) => item.id)).toEqual([ids[0]]);
    expect(rest.body.nextCursor).toBeNull();
    const byMeta = await tool<Page>(client, "list", { metadata: { n: { $gte: 2 } } });
    expect(byMeta.body.items.map((item) => item.id)).toEqual([ids[3], ids[2]]);
    const withQuery = await tool<ToolError>(client, "list", { query: "note" });
    expect(withQuery.body.error.code).toBe("invalid_request");
  });
});

/** The route's 400 details and the tool's refusal details for the same arguments. */
async function bothRefusals(
  client: Client,
  user: TestUser,
  name: string,
  args: Record<string, unknown>,
  route: { method: string; path: string; body: unknown },
) {
  const rest = await callAt<ToolError>(t.app, `${route.path}`, {
    method: route.method,
    headers: user.headers,
    body: route.body,
  });
  const mcp = await tool<ToolError>(client, name, args);
  // The route's body also carries its request id; the rest must be identical.
  const { code, message, details } = rest.body.error;
  return { rest, mcp, expected: { error: { code, message, details } } };
}

describe("MCP argument validation is the REST routes'", () => {
  it("refuses what the routes refuse, with the same details", async () => {
    const user = await newUser(t.app);
    const client = await connect(user);
    const stored = await tool<Item>(client, "remember", { content: "keep me" });
    const id = stored.body.id;
    // JSON text with an own "__proto__" key, as a client sends it on the wire.
    const proto = JSON.parse('{"__proto__": {"polluted": true}, "ok": 1}') as Record<
      string,
      unknown
    >;
    const cases: [string, Record<string, unknown>, { method: string; path: string }][] = [
      ["remember", { content: "x", metadata: proto }, { method: "POST", path: "/memories" }],
      ["remember", { content: "x", extra: true }, { method: "POST", path: "/memories" }],
      ["remember", { content: "" }, { method: "POST", path: "/memories" }],
      ["remember", { content: "x".repeat(40_000) }, { method: "POST", path: "/memories" }],
      ["remember", { content: "x", namespace: "has space" }, { method: "POST", path: "/memories" }],
      [
        "remember",
        { content: "x", metadata: { k: "\u0000" } },
        { method: "POST", path: "/memories" },
      ],
      ["recall", { limit: 0, query: "x" }, { method: "POST", path: "/memories/search" }],
      ["recall", {}, { method: "POST", path: "/memories/search" }],
      ["recall", { rank: "relevance" }, { method: "POST", path: "/memories/search" }],
      ["recall", { query: "x", sort: "asc" }, { method: "POST", path: "/memories/search" }],
      [
        "recall",
        { query: "x", metadata: { a: { $regex: "." } } },
        { method: "POST", path: "/memories/search" },
      ],
      [
        "recall",
        { query: "x", createdAfter: "yesterday" },
        { method: "POST", path: "/memories/search" },
      ],
    ];
    for (const [name, args, route] of cases) {
      const { rest, mcp, expected } = await bothRefusals(client, user, name, args, {
        ...route,
        body: args,
      });
      const label = `${name} ${JSON.stringify(args).slice(0, 80)}`;
      expect(rest.status, label).toBe(400);
      expect(mcp.isError, label).toBe(true);
      expect(mcp.body, label).toEqual(expected);
    }
    // update = PUT /memories/:id with the rest of the arguments as its body.
    for (const body of [{ content: "x", metadata: proto }, { content: "x", other: 1 }, {}]) {
      const { rest, mcp, expected } = await bothRefusals(
        client,
        user,
        "update",
        { id, ...body },
        { method: "PUT", path: `/memories/${id}`, body },
      );
      expect(rest.status).toBe(400);
      expect(mcp.body).toEqual(expected);
    }
    // Unknown arguments on the id tools are refused too.
    for (const name of ["get", "history", "forget", "prove", "verify"]) {
      const refused = await tool<ToolError>(client, name, { id, force: true });
      expect(refused.isError, name).toBe(true);
      expect(refused.body.error.code, name).toBe("invalid_request");
    }
    // Nothing refused was stored.
    const listed = await tool<Page>(client, "list", {});
    expect(listed.body.items.map((item) => item.id)).toEqual([id]);
  });
});
