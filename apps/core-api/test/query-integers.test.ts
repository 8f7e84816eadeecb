/**
 * Query integers parse strictly (docs/protocol.md §1.2 "Requests"): every integer query parameter
 * and the `Last-Event-ID` header take `^(0|[1-9][0-9]*)$` within their range, over real HTTP.
 * Hexadecimal, exponents, signs, spaces, fractions and leading zeros are 400 `invalid_request`
 * naming the parameter; the plain decimal spelling is served.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callAt, newUser, startTestApp, type TestApp, type TestUser } from "./helpers.js";

let t: TestApp;
let user: TestUser;
let grantId: string;
beforeAll(async () => {
  t = await startTestApp();
  user = await newUser(t.app);
  for (const content of ["one", "two"]) {
    await callAt(t.app, "/memories", { headers: user.headers, body: { content } });
  }
  const grant = await callAt<{ id: string }>(t.app, "/agent-cases", {
    headers: user.headers,
    body: { operation: { type: "search", query: "one" } },
  });
  grantId = grant.body.id;
});
afterAll(async () => {
  await t.close();
});

const BAD = ["0x10", "%205", "5%20", "1e1", "+5", "-1", "05", "1.0", "1.5", "", "ten", "１"];

describe("query integers", () => {
  const limits = () => [
    "/memories",
    "/keys",
    "/agent-cases",
    `/agent-cases/${grantId}/audit`,
    "/namespaces",
    "/log/checkpoints",
  ];

  it("limit: refuses every other spelling, on every route that takes it", async () => {
    for (const path of limits()) {
      for (const bad of BAD) {
        const res = await callAt<{ error: { code: string; details: { path: string[] }[] } }>(
          t.app,
          `${path}?limit=${bad}`,
          { headers: user.headers },
        );
        expect(res.status, `${path}?limit=${bad}`).toBe(400);
        expect(res.body.error.code).toBe("invalid_request");
        expect(res.body.error.details[0]?.path).toEqual(["limit"]);
      }
      for (const out of ["0", "201", "99999999999999999999"]) {
        expect(
          (await callAt(t.app, `${path}?limit=${out}`, { headers: user.headers })).status,
        ).toBe(400);
      }
      const served = await callAt<{ items: unknown[] }>(t.app, `${path}?limit=1`, {
        headers: user.headers,
      });
      expect(served.status, path).toBe(200);
      expect(served.body.items.length).toBeLessThanOrEqual(1);
    }
  });

  it("from and to of /log/consistency", async () => {
    for (const bad of BAD) {
      for (const query of [`from=${bad}&to=2`, `from=1&to=${bad}`]) {
        const res = await callAt(t.app, `/log/consistency?${query}`, { headers: user.headers });
        expect(res.status, query).toBe(400);
      }
    }
    const served = await callAt(t.app, "/log/consistency?from=1&to=2", { headers: user.headers });
    expect(served.status).toBe(200);
  });

  it("event ids, in the query and in Last-Event-ID", async () => {
    /** The status of GET /events; a stream that opens is closed at once. */
    const status = async (query: string, headers: Record<string, string> = {}) => {
      const controller = new AbortController();
      const res = await t.app.request(`/events${query}`, {
        headers: { ...user.headers, ...headers },
        signal: controller.signal,
      });
      controller.abort();
      return res.status;
    };
    // A header value's surrounding spaces are trimmed by HTTP itself, so " 1" is tried in the query.
    for (const bad of ["0x10", "1e1", "-1", "01", "9007199254740992"]) {
      expect(await status(`?lastEventId=${encodeURIComponent(bad)}`), bad).toBe(400);
      expect(await status("", { "last-event-id": bad }), bad).toBe(400);
    }
    expect(await status("?lastEventId=%201")).toBe(400);
    expect(await status("?lastEventId=0")).toBe(200);
    expect(await status("", { "last-event-id": "0" })).toBe(200);
  });
});
