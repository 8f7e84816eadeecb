/**
 * The dependencies of the core API and the typed request context: `createApp(deps)`
 * receives real parts (database, config, clock, logger); tests pass a controllable clock.
 * @module
 */
import type { HttpBindings } from "@hono/node-server";
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AuthContext } from "@verifiable-memory/auth";
import type { Clock } from "@verifiable-memory/clock";
import type { Database } from "@verifiable-memory/db-schema";
import type { RateLimits } from "@verifiable-memory/http-kit";
import type {
  AnchorChain,
  EventHub,
  ExpectedAppend,
  MemoryDomain,
  VectorIndexer,
} from "@verifiable-memory/memory";
import type { Logger } from "pino";
import type { Config } from "./env.js";
import type { GrantService } from "./services/grants.js";
import type { StakingChain, StakingService } from "./services/staking.js";

/** Everything the app needs from outside. */
export interface AppDeps {
  readonly db: Database;
  readonly config: Config;
  readonly clock: Clock;
  readonly logger: Logger;
  /** The chain proofs are anchored on; default: JSON-RPC at `config.chainRpcUrl`. */
  readonly chain?: AnchorChain;
  /** The chain staking reads and relays through; default: JSON-RPC at `config.chainRpcUrl`. */
  readonly staking?: StakingChain;
  /**
   * The process's event hub behind `GET /events` (one LISTEN connection, the open streams); the
   * process closes it on shutdown, which ends the open streams. Default: a hub over `db` made by
   * the route, which LISTENs from the first stream on and which nothing closes.
   */
  readonly events?: EventHub;
  /**
   * The background embedder over the configured embedding model (EMBEDDINGS): writes feed it,
   * semantic and hybrid searches embed their query with it. Absent: those ranks are refused.
   */
  readonly vectors?: VectorIndexer;
  /** Milliseconds between two heartbeat comments of a `GET /events` stream; default 15 000. */
  readonly eventsHeartbeatMs?: number;
}

/** The services `createApp` builds: the memory domain (@verifiable-memory/memory), grants and staking. */
export interface Services extends MemoryDomain {
  readonly grants: GrantService;
  readonly staking: StakingService;
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
    /** The app's rate limits (docs/protocol.md §12), set by @verifiable-memory/http-kit's createApiApp. */
    rateLimits: RateLimits;
  };
}

/** The app type every route registers on. */
export type App = OpenAPIHono<AppEnv>;
