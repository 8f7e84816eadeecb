/**
 * Test support for core-api: a real app over real HTTP (@hono/node-server on port 0) against a
 * fresh PostgreSQL database, a controllable clock, and real wallets (@noble/ed25519) that sign in.
 * @module
 */
import { request } from "node:http";
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import * as ed from "@noble/ed25519";
import { sha512 } from "@noble/hashes/sha2.js";
import type { Clock } from "@verifiable-memory/auth";
import type { Database } from "@verifiable-memory/db-schema";
import { createTestDatabase } from "@verifiable-memory/db-schema/testing";
import { recordCheckpoint as recordAnchoredCheckpoint } from "@verifiable-memory/memory/testing";
import bs58 from "bs58";
import pino, { type Logger } from "pino";
import { expect } from "vitest";
import { createApp } from "../src/app.js";
import type { App, AppDeps } from "../src/context.js";
import { type Config, loadConfig } from "../src/env.js";

ed.hashes.sha512 = sha512;

/**
 * The environment the test apps run with. Rate limits are off: a test file signs more wallets in
 * a minute from 127.0.0.1 than any client would (rate-limit.test.ts sets its own limits).
 */
export const TEST_ENV = {
  JWT_SECRET: "test-secret-that-is-long-enough-0123456789",
  MASTER_ENCRYPTION_KEY: Buffer.alloc(32, 7).toString("base64"),
  SIWS_DOMAIN: "localhost:8787",
  SIWS_URI: "http://localhost:8787",
  SIWS_CHAIN_ID: "devnet",
  SERVICE_NAME: "Verifiable Memory",
  PUBLIC_BASE_URL: "http://localhost:8787",
  RATE_LIMIT_ANONYMOUS_PER_MINUTE: "0",
  RATE_LIMIT_AUTHENTICATED_PER_MINUTE: "0",
};

/** A clock tests move by hand. */
export class TestClock implements Clock {
  private current: number;

  constructor(start = Date.parse("2026-11-22T10:00:00.000Z")) {
    this.current = start;
  }

  now(): Date {
    return new Date(this.current);
  }

  advance(ms: number): void {
    this.current += ms;
  }
}

/** A running test app. */
export interface TestApp {
  readonly url: string;
  readonly app: App;
  readonly db: Database;
  readonly sql: Awaited<ReturnType<typeof createTestDatabase>>["sql"];
  /** The database's URL, for another app (or process) on the same database. */
  readonly databaseUrl: string;
  readonly clock: TestClock;
  readonly config: Config;
  readonly deps: AppDeps;
  close(): Promise<void>;
}

/**
 * Starts the app on a fresh database (or on `shared`'s database, for multi-instance tests).
 * `logger` defaults to a silent one.
 */
export async function startTestApp(
  options: {
    clock?: TestClock;
    env?: Record<string, string>;
    shareDatabaseOf?: TestApp;
    logger?: Logger;
  } = {},
): Promise<TestApp> {
  const owned = options.shareDatabaseOf ? null : await createTestDatabase();
  const db = options.shareDatabaseOf?.db ?? (owned?.db as Database);
  const sql = options.shareDatabaseOf?.sql ?? (owned?.sql as NonNullable<typeof owned>["sql"]);
  const databaseUrl = options.shareDatabaseOf?.databaseUrl ?? (owned?.url as string);
  const clock = options.clock ?? new TestClock();
  const config = loadConfig({ ...TEST_ENV, ...options.env });
  const deps: AppDeps = {
    db,
    config,
    clock,
    logger: options.logger ?? pino({ level: "silent" }),
  };
  const app = createApp(deps);
  const server = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" });
  await new Promise<void>((resolve) => server.once("listening", () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    app,
    db,
    sql,
    databaseUrl,
    clock,
    config,
    deps,
    close: async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await owned?.close();
    },
  };
}

/** A wallet: a real ed25519 keypair. */
export interface Wallet {
  readonly publicKey: string;
  sign(message: string): string;
}

/** A fresh random wallet. */
export function newWallet(): Wallet {
  const secret = ed.utils.randomSecretKey();
  const publicKey = bs58.encode(ed.getPublicKey(secret));
  return {
    publicKey,
    sign: (message) => bs58.encode(ed.sign(new TextEncoder().encode(message), secret)),
  };
}

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

/**
 * Records an anchored checkpoint of `user` at `size` as the anchor service does after a confirmed
 * commit (`@verifiable-memory/memory/testing`'s recordCheckpoint), without touching a chain unless the caller
 * committed `signature` there itself.
 * @returns the root of the tree of `size` leaves.
 */
export function recordCheckpoint(
  t: Pick<TestApp, "db">,
  user: Pick<TestUser, "userId">,
  size: number,
  nonce: number,
  signature = `sig${nonce}`,
): Promise<Uint8Array> {
  return recordAnchoredCheckpoint(t.db, user.userId, size, nonce, signature);
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
