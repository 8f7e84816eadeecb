/**
 * Test support for the extension API: the real app over real HTTP (@hono/node-server on port 0)
 * against a real PostgreSQL database (its own, or a running core-api's through a separate
 * connection pool, as a second process would have), a controllable clock, and real wallets.
 * @module
 */
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { createDatabase, type Database } from "@verifiable-memory/db-schema";
import { createTestDatabase } from "@verifiable-memory/db-schema/testing";
import { call, postJson, TEST_ENV, TestClock, type Wallet } from "@verifiable-memory/testkit";
import pino, { type Logger } from "pino";
import { createApp } from "../src/app.js";
import type { App } from "../src/context.js";
import { type Config, loadConfig } from "../src/env.js";

export { call, newWallet, postJson, TestClock, type Wallet } from "@verifiable-memory/testkit";

/** A Chrome extension page that may receive a token (id: 32 letters a–p). */
export const REDIRECT_URI = "chrome-extension://abcdefghijklmnopabcdefghijklmnop/connected.html";
/** The origin of that extension. */
export const EXTENSION_ORIGIN = "chrome-extension://abcdefghijklmnopabcdefghijklmnop";

/**
 * The extension API's environment in tests (core's secrets, so both apps share a master key;
 * rate limits off, as in core's TEST_ENV).
 */
export const EXTENSION_TEST_ENV: Record<string, string> = {
  MASTER_ENCRYPTION_KEY: TEST_ENV.MASTER_ENCRYPTION_KEY,
  SIWS_CHAIN_ID: TEST_ENV.SIWS_CHAIN_ID,
  SERVICE_NAME: TEST_ENV.SERVICE_NAME,
  EXTENSION_PUBLIC_URL: "http://localhost:8788",
  RATE_LIMIT_ANONYMOUS_PER_MINUTE: TEST_ENV.RATE_LIMIT_ANONYMOUS_PER_MINUTE,
  RATE_LIMIT_AUTHENTICATED_PER_MINUTE: TEST_ENV.RATE_LIMIT_AUTHENTICATED_PER_MINUTE,
};

/** A running extension API. */
export interface TestExtensionApp {
  readonly url: string;
  readonly app: App;
  readonly db: Database;
  readonly clock: TestClock;
  readonly config: Config;
  close(): Promise<void>;
}

/**
 * Starts the extension API on a fresh database, or on `databaseUrl` (another app's database)
 * with its own connection pool. `logger` defaults to a silent one.
 */
export async function startExtensionApp(
  options: {
    clock?: TestClock;
    env?: Record<string, string>;
    databaseUrl?: string;
    logger?: Logger;
  } = {},
): Promise<TestExtensionApp> {
  const owned = options.databaseUrl ? null : await createTestDatabase();
  const shared = options.databaseUrl ? createDatabase({ url: options.databaseUrl, max: 10 }) : null;
  const db = (owned?.db ?? shared?.db) as Database;
  const clock = options.clock ?? new TestClock();
  const config = loadConfig({ ...EXTENSION_TEST_ENV, ...options.env });
  const app = createApp({
    db,
    config,
    clock,
    logger: options.logger ?? pino({ level: "silent" }),
  });
  const server = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" });
  await new Promise<void>((resolve) => server.once("listening", () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    app,
    db,
    clock,
    config,
    close: async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await owned?.close();
      await shared?.close();
    },
  };
}

/** The connect flow's two JSON steps; returns the verify answer. */
export async function connect(
  url: string,
  wallet: Wallet,
  options: { redirectUri?: string; state?: string } = {},
): Promise<{ token: string; expiresAt: string; redirectTo: string }> {
  const redirectUri = options.redirectUri ?? REDIRECT_URI;
  const challenge = await call<{ message: string }>(`${url}/connect/challenge`, {
    body: { publicKey: wallet.publicKey, redirectUri },
  });
  if (challenge.status !== 200) {
    throw new Error(`challenge failed: ${challenge.status} ${JSON.stringify(challenge.body)}`);
  }
  const res = await postJson(`${url}/connect/verify`, {
    publicKey: wallet.publicKey,
    message: challenge.body.message,
    signature: wallet.sign(challenge.body.message),
    redirectUri,
    ...(options.state === undefined ? {} : { state: options.state }),
  });
  if (res.status !== 200) {
    throw new Error(`connect failed: ${res.status} ${await res.text()}`);
  }
  return (await res.json()) as { token: string; expiresAt: string; redirectTo: string };
}

/** `Authorization: Bearer <token>`. */
export function bearer(token: string): Record<string, string> {
  return { authorization: `Bearer ${token}` };
}
