/**
 * `createApp(deps)`: the core API built from explicit dependencies (STYLE §11). Routes are
 * declared with @hono/zod-openapi, so the zod schema that validates a request is the one
 * published at `/openapi.json`. Error shape, request ids, CORS and body rules of CONTRACT §1.
 * @module
 */
import { randomUUID } from "node:crypto";
import { OpenAPIHono } from "@hono/zod-openapi";
import { Scalar } from "@scalar/hono-api-reference";
import { cors } from "hono/cors";
import type { App, AppDeps, AppEnv, Services } from "./context.js";
import { errorBody, handleError } from "./errors.js";
import { limitBody, requireJsonBody } from "./middleware/body.js";
import { registerGetAgentCaseAudit } from "./routes/agent-cases/audit.js";
import { registerDeleteAgentCase } from "./routes/agent-cases/delete.js";
import { registerListAgentCases } from "./routes/agent-cases/list.js";
import { registerPostAgentCases } from "./routes/agent-cases/post.js";
import { registerUseAgentCase } from "./routes/agent-cases/use.js";
import { registerPostAuthChallenge } from "./routes/auth/challenge.js";
import { registerPostAuthVerify } from "./routes/auth/verify.js";
import { registerGetHealth } from "./routes/health/get.js";
import { registerDeleteKeys } from "./routes/keys/delete.js";
import { registerGetKeys } from "./routes/keys/get.js";
import { registerPostKeys } from "./routes/keys/post.js";
import { registerGetLogConsistency } from "./routes/log/consistency.js";
import { registerGetLog } from "./routes/log/get.js";
import { registerDeleteMemory } from "./routes/memories/delete.js";
import { registerGetMemory } from "./routes/memories/get.js";
import { registerListMemories } from "./routes/memories/list.js";
import { registerPostMemories } from "./routes/memories/post.js";
import { registerGetMemoryProof } from "./routes/memories/proof.js";
import { registerSearchMemories } from "./routes/memories/search.js";
import { registerVerifyMemory } from "./routes/memories/verify.js";
import { rpcAnchorChain } from "./services/anchor-chain.js";
import { AppendQueue } from "./services/append-queue.js";
import { DataKeys } from "./services/caller.js";
import { GrantService } from "./services/grants.js";
import { MemoryService } from "./services/memories.js";
import { ProofService } from "./services/proofs.js";
import { RecallCache } from "./services/recall-cache.js";

/** Every route registration, in one list (the OpenAPI test checks each is documented). */
const routeRegistrations: readonly ((app: App, deps: AppDeps, services: Services) => void)[] = [
  registerGetHealth,
  registerPostAuthChallenge,
  registerPostAuthVerify,
  registerPostKeys,
  registerGetKeys,
  registerDeleteKeys,
  registerPostMemories,
  registerListMemories,
  registerSearchMemories,
  registerGetMemory,
  registerDeleteMemory,
  registerGetMemoryProof,
  registerVerifyMemory,
  registerGetLog,
  registerGetLogConsistency,
  registerPostAgentCases,
  registerListAgentCases,
  registerDeleteAgentCase,
  registerGetAgentCaseAudit,
  registerUseAgentCase,
];

/** The services of one app instance, built from its dependencies. */
function createServices(deps: AppDeps): Services {
  const recall = new RecallCache({
    db: deps.db,
    clock: deps.clock,
    maxBytes: deps.config.recallCacheMaxBytes,
  });
  const chain =
    deps.chain ??
    rpcAnchorChain(deps.config.chainRpcUrl, deps.config.programId, deps.config.siws.chainId);
  const appendQueue = new AppendQueue(deps.db);
  const dataKeys = new DataKeys(deps.config.masterKey);
  const memories = new MemoryService({ db: deps.db, clock: deps.clock, appendQueue, recall });
  const proofs = new ProofService(deps.db, chain);
  const grants = new GrantService({
    db: deps.db,
    clock: deps.clock,
    dataKeys,
    publicBaseUrl: deps.config.publicBaseUrl,
    memories,
    proofs,
  });
  return { appendQueue, dataKeys, recall, memories, proofs, grants };
}

/** An incoming x-request-id is kept only when it is short and plain. */
const SAFE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** `GET /agent-cases/<token>`: the path itself is a credential (a capability grant's token). */
const GRANT_USE_PATH = /^\/agent-cases\/[^/]+\/?$/;

/** The request path as logged: a grant token in it is replaced by `:token`. */
function loggablePath(method: string, path: string): string {
  return method === "GET" && GRANT_USE_PATH.test(path) ? "/agent-cases/:token" : path;
}

/** Builds the core API. */
export function createApp(deps: AppDeps): App {
  const app: App = new OpenAPIHono<AppEnv>({
    defaultHook: (result, c) => {
      if (!result.success) {
        const details = result.error.issues.map((i) => ({ path: i.path, message: i.message }));
        return c.json(errorBody("invalid_request", "the request is not valid", details), 400);
      }
      return undefined;
    },
  });

  // Every response header is set before the route runs (hono's prepared headers): a header set
  // on a finished response makes hono copy it into a new Response whose body @hono/node-server
  // then streams instead of writing it in one call.
  app.use(async (c, next) => {
    const incoming = c.req.header("x-request-id");
    const id = incoming !== undefined && SAFE_REQUEST_ID.test(incoming) ? incoming : randomUUID();
    c.set("requestId", id);
    c.header("x-request-id", id);
    const started = performance.now();
    await next();
    deps.logger.info(
      {
        requestId: id,
        method: c.req.method,
        path: loggablePath(c.req.method, c.req.path),
        status: c.res.status,
        ms: Math.round((performance.now() - started) * 10) / 10,
      },
      "request",
    );
  });
  const origins = deps.config.corsOrigins;
  const browserCors = cors({
    origin: origins === null ? (origin) => origin : [...origins],
    allowHeaders: ["Authorization", "Content-Type", "X-Request-Id"],
    exposeHeaders: ["X-Request-Id"],
    credentials: false,
  });
  // CORS headers only mean something to a browser, which always sends Origin cross-origin; a
  // request without one gets just the `Vary: Origin` hono's cors would have added.
  app.use((c, next) => {
    if (c.req.header("origin") === undefined) {
      c.header("vary", "Origin");
      return next();
    }
    return browserCors(c, next);
  });
  app.use(limitBody());
  app.use(requireJsonBody());

  const services = createServices(deps);
  for (const register of routeRegistrations) {
    register(app, deps, services);
  }

  app.openAPIRegistry.registerComponent("securitySchemes", "bearer", {
    type: "http",
    scheme: "bearer",
    description: "A session JWT from /auth/verify or an API key (svc_…)",
  });
  app.doc31("/openapi.json", {
    openapi: "3.1.0",
    info: {
      title: `${deps.config.siws.serviceName} core API`,
      version: "1.0.0",
      description:
        "Verifiable memory for AI agents: wallet sign-in, encrypted memories, Merkle proofs.",
    },
  });
  app.get("/docs", Scalar({ url: "/openapi.json", pageTitle: "API reference" }));

  app.notFound((c) => c.json(errorBody("not_found", "no such route"), 404));
  app.onError(handleError(deps.logger));
  return app;
}
