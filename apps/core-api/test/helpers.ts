/**
 * Test support for core-api: the real app over real HTTP (@verifiable-memory/testkit's
 * startTestApp: @hono/node-server on port 0) against a fresh PostgreSQL database, a controllable
 * clock, and real wallets (@noble/ed25519) that sign in.
 * @module
 */

import { createEmbeddingProvider } from "@verifiable-memory/embeddings";
import { VectorIndexer } from "@verifiable-memory/memory";
import { recordCheckpoint as recordAnchoredCheckpoint } from "@verifiable-memory/memory/testing";
import {
  type TestApp as KitTestApp,
  type StartTestAppOptions,
  startTestApp as startKitTestApp,
  type TestClock,
  type TestUser,
} from "@verifiable-memory/testkit";
import { createApp } from "../src/app.js";
import type { App, AppDeps } from "../src/context.js";
import { type Config, loadConfig } from "../src/env.js";

export {
  type Answer,
  call,
  callAt,
  expectRateLimited,
  mintApiKey,
  newUser,
  newWallet,
  postJson,
  request,
  send,
  signIn,
  TEST_ENV,
  TestClock,
  type TestUser,
  type Wallet,
} from "@verifiable-memory/testkit";

/** A running core-api, and its background embedder when EMBEDDINGS is set. */
export type TestApp = KitTestApp<Config, App> & { readonly vectors?: VectorIndexer };

/**
 * Starts core-api on a fresh database (or on `shareDatabaseOf`'s database, for multi-instance
 * tests) with testkit's TEST_ENV plus `options.env`. `logger` defaults to a silent one. With
 * EMBEDDINGS set, a background embedder as main.ts makes one (`deps.vectors`; no timed passes:
 * tests run `runPass` themselves).
 */
export async function startTestApp(
  options: StartTestAppOptions & { clock?: TestClock } = {},
): Promise<TestApp> {
  let vectors: VectorIndexer | undefined;
  const started = await startKitTestApp(
    {
      loadConfig,
      createApp: (deps: Omit<AppDeps, "vectors">) => {
        const settings = deps.config.embeddings;
        if (settings !== null) {
          vectors = new VectorIndexer({
            db: deps.db,
            provider: createEmbeddingProvider(settings),
            masterKeys: deps.config.masterKeys,
            namespaces: settings.namespaces,
          });
        }
        return createApp(vectors === undefined ? deps : { ...deps, vectors });
      },
    },
    options,
  );
  return {
    ...started,
    ...(vectors === undefined ? {} : { vectors }),
    close: async () => {
      vectors?.close();
      await started.close();
    },
  };
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
