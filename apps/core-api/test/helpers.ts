/**
 * Test support for core-api: a real app over real HTTP (@hono/node-server on port 0) against a
 * fresh PostgreSQL database, a controllable clock, and real wallets (@noble/ed25519) that sign in.
 * @module
 */
import { randomBytes, randomUUID } from "node:crypto";
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import * as ed from "@noble/ed25519";
import { sha512 } from "@noble/hashes/sha2.js";
import type { Clock } from "@svc/auth";
import {
  type Database,
  insertAnchoredCheckpoint,
  markAnchored,
  type NewMemory,
  rootAtSize,
} from "@svc/db-schema";
import { createTestDatabase } from "@svc/db-schema/testing";
import { hashLeaf } from "@svc/merkle-log";
import bs58 from "bs58";
import pino, { type Logger } from "pino";
import { createApp } from "../src/app.js";
import type { App, AppDeps } from "../src/context.js";
import { type Config, loadConfig } from "../src/env.js";

ed.hashes.sha512 = sha512;

/** The environment the test apps run with. */
export const TEST_ENV = {
  JWT_SECRET: "test-secret-that-is-long-enough-0123456789",
  MASTER_ENCRYPTION_KEY: Buffer.alloc(32, 7).toString("base64"),
  SIWS_DOMAIN: "localhost:8787",
  SIWS_URI: "http://localhost:8787",
  SIWS_CHAIN_ID: "devnet",
  SERVICE_NAME: "Verifiable Memory",
  PUBLIC_BASE_URL: "http://localhost:8787",
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
 * commit (marks the covered memories anchored and inserts the checkpoint in one transaction),
 * without touching a chain unless the caller committed `signature` there itself.
 * @returns the root of the tree of `size` leaves.
 */
export async function recordCheckpoint(
  t: Pick<TestApp, "db">,
  user: Pick<TestUser, "userId">,
  size: number,
  nonce: number,
  signature = `sig${nonce}`,
): Promise<Uint8Array> {
  const root = await rootAtSize(t.db, user.userId, size);
  await t.db.transaction(async (tx) => {
    await markAnchored(tx, user.userId, size);
    await insertAnchoredCheckpoint(tx, {
      userId: user.userId,
      treeSize: size,
      root,
      nonce,
      signature,
    });
  });
  return root;
}

/** A memory to append through an AppendQueue directly (random body, real leaf hash). */
export function appendItem(id: string = randomUUID()): NewMemory {
  return {
    id,
    ciphertext: randomBytes(40),
    iv: randomBytes(12),
    leafHash: hashLeaf(randomBytes(16)),
    metadata: {},
    createdAt: new Date(),
  };
}
