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
import { EXTENSION_TEST_ENV, TestClock } from "@verifiable-memory/testkit";
import pino, { type Logger } from "pino";
import { createApp } from "../src/app.js";
import type { App } from "../src/context.js";
import { type Config, loadConfig } from "../src/env.js";

export {
  bearer,
  call,
  callAt,
  connect,
  EXTENSION_ORIGIN,
  EXTENSION_TEST_ENV,
  newWallet,
  postJson,
  REDIRECT_URI,
  request,
  TestClock,
  type Wallet,
} from "@verifiable-memory/testkit";

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
