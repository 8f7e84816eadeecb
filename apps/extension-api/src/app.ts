/**
 * `createApp(deps)`: the extension API (docs/protocol.md §4, §1, §3, §9) built from explicit
 * dependencies, like core-api: @hono/zod-openapi routes (the schema that validates a request is
 * the one published at `/openapi.json`), the error shape, request ids and body rules of
 * docs/protocol.md §1 from @verifiable-memory/http-kit, and the memory domain shared with core-api (@verifiable-memory/memory).
 * @module
 */

import {
  buildRouteMatcher,
  createApiApp,
  publishApiApp,
  RateLimits,
  registerHealthRoutes,
} from "@verifiable-memory/http-kit";
import { createMemoryDomain, rpcAnchorChain } from "@verifiable-memory/memory";
import { databaseReadiness } from "@verifiable-memory/runtime";
import type { App, AppDeps, AppEnv, Services } from "./context.js";
import { handleError } from "./errors.js";
import { extensionCors } from "./middleware/cors.js";
import { registerPostLogout } from "./routes/auth/logout.js";
import { registerPostConnectChallenge } from "./routes/connect/challenge.js";
import { registerGetConnectPage } from "./routes/connect/page.js";
import { registerPostConnectVerify } from "./routes/connect/verify.js";
import { registerGetMe } from "./routes/me/get.js";
import { registerPostMemories } from "./routes/memories/post.js";
import { registerSearchMemories } from "./routes/memories/search.js";
import { ConnectService } from "./services/connect.js";

/** Every route registration, in one list (the OpenAPI test checks each is documented). */
const routeRegistrations: readonly ((app: App, deps: AppDeps, services: Services) => void)[] = [
  (app, deps) =>
    registerHealthRoutes(app, { logger: deps.logger, ready: () => databaseReadiness(deps.db) }),
  (app, deps) => registerGetConnectPage(app, deps),
  (app, _deps, services) => registerPostConnectChallenge(app, services),
  (app, _deps, services) => registerPostConnectVerify(app, services),
  registerGetMe,
  registerPostMemories,
  registerSearchMemories,
  registerPostLogout,
];

/** The services of one app instance: the shared memory domain and the connect flow. */
function createServices(deps: AppDeps): Services {
  const domain = createMemoryDomain({
    db: deps.db,
    clock: deps.clock,
    masterKeys: deps.config.masterKeys,
    recallCacheMaxBytes: deps.config.recallCacheMaxBytes,
    recallSegmentLeaves: deps.config.recallSegmentLeaves,
    chain:
      deps.chain ??
      rpcAnchorChain(
        deps.config.chainRpcUrl,
        deps.config.programId,
        deps.config.siws.chainId,
        deps.config.chainRpcTimeoutMs,
      ),
  });
  const connect = new ConnectService({
    db: deps.db,
    clock: deps.clock,
    masterKey: deps.config.masterKeys.current.key,
    siws: deps.config.siws,
    tokenTtlSeconds: deps.config.tokenTtlSeconds,
    maxOutstandingChallenges: deps.config.authChallengeMaxOutstanding,
  });
  return { ...domain, connect };
}

/** Builds the extension API. */
export function createApp(deps: AppDeps): App {
  const app: App = createApiApp<AppEnv>({
    logger: deps.logger,
    cors: extensionCors(deps.config.allowedOrigins),
    rateLimits: new RateLimits({ ...deps.config.rateLimits, trustProxy: deps.config.trustProxy }),
  });

  const services = createServices(deps);
  for (const register of routeRegistrations) {
    register(app, deps, services);
  }

  publishApiApp(app, {
    title: `${deps.config.siws.serviceName} extension API`,
    description:
      "The browser extension's API: wallet connect, remember and recall into the same " +
      "verifiable memory as the core API.",
    securityScheme: {
      name: "extensionToken",
      description: "An extension token from /connect/verify (opaque, revocable)",
    },
    serverUrl: deps.config.siws.uri,
    onError: handleError(deps.logger),
  });
  buildRouteMatcher(app);
  return app;
}
