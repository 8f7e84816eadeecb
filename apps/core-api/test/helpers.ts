/**
 * Test support for core-api: the real app over real HTTP (@verifiable-memory/testkit's
 * startTestApp: @hono/node-server on port 0) against a fresh PostgreSQL database, a controllable
 * clock, and real wallets (@noble/ed25519) that sign in.
 * @module
 */

import { recordCheckpoint as recordAnchoredCheckpoint } from "@verifiable-memory/memory/testing";
import {
  type TestApp as KitTestApp,
  type StartTestAppOptions,
  startTestApp as startKitTestApp,
  type TestClock,
  type TestUser,
} from "@verifiable-memory/testkit";
import { createApp } from "../src/app.js";
import type { App } from "../src/context.js";
import { type Config, loadConfig } from "../src/env.js";

export {
  type Answer,
  call,
  expectRateLimited,
  mintApiKey,
  newUser,
  newWallet,
  postJson,
  send,
  signIn,
  TEST_ENV,
  TestClock,
  type TestUser,
  type Wallet,
} from "@verifiable-memory/testkit";

/** A running core-api. */
export type TestApp = KitTestApp<Config, App>;

/**
 * Starts core-api on a fresh database (or on `shareDatabaseOf`'s database, for multi-instance
 * tests) with testkit's TEST_ENV plus `options.env`. `logger` defaults to a silent one.
 */
export function startTestApp(
  options: StartTestAppOptions & { clock?: TestClock } = {},
): Promise<TestApp> {
  return startKitTestApp({ loadConfig, createApp }, options);
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
