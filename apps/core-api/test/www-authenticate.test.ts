/**
 * Every 401 of a bearer route carries `WWW-Authenticate: Bearer` (RFC 6750 §3; docs/protocol.md
 * §3.1 "Bearer tokens"): each operation the OpenAPI document marks with bearer security is called
 * over real HTTP without a token, with a malformed one, with a revoked API key and with an
 * expired session, and its OpenAPI 401 entry declares the header.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, mintApiKey, newUser, startTestApp, type TestApp } from "./helpers.js";

interface Operation {
  security?: Record<string, unknown>[];
  responses: Record<string, { headers?: Record<string, unknown> }>;
}

let t: TestApp;
let bearerOperations: { method: string; path: string; operation: Operation }[];
let revokedKey: string;
let expiredSession: string;

beforeAll(async () => {
  t = await startTestApp();
  const doc = (await (await fetch(`${t.url}/openapi.json`)).json()) as {
    paths: Record<string, Record<string, Operation>>;
  };
  bearerOperations = Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([, operation]) => (operation.security ?? []).length > 0)
      .map(([method, operation]) => ({
        method: method.toUpperCase(),
        path: path.replace(/\{[^}]+\}/g, randomUUID()),
        operation,
      })),
  );
  const user = await newUser(t.url);
  revokedKey = await mintApiKey(t.url, user.token);
  const keys = await call<{ items: { id: string }[] }>(`${t.url}/keys`, { headers: user.headers });
  const keyId = keys.body.items[0]?.id as string;
  expect(
    (await call(`${t.url}/keys/${keyId}`, { method: "DELETE", headers: user.headers })).status,
  ).toBe(204);
  const late = await newUser(t.url);
  expiredSession = late.token;
});
afterAll(async () => {
  await t.close();
});

async function send(method: string, path: string, authorization?: string) {
  const res = await fetch(`${t.url}${path}`, {
    method,
    headers: {
      ...(authorization === undefined ? {} : { authorization }),
      ...(method === "GET" || method === "DELETE" ? {} : { "content-type": "application/json" }),
    },
    ...(method === "GET" || method === "DELETE" ? {} : { body: "{}" }),
  });
  await res.body?.cancel();
  return { status: res.status, challenge: res.headers.get("www-authenticate") };
}

describe("WWW-Authenticate on bearer routes", () => {
  it("is Bearer without a token and Bearer error=invalid_token with a failed one, on every bearer operation", async () => {
    expect(bearerOperations.length).toBeGreaterThan(20);
    t.clock.advance(3_600_000);
    for (const { method, path, operation } of bearerOperations) {
      const label = `${method} ${path}`;
      expect(operation.responses["401"]?.headers, label).toHaveProperty("WWW-Authenticate");
      expect(await send(method, path), label).toEqual({ status: 401, challenge: "Bearer" });
      for (const token of [
        "Bearer not-a-token",
        `Bearer ${revokedKey}`,
        `Bearer ${expiredSession}`,
      ]) {
        expect(await send(method, path, token), `${label} ${token.slice(0, 20)}`).toEqual({
          status: 401,
          challenge: 'Bearer error="invalid_token"',
        });
      }
    }
  });

  it("is absent from answers that are not 401", async () => {
    const user = await newUser(t.url);
    const ok = await fetch(`${t.url}/memories`, { headers: user.headers });
    expect(ok.status).toBe(200);
    expect(ok.headers.get("www-authenticate")).toBeNull();
    const challenge = await fetch(`${t.url}/auth/challenge`, {
      method: "POST",
      body: "{}",
      headers: { "content-type": "application/json" },
    });
    expect(challenge.status).toBe(400);
    expect(challenge.headers.get("www-authenticate")).toBeNull();
  });
});
