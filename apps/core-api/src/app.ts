/**
 * `createApp(deps)`: the core API built from explicit dependencies. Routes are
 * declared with @hono/zod-openapi, so the zod schema that validates a request is the one
 * published at `/openapi.json`. Error shape, request ids, CORS and body rules of docs/protocol.md §1.
 * @module
 */

import { StakingClient } from "@verifiable-memory/chain-commit";
import {
  buildRouteMatcher,
  createApiApp,
  publishApiApp,
  RateLimits,
  registerHealthRoutes,
} from "@verifiable-memory/http-kit";
import {
  createMemoryDomain,
  MAX_BATCH_BODY_BYTES,
  rpcAnchorChain,
} from "@verifiable-memory/memory";
import { databaseReadiness } from "@verifiable-memory/runtime";
import { cors } from "hono/cors";
import { registerConsole } from "./console/serve-console.js";
import type { App, AppDeps, AppEnv, Services } from "./context.js";
import { handleError } from "./errors.js";
import { registerGetAgentCaseAudit } from "./routes/agent-cases/audit.js";
import { registerDeleteAgentCase } from "./routes/agent-cases/delete.js";
import { registerListAgentCases } from "./routes/agent-cases/list.js";
import { registerPostAgentCases } from "./routes/agent-cases/post.js";
import { registerUseAgentCase } from "./routes/agent-cases/use.js";
import { registerPostAuthChallenge } from "./routes/auth/challenge.js";
import { registerPostAuthVerify } from "./routes/auth/verify.js";
import { registerGetEvents } from "./routes/events/get.js";
import { registerGetInfo } from "./routes/info/get.js";
import { registerDeleteKeys } from "./routes/keys/delete.js";
import { registerGetKeys } from "./routes/keys/get.js";
import { registerPostKeys } from "./routes/keys/post.js";
import { registerGetLogCheckpoints } from "./routes/log/checkpoints.js";
import { registerGetLogConsistency } from "./routes/log/consistency.js";
import { registerGetLog } from "./routes/log/get.js";
import { registerMcp } from "./routes/mcp/post.js";
import { registerPostMemoriesBatch } from "./routes/memories/batch.js";
import { registerDeleteMemory } from "./routes/memories/delete.js";
import { registerGetMemory } from "./routes/memories/get.js";
import { registerGetMemoryHistory } from "./routes/memories/history.js";
import { registerListMemories } from "./routes/memories/list.js";
import { registerPostMemories } from "./routes/memories/post.js";
import { registerGetMemoryProof } from "./routes/memories/proof.js";
import { registerPutMemory } from "./routes/memories/put.js";
import { registerSearchMemories } from "./routes/memories/search.js";
import { registerVerifyMemory } from "./routes/memories/verify.js";
import { registerGetNamespaces } from "./routes/namespaces/get.js";
import { registerGetOwnerCheckpoint } from "./routes/owners/checkpoint.js";
import { registerGetOwnerConsistency } from "./routes/owners/consistency.js";
import { registerGetStaking } from "./routes/staking/get.js";
import { registerPostStake } from "./routes/staking/stake.js";
import { registerPostStakingSubmit } from "./routes/staking/submit.js";
import { registerPostUnstake } from "./routes/staking/unstake.js";
import { registerTlogRoutes } from "./routes/tlog/tiles.js";
import { GrantService } from "./services/grants.js";
import { StakingService } from "./services/staking.js";

/** Every route registration, in one list (the OpenAPI test checks each is documented). */
const routeRegistrations: readonly ((app: App, deps: AppDeps, services: Services) => void)[] = [
  (app, deps) =>
    registerHealthRoutes(app, { logger: deps.logger, ready: () => databaseReadiness(deps.db) }),
  registerGetInfo,
  registerPostAuthChallenge,
  registerPostAuthVerify,
  registerPostKeys,
  registerGetKeys,
  registerDeleteKeys,
  registerPostMemories,
  registerPostMemoriesBatch,
  registerListMemories,
  registerSearchMemories,
  registerGetMemory,
  registerPutMemory,
  registerGetMemoryHistory,
  registerDeleteMemory,
  registerGetMemoryProof,
  registerVerifyMemory,
  registerGetLog,
  registerGetLogConsistency,
  registerGetLogCheckpoints,
  registerGetNamespaces,
  registerGetOwnerConsistency,
  registerGetOwnerCheckpoint,
  registerGetEvents,
  registerMcp,
  registerPostAgentCases,
  registerListAgentCases,
  registerDeleteAgentCase,
  registerGetAgentCaseAudit,
  registerUseAgentCase,
  registerGetStaking,
  registerPostStake,
  registerPostUnstake,
  registerPostStakingSubmit,
];

