/**
 * The dependencies of the core API and the typed request context (STYLE §11): `createApp(deps)`
 * receives real parts (database, config, clock, logger); tests pass a controllable clock.
 * @module
 */
import type { HttpBindings } from "@hono/node-server";
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AuthContext, Clock } from "@svc/auth";
import type { Database } from "@svc/db-schema";
import type { Logger } from "pino";
import type { Config } from "./env.js";
import type { AppendQueue, ExpectedAppend } from "./services/append-queue.js";
import type { DataKeys } from "./services/caller.js";
import type { GrantService } from "./services/grants.js";
import type { MemoryService } from "./services/memories.js";
import type { AnchorChain, ProofService } from "./services/proofs.js";
import type { RecallCache } from "./services/recall-cache.js";

/** Everything the app needs from outside. */
export interface AppDeps {
  readonly db: Database;
  readonly config: Config;
  readonly clock: Clock;
  readonly logger: Logger;
  /** The chain proofs are anchored on; default: JSON-RPC at `config.chainRpcUrl`. */
  readonly chain?: AnchorChain;
}

/** The services `createApp` builds from its dependencies, shared by the routes. */
export interface Services {
  /** The process's group-commit queue of memory appends (MemoryService writes through it). */
  readonly appendQueue: AppendQueue;
  /** Users' data keys, unwrapped once per user (the wrapped key is still loaded per request). */
  readonly dataKeys: DataKeys;
  readonly memories: MemoryService;
  readonly proofs: ProofService;
  readonly recall: RecallCache;
  readonly grants: GrantService;
}

/** Hono environment: the Node request and response when served by @hono/node-server
 * (absent under `app.request`), and per-request variables. */
export interface AppEnv {
  Bindings: Partial<HttpBindings>;
  Variables: {
    requestId: string;
    /** Set by the bearer middleware on authenticated routes. */
    auth: AuthContext;
    /** Set by `expectAppend` on `POST /memories`: this request's announced append. */
    expectedAppend: ExpectedAppend;
  };
}

/** The app type every route registers on. */
export type App = OpenAPIHono<AppEnv>;
