/**
 * The dependencies of the extension API and its typed request context: `createApp(deps)` receives
 * real parts (database, config, clock, logger); tests pass a controllable clock.
 * @module
 */
import type { HttpBindings } from "@hono/node-server";
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { ExtensionAuthContext } from "@verifiable-memory/auth";
import type { Clock } from "@verifiable-memory/clock";
import type { Database } from "@verifiable-memory/db-schema";
import type { RateLimits } from "@verifiable-memory/http-kit";
import type { AnchorChain, MemoryDomain } from "@verifiable-memory/memory";
import type { Logger } from "pino";
import type { Config } from "./env.js";
import type { ConnectService } from "./services/connect.js";

/** Everything the app needs from outside. */
export interface AppDeps {
  readonly db: Database;
  readonly config: Config;
  readonly clock: Clock;
  readonly logger: Logger;
  /** The chain proofs are anchored on; default: JSON-RPC at `config.chainRpcUrl`. */
  readonly chain?: AnchorChain;
}

/** The services `createApp` builds: the memory domain shared with core-api, and connect. */
export interface Services extends MemoryDomain {
  readonly connect: ConnectService;
}

/** Hono environment: the Node request/response when served by @hono/node-server, and variables. */
export interface AppEnv {
  Bindings: Partial<HttpBindings>;
  Variables: {
    requestId: string;
    /** Set by the token middleware on authenticated routes. */
    auth: ExtensionAuthContext;
    /** The app's rate limits (docs/protocol.md §12), set by @verifiable-memory/http-kit's createApiApp. */
    rateLimits: RateLimits;
  };
}

/** The app type every route registers on. */
export type App = OpenAPIHono<AppEnv>;
