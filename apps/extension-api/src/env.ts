/**
 * Configuration of the extension API (docs/protocol.md §9, §10), validated once at start: a missing or
 * malformed value stops the process naming the variable (docs/protocol.md §3, §1).
 * @module
 */

import {
  base58PublicKey,
  databaseUrl,
  flag,
  masterKey,
  optionalText,
  parseConfig,
  perMinuteLimit,
  port,
  positiveInt,
  previousMasterKeys,
  siwsChainId,
  url,
} from "@verifiable-memory/app-config";
import { EXTENSION_TOKEN_TTL_SECONDS } from "@verifiable-memory/auth";
import { MasterKeyring } from "@verifiable-memory/envelope-crypto";
import { type LogLevel, LogLevelSchema } from "@verifiable-memory/runtime";
import { z } from "zod";

const LOCAL_PROGRAM_ID = "J51ibhpr3HHMXSvELsAC5jeB6R9ik3KR4fCYTEZdGYvz";

/** A browser origin: scheme + host (+ port), no path. */
const ORIGIN = /^[a-z][a-z0-9+.-]*:\/\/[^/\s]+$/;

const schema = z
  .object({
    DATABASE_URL: databaseUrl,
    DATA_DIR: z.string().min(1).default("./.data"),
    MASTER_ENCRYPTION_KEY: masterKey,
    MASTER_ENCRYPTION_KEYS_PREVIOUS: previousMasterKeys,
    SIWS_CHAIN_ID: siwsChainId,
    SERVICE_NAME: z
      .string()
      .min(1)
      .regex(/^[^\n\r]+$/, "must be one line"),
    EXTENSION_PORT: port(8788),
    EXTENSION_PUBLIC_URL: url.optional(),
    EXTENSION_ALLOWED_ORIGINS: optionalText.pipe(
      z
        .string()
        .optional()
        .transform((v) => (v ? v.split(",").map((o) => o.trim().replace(/\/+$/, "")) : []))
        .pipe(z.array(z.string().regex(ORIGIN, "each origin must look like https://host[:port]"))),
    ),
    EXTENSION_TOKEN_TTL_S: positiveInt(EXTENSION_TOKEN_TTL_SECONDS, 10 * 365 * 24 * 60 * 60),
    CHAIN_RPC_URL: url.optional(),
    LOCAL_CHAIN_PORT: z.coerce.number().int().min(1).max(65_535).default(8899),
    SERVICE_PROGRAM_ID: base58PublicKey.default(LOCAL_PROGRAM_ID),
    RECALL_CACHE_MAX_BYTES: z.coerce
      .number()
      .int()
      .min(0)
      .default(256 * 1024 * 1024),
    RECALL_SEGMENT_LEAVES: z.coerce.number().int().min(0).max(1_048_576).default(4096),
    RATE_LIMIT_ANONYMOUS_PER_MINUTE: perMinuteLimit(60),
    RATE_LIMIT_AUTHENTICATED_PER_MINUTE: perMinuteLimit(1200),
    TRUST_PROXY: flag(false),
    AUTH_CHALLENGE_MAX_OUTSTANDING: positiveInt(100_000, 100_000_000),
    CHAIN_RPC_TIMEOUT_MS: positiveInt(3000, 600_000),
    LOG_LEVEL: LogLevelSchema,
  })
  .loose();