/** The services of one app instance, built from its dependencies. */
function createServices(deps: AppDeps): Services {
  const domain = createMemoryDomain({
    db: deps.db,
    clock: deps.clock,
    masterKeys: deps.config.masterKeys,
    recallCacheMaxBytes: deps.config.recallCacheMaxBytes,
    recallSegmentLeaves: deps.config.recallSegmentLeaves,
    recallLanguage: deps.config.recallLanguage,
    vectors: deps.vectors,
    chain:
      deps.chain ??
      rpcAnchorChain(
        deps.config.chainRpcUrl,
        deps.config.programId,
        deps.config.siws.chainId,
        deps.config.chainRpcTimeoutMs,
      ),
  });
  const grants = new GrantService({
    db: deps.db,
    clock: deps.clock,
    dataKeys: domain.dataKeys,
    publicBaseUrl: deps.config.publicBaseUrl,
    memories: domain.memories,
    proofs: domain.proofs,
  });
  const staking = new StakingService({
    db: deps.db,
    clock: deps.clock,
    chain:
      deps.staking ??
      new StakingClient({
        rpcUrl: deps.config.chainRpcUrl,
        programId: deps.config.programId,
        requestTimeoutMs: deps.config.chainRpcTimeoutMs,
      }),
  });
  return { ...domain, grants, staking };
}

/** A grant id (generated UUID): not a secret, unlike a grant token. */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The request path as logged. Under `/agent-cases/` a path segment can be a capability grant's
 * token (the path itself is the credential of `GET /agent-cases/<token>`), whatever the method,
 * case, doubled slashes or suffix a client sends: every segment after `agent-cases` that is not a
 * grant id or `audit` is replaced by `:token`.
 */
export function loggablePath(_method: string, path: string): string {
  const segments = path.split("/");
  const at = segments.findIndex((segment) => segment.toLowerCase() === "agent-cases");
  if (at === -1) {
    return path;
  }
  return segments
    .map((segment, i) =>
      i <= at || segment === "" || segment === "audit" || UUID.test(segment) ? segment : ":token",
    )
    .join("/");
}

/** Builds the core API. */
export function createApp(deps: AppDeps): App {
  const origins = deps.config.corsOrigins;
  const browserCors = cors({
    origin: origins === null ? (origin) => origin : [...origins],
    allowHeaders: ["Authorization", "Content-Type", "X-Request-Id"],
    exposeHeaders: ["X-Request-Id"],
    credentials: false,
  });
  const app: App = createApiApp<AppEnv>({
    logger: deps.logger,
    loggablePath,
    bodyLimits: { "POST /memories/batch": MAX_BATCH_BODY_BYTES },
    rateLimits: new RateLimits({ ...deps.config.rateLimits, trustProxy: deps.config.trustProxy }),
    // CORS headers only mean something to a browser, which always sends Origin cross-origin; a
    // request without one gets just the `Vary: Origin` hono's cors would have added.
    cors: (c, next) => {
      if (c.req.header("origin") === undefined) {
        c.header("vary", "Origin");
        return next();
      }
      return browserCors(c, next);
    },
  });

  const services = createServices(deps);
  for (const register of routeRegistrations) {
    register(app, deps, services);
  }
  registerTlogRoutes(app, deps);
  registerConsole(app, deps);

  publishApiApp(app, {
    title: `${deps.config.siws.serviceName} core API`,
    description:
      "Verifiable memory for AI agents: wallet sign-in, encrypted memories, Merkle proofs.",
    securityScheme: {
      name: "bearer",
      description: "A session JWT from /auth/verify or an API key (svc_…)",
    },
    serverUrl: deps.config.publicBaseUrl,
    onError: handleError(deps.logger),
  });
  buildRouteMatcher(app);
  return app;
}
