/**
 * HTTP helpers for tests against a running app: JSON calls, sign-in through /auth/challenge and
 * /auth/verify (docs/protocol.md §2.1 "The challenge"), API keys, requests from a chosen local
 * address, and the checks of a 429.
 * @module
 */
import { request as nodeRequest } from "node:http";
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

/**
 * Where a test sends its requests: a base URL (real HTTP), or a hono app answered in process
 * through `app.request` (no socket: the app sees no client address).
 */
export type HttpTarget =
  | string
  | { request(path: string, init?: RequestInit): Response | Promise<Response> };

/** A request's method, headers and JSON body (sent as `application/json` when present). */
export interface JsonRequest {
  readonly method?: string;
  readonly headers?: Record<string, string>;
  readonly body?: unknown;
}

/**
 * Sends `init` to `path` on `target`: `fetch(base + path)`, or `app.request(path)` in process.
 * The method defaults to GET without a body and POST with one.
 */
export function request(
  target: HttpTarget,
  path: string,
  init: JsonRequest = {},
): Promise<Response> {
  const options: RequestInit = {
    method: init.method ?? (init.body === undefined ? "GET" : "POST"),
    headers: {
      ...(init.body === undefined ? {} : { "content-type": "application/json" }),
      ...init.headers,
    },
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
  };
  return Promise.resolve(
    typeof target === "string" ? fetch(`${target}${path}`, options) : target.request(path, options),
  );
}

/** {@link request}, then the status and parsed JSON body (null for an empty body). */
export async function callAt<T = Record<string, unknown>>(
  target: HttpTarget,
  path: string,
  init: JsonRequest = {},
): Promise<{ status: number; body: T }> {
  const res = await request(target, path, init);
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : null) as T };
}

/** Signs in through /auth/challenge and /auth/verify; returns the session token and user id. */
export async function signIn(
  target: HttpTarget,
  wallet: Wallet,
): Promise<{ token: string; userId: string }> {
  const challenge = (await (
    await request(target, "/auth/challenge", { body: { publicKey: wallet.publicKey } })
  ).json()) as {
    message: string;
  };
  const res = await request(target, "/auth/verify", {
    body: {
      publicKey: wallet.publicKey,
      message: challenge.message,
      signature: wallet.sign(challenge.message),
    },
  });
  if (res.status !== 200) {
    throw new Error(`sign-in failed: ${res.status} ${await res.text()}`);
  }
  const body = (await res.json()) as { token: string; userId: string };
  return { token: body.token, userId: body.userId };
}

/** Mints an API key with a session token. */
export async function mintApiKey(
  target: HttpTarget,
  token: string,
  label = "agent",
): Promise<string> {
  const res = await request(target, "/keys", {
    body: { label },
    headers: { authorization: `Bearer ${token}` },
  });
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
export async function newUser(target: HttpTarget): Promise<TestUser> {
  const wallet = newWallet();
  const { token, userId } = await signIn(target, wallet);
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
    const req = nodeRequest(
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