/** The validated configuration of the extension API. */
export interface Config {
  /** LOG_LEVEL: the lowest level logged (default `info`). */
  readonly logLevel: LogLevel;
  readonly databaseUrl: string | undefined;
  readonly dataDir: string;
  /**
   * MASTER_ENCRYPTION_KEY (current: wraps new data keys) and MASTER_ENCRYPTION_KEYS_PREVIOUS
   * (only unwrap), by key id.
   */
  readonly masterKeys: MasterKeyring;
  /**
   * The sign-in message fields of connect challenges. The domain and URI are the extension API's
   * own public origin (`EXTENSION_PUBLIC_URL`), because the wallet signs on the connect page
   * served there and wallets compare the message's domain with the page asking.
   */
  readonly siws: { domain: string; uri: string; chainId: string; serviceName: string };
  readonly port: number;
  /** The origins besides `chrome-extension://…` that get CORS headers. */
  readonly allowedOrigins: readonly string[];
  /** Lifetime of an extension token, seconds. */
  readonly tokenTtlSeconds: number;
  /** CHAIN_RPC_URL, or the local chain on LOCAL_CHAIN_PORT when unset (docs/protocol.md §7). */
  readonly chainRpcUrl: string;
  readonly programId: string;
  readonly recallCacheMaxBytes: number;
  /** Leaves per sealed recall segment (RECALL_SEGMENT_LEAVES; 0: no segments). */
  readonly recallSegmentLeaves: number;
  /**
   * Requests a minute per client IP on the connect routes and per extension session on the
   * authenticated ones (docs/protocol.md §12); 0 turns a limit off.
   */
  readonly rateLimits: {
    readonly anonymousPerMinute: number;
    readonly authenticatedPerMinute: number;
  };
  /**
   * Whether the first `X-Forwarded-For` address is the client's (TRUST_PROXY): right only behind
   * a proxy that overwrites that header.
   */
  readonly trustProxy: boolean;
  /**
   * Most unexpired sign-in challenges (core sign-in and extension connect together) stored at
   * once; past it a challenge is 503 `challenges_exhausted` (docs/protocol.md §2.1 "The challenge").
   */
  readonly authChallengeMaxOutstanding: number;
  /**
   * Timeout of each JSON-RPC request the routes make to the chain (CHAIN_RPC_TIMEOUT_MS); past it
   * the route answers 503 `chain_unavailable` (docs/protocol.md §7.4 "The chain client").
   */
  readonly chainRpcTimeoutMs: number;
}

/**
 * Validates the environment. `EXTENSION_PUBLIC_URL` defaults to `http://localhost:<port>`.
 * @throws ConfigError (from @verifiable-memory/app-config) naming each missing or malformed variable.
 */
export function loadConfig(env: Readonly<Record<string, string | undefined>>): Config {
  const v = parseConfig(schema, env);
  const publicUrl = new URL(v.EXTENSION_PUBLIC_URL ?? `http://localhost:${v.EXTENSION_PORT}`);
  return {
    databaseUrl: v.DATABASE_URL,
    dataDir: v.DATA_DIR,
    masterKeys: new MasterKeyring(v.MASTER_ENCRYPTION_KEY, v.MASTER_ENCRYPTION_KEYS_PREVIOUS),
    siws: {
      domain: publicUrl.host,
      uri: publicUrl.origin,
      chainId: v.SIWS_CHAIN_ID,
      serviceName: v.SERVICE_NAME,
    },
    port: v.EXTENSION_PORT,
    allowedOrigins: v.EXTENSION_ALLOWED_ORIGINS,
    tokenTtlSeconds: v.EXTENSION_TOKEN_TTL_S,
    chainRpcUrl: v.CHAIN_RPC_URL ?? `http://127.0.0.1:${v.LOCAL_CHAIN_PORT}`,
    programId: v.SERVICE_PROGRAM_ID,
    recallCacheMaxBytes: v.RECALL_CACHE_MAX_BYTES,
    recallSegmentLeaves: v.RECALL_SEGMENT_LEAVES,
    rateLimits: {
      anonymousPerMinute: v.RATE_LIMIT_ANONYMOUS_PER_MINUTE,
      authenticatedPerMinute: v.RATE_LIMIT_AUTHENTICATED_PER_MINUTE,
    },
    trustProxy: v.TRUST_PROXY,
    authChallengeMaxOutstanding: v.AUTH_CHALLENGE_MAX_OUTSTANDING,
    chainRpcTimeoutMs: v.CHAIN_RPC_TIMEOUT_MS,
    logLevel: v.LOG_LEVEL,
  };
}
