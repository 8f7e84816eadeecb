/**
 * The apps these tests run together, each in process over real HTTP on a fresh database (or a
 * shared one) through @verifiable-memory/testkit: core-api, the extension API, and the local
 * chain whose `anchorNow` runs the anchor service's sweep as the worker does.
 * @module
 */
import * as anchorService from "@verifiable-memory/anchor-service";
import * as coreApi from "@verifiable-memory/core-api";
import * as extensionApi from "@verifiable-memory/extension-api";
import {
  type AnchoringChain,
  EXTENSION_TEST_ENV,
  type StartTestAppOptions,
  startAnchoringChain,
  startTestApp,
  type TestApp,
} from "@verifiable-memory/testkit";
import pino from "pino";

/** A running core-api. */
export type CoreApp = TestApp<coreApi.Config, coreApi.App>;

/** A running extension API. */
export type ExtensionApp = TestApp<extensionApi.Config, extensionApi.App>;

/** The local chain of these tests: its `anchorNow` reports one anchor-service sweep. */
export type Chain = AnchoringChain<anchorService.SweepReport>;

/** Starts core-api (testkit's TEST_ENV plus `options.env`; a fresh database unless shared). */
export function startCoreApi(options: StartTestAppOptions = {}): Promise<CoreApp> {
  return startTestApp(coreApi, options);
}

/**
 * Starts the extension API with testkit's EXTENSION_TEST_ENV plus `options.env`; with
 * `databaseUrl`, on that database through a pool of its own, as a second process would.
 */
export function startExtensionApi(options: StartTestAppOptions = {}): Promise<ExtensionApp> {
  return startTestApp(extensionApi, { ...options, env: { ...EXTENSION_TEST_ENV, ...options.env } });
}

/**
 * Starts the local chain (in `dataDir`, default a temporary directory) with a funded authority;
 * `anchorNow(db)` runs one sweep of the anchor service (seal every pending user at once, four
 * commits in flight) and expects each commit confirmed.
 */
export function startChain(dataDir?: string): Promise<Chain> {
  return startAnchoringChain(
    (db, chain) =>
      anchorService.runSweep({
        db,
        chain,
        logger: pino({ level: "silent" }),
        config: { sealMaxPending: 1, sealMaxAgeMs: 1, maxInFlight: 4 },
      }),
    dataDir,
  );
}
