/**
 * HTTP helpers for tests against a running app: JSON calls, sign-in through /auth/challenge and
 * /auth/verify (docs/protocol.md §2.1 "The challenge"), API keys, requests from a chosen local
 * address, and the checks of a 429.
 * @module
 */
import { request } from "node:http";
import { expect } from "vitest";
import { newWallet, type Wallet } from "./wallet.js";

/** POSTs JSON and returns the response. */
export function postJson(url: string, body: unknown, headers: Record<string, string> = {}) {
  return fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
}

/** Signs in through /auth/challenge and /auth/verify; returns the session token and user id. */
export async function signIn(
  url: string,
  wallet: Wallet,
): Promise<{ token: string; userId: string }> {
  const challenge = (await (
    await postJson(`${url}/auth/challenge`, { publicKey: wallet.publicKey })
  ).json()) as {
    message: string;
  };
  const res = await postJson(`${url}/auth/verify`, {
    publicKey: wallet.publicKey,
    message: challenge.message,
    signature: wallet.sign(challenge.message),
  });
  if (res.status !== 200) {
    throw new Error(`sign-in failed: ${res.status} ${await res.text()}`);
  }
  const body = (await res.json()) as { token: string; userId: string };
  return { token: body.token, userId: body.userId };
}

/** Mints an API key with a session token. */
export async function mintApiKey(url: string, token: string, label = "agent"): Promise<string> {
  const res = await postJson(`${url}/keys`, { label }, { authorization: `Bearer ${token}` });
  if (res.status !== 201) {
    throw new Error(`minting a key failed: ${res.status} ${await res.text()}`);
  }
  return ((await res.json()) as { key: string }).key;
}

/** A signed-in test user: wallet, session token and `Authorization` header. */
export interface TestUser {
  readonly wallet: Wallet;
  readonly userId: string;
  readonly token: string;
  readonly headers: Record<string, string>;
}

/** Signs a fresh wallet in. */
export async function newUser(url: string): Promise<TestUser> {
  const wallet = newWallet();
  const { token, userId } = await signIn(url, wallet);
  return { wallet, userId, token, headers: { authorization: `Bearer ${token}` } };
}

/** Sends a request and returns the status and parsed JSON body (null for an empty body). */
export async function call<T = Record<string, unknown>>(
  url: string,
  init: { method?: string; headers?: Record<string, string>; body?: unknown } = {},
): Promise<{ status: number; body: T }> {
  const res = await fetch(url, {
    method: init.method ?? (init.body === undefined ? "GET" : "POST"),
    headers: {
      ...(init.body === undefined ? {} : { "content-type": "application/json" }),
      ...init.headers,
    },
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
  });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : null) as T };
}

/** An answer of {@link send}, read off the socket. */
export interface Answer {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: { error?: { code: string; message: string; details?: unknown } } | null;
}

/**
 * Sends a request over a new socket whose local address is `from` (any 127.0.0.x reaches the
 * server on 127.0.0.1, and the server sees that address as the client's).
 */
export function send(
  from: string,
  url: string,
  init: { method?: string; headers?: Record<string, string>; body?: unknown } = {},
): Promise<Answer> {
  const target = new URL(url);
  const payload = init.body === undefined ? undefined : JSON.stringify(init.body);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: target.hostname,
        port: target.port,
        path: `${target.pathname}${target.search}`,
        method: init.method ?? (payload === undefined ? "GET" : "POST"),
        localAddress: from,
        agent: false,
        headers: {
          ...(payload === undefined ? {} : { "content-type": "application/json" }),
          ...init.headers,
        },
      },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => {
          text += chunk;
        });
        res.on("end", () => {
          const json = (res.headers["content-type"] ?? "").includes("application/json");
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: json && text ? (JSON.parse(text) as Answer["body"]) : null,
          });
        });
      },
    );
    req.on("error", reject);
    req.end(payload);
  });
}

/** Checks a 429 of docs/protocol.md §12: code, Retry-After in whole seconds, request id. */
export function expectRateLimited(answer: Answer): void {
  expect(answer.status, JSON.stringify(answer.body)).toBe(429);
  expect(answer.body?.error?.code).toBe("rate_limited");
  expect(answer.body?.error?.message).toEqual(expect.any(String));
  const retryAfter = String(answer.headers["retry-after"]);
  expect(retryAfter).toMatch(/^\d+$/);
  expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
  expect(Number(retryAfter)).toBeLessThanOrEqual(60);
  expect(answer.headers["x-request-id"]).toEqual(expect.any(String));
}
