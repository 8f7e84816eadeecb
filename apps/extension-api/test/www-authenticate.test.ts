/**
 * Every 401 of the extension API's bearer routes carries `WWW-Authenticate: Bearer` (RFC 6750
 * §3; docs/protocol.md §3.1 "Bearer tokens"): each operation the OpenAPI document marks with
 * bearer security, over real HTTP, without a token, with an unknown one and with a logged-out one.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bearer, connect, newWallet, startExtensionApp, type TestExtensionApp } from "./helpers.js";

let t: TestExtensionApp;
beforeAll(async () => {
  t = await startExtensionApp();
});
afterAll(async () => {
  await t.close();
});

async function send(method: string, path: string, headers: Record<string, string> = {}) {
  const hasBody = method !== "GET" && method !== "DELETE";
  const res = await fetch(`${t.url}${path}`, {
    method,
    headers: { ...headers, ...(hasBody ? { "content-type": "application/json" } : {}) },
    ...(hasBody ? { body: "{}" } : {}),
  });
  await res.body?.cancel();
  return { status: res.status, challenge: res.headers.get("www-authenticate") };
}

describe("WWW-Authenticate on the extension API", () => {
  it("is Bearer without a token and Bearer error=invalid_token with an unknown or logged-out one", async () => {
    const doc = (await (await fetch(`${t.url}/openapi.json`)).json()) as {
      paths: Record<
        string,
        Record<string, { security?: unknown[]; responses: Record<string, { headers?: object }> }>
      >;
    };
    const operations = Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.entries(item)
        .filter(([, op]) => (op.security ?? []).length > 0)
        .map(([method, op]) => ({
          method: method.toUpperCase(),
          path: path.replace(/\{[^}]+\}/g, randomUUID()),
          op,
        })),
    );
    expect(operations.length).toBeGreaterThan(2);
    const { token } = await connect(t.url, newWallet());
    expect((await send("POST", "/auth/logout", bearer(token))).status).toBe(204);
    for (const { method, path, op } of operations) {
      const label = `${method} ${path}`;
      expect(op.responses["401"]?.headers, label).toHaveProperty("WWW-Authenticate");
      expect(await send(method, path), label).toEqual({ status: 401, challenge: "Bearer" });
      for (const bad of ["unknown-token", token]) {
        expect(await send(method, path, bearer(bad)), label).toEqual({
          status: 401,
          challenge: 'Bearer error="invalid_token"',
        });
      }
    }
  });
});
