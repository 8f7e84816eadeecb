/**
 * Configuration of the core API (docs/protocol.md §10), validated once at start with zod. A missing or
 * malformed value stops the process with the variable's name (docs/protocol.md §3).
 * @module
 */

import { fileURLToPath } from "node:url";
import {
  base58PublicKey,
  ConfigError,
  databaseUrl,
  flag,
  type LogKey,
  loadLogKey,
  masterKey,
  optionalText,
  parseConfig,
  perMinuteLimit,
  port,
  positiveInt,
  previousMasterKeys,
  recallLanguage,
  siwsChainId,
  siwsDomain,
  url,
} from "@verifiable-memory/app-config";
import { loadKeypairFile } from "@verifiable-memory/chain-commit";
import {
  checkEmbeddingsEnv,
  type EmbeddingSettings,
  embeddingSettings,
  embeddingsFields,
} from "@verifiable-memory/embeddings";
import { MasterKeyring } from "@verifiable-memory/envelope-crypto";
import { type LogLevel, LogLevelSchema } from "@verifiable-memory/runtime";
import { z } from "zod";

export { ConfigError };

const LOCAL_PROGRAM_ID = "J51ibhpr3HHMXSvELsAC5jeB6R9ik3KR4fCYTEZdGYvz";

/** The public JSON-RPC endpoint of each real cluster, the console's default chain RPC. */
const PUBLIC_CLUSTER_RPC: Readonly<Record<string, string>> = {
  mainnet: "https://api.mainnet-beta.solana.com",
  devnet: "https://api.devnet.solana.com",
  testnet: "https://api.testnet.solana.com",
};

/** The console's build in this checkout (`pnpm build` writes it): apps/console/dist. */
const CHECKOUT_CONSOLE_DIR = fileURLToPath(new URL("../../console/dist", import.meta.url));

const schema = z
  .object({
    DATABASE_URL: databaseUrl,
    DATA_DIR: z.string().min(1).default("./.data"),
    JWT_SECRET: z.string({ error: "is required" }).min(32, "must be at least 32 characters"),
    MASTER_ENCRYPTION_KEY: masterKey,
    MASTER_ENCRYPTION_KEYS_PREVIOUS: previousMasterKeys,
    SIWS_DOMAIN: siwsDomain,
    SIWS_URI: z.url(),
    SIWS_CHAIN_ID: siwsChainId,
    SERVICE_NAME: z
      .string()
      .min(1)
      .regex(/^[^\n\r]+$/, "must be one line"),
    PUBLIC_BASE_URL: z.url(),
    PORT: port(8787),
    CORS_ORIGINS: optionalText,
    CHAIN_RPC_URL: url.optional(),
    LOCAL_CHAIN_PORT: z.coerce.number().int().min(1).max(65535).default(8899),
    SERVICE_PROGRAM_ID: base58PublicKey.default(LOCAL_PROGRAM_ID),
    AUTHORITY_KEYPAIR_PATH: optionalText,
    RECALL_CACHE_MAX_BYTES: z.coerce
      .number()
      .int()
      .min(0)
      .default(256 * 1024 * 1024),
    RECALL_SEGMENT_LEAVES: z.coerce.number().int().min(0).max(1_048_576).default(4096),
    RECALL_LANGUAGE: recallLanguage,
    RATE_LIMIT_ANONYMOUS_PER_MINUTE: perMinuteLimit(60),
    RATE_LIMIT_AUTHENTICATED_PER_MINUTE: perMinuteLimit(1200),
    RATE_LIMIT_TLOG_PER_MINUTE: perMinuteLimit(6000),
    TRUST_PROXY: flag(false),
    AUTH_CHALLENGE_MAX_OUTSTANDING: positiveInt(100_000, 100_000_000),
    CHAIN_RPC_TIMEOUT_MS: positiveInt(3000, 600_000),
    LOG_LEVEL: LogLevelSchema,
    SSE_MAX_STREAMS_PER_CREDENTIAL: positiveInt(16, 100_000),
    CONSOLE_CHAIN_RPC_URL: url.optional(),
    CONSOLE_DIR: optionalText,
    ...embeddingsFields,
    EMBEDDINGS_PASS_INTERVAL_MS: z.coerce.number().int().min(0).max(86_400_000).default(60_000),
  })
  .superRefine(checkEmbeddingsEnv);

/** The validated configuration. */
export interface Config {
  /** LOG_LEVEL: the lowest level logged (default `info`). */
  readonly logLevel: LogLevel;
  readonly databaseUrl: string | undefined;
  readonly dataDir: string;
  readonly jwtSecret: string;
  /**
   * MASTER_ENCRYPTION_KEY (current: wraps new data keys) and MASTER_ENCRYPTION_KEYS_PREVIOUS
   * (only unwrap), by key id.
   */
  readonly masterKeys: MasterKeyring;
  readonly siws: { domain: string; uri: string; chainId: string; serviceName: string };
  readonly publicBaseUrl: string;
  readonly port: number;
  /** null: reflect any origin (docs/protocol.md §1 default). */
  readonly corsOrigins: readonly string[] | null;
  /** CHAIN_RPC_URL, or the local chain on LOCAL_CHAIN_PORT when unset (docs/protocol.md §7). */
  readonly chainRpcUrl: string;
  readonly programId: string;
  /**
   * Public key (base58) of the anchoring authority, from AUTHORITY_KEYPAIR_PATH when set: shown
   * by `GET /info` so auditors can pin it. The secret half is not kept.
   */
  readonly anchorAuthority: string | null;
  readonly recallCacheMaxBytes: number;
  /** Leaves per sealed recall segment (RECALL_SEGMENT_LEAVES; 0: no segments). */
  readonly recallSegmentLeaves: number;
  /** The language of relevance ranking (RECALL_LANGUAGE: `en` or `none`). */
  readonly recallLanguage: "en" | "none";
  /** The embedding model (EMBEDDINGS and its variables); null when EMBEDDINGS is `none`. */
  readonly embeddings: EmbeddingSettings | null;
  /**
   * Milliseconds between the background embedder's passes over memories without a vector of the
   * current model (EMBEDDINGS_PASS_INTERVAL_MS, default 60 000; 0: no passes, `pnpm reembed`).
   */
  readonly embeddingsPassIntervalMs: number;
  /**
   * Requests a minute per client IP on the unauthenticated routes and per credential on the
   * authenticated ones (docs/protocol.md §12); 0 turns a limit off.
   */
  readonly rateLimits: {
    readonly anonymousPerMinute: number;
    readonly authenticatedPerMinute: number;
    /** Requests a minute per client IP on `/tlog/` (RATE_LIMIT_TLOG_PER_MINUTE; 0: off). */
    readonly tlogPerMinute: number;
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
  /**
   * Most concurrent `GET /events` streams one credential may hold in this process, counted as the
   * rate limits count credentials (docs/protocol.md §4.8 "Events").
   */
  readonly sseMaxStreamsPerCredential: number;
  /**
   * The chain JSON-RPC the web console reads commitment accounts from, in the browser
   * (CONSOLE_CHAIN_RPC_URL; default the cluster's public endpoint, on localnet the chain RPC).
   * The console page's Content-Security-Policy allows connections to it.
   */
  readonly consoleChainRpcUrl: string;
  /** The console's build served at `/console` (CONSOLE_DIR; default the checkout's). */
  readonly consoleDir: string;
  /**
   * The log key (LOG_ORIGIN, LOG_SIGNING_KEY_PATH, LOG_SIGNING_KEYS_PREVIOUS; docs/protocol.md
   * §13.1 "The log key"): signs the user checkpoints `GET /owners/{owner}/checkpoint` serves. Null
   * when not configured (that route then answers 404 and `GET /info` shows no key).
   */
  readonly logKey: LogKey | null;
}

/**
 * Validates the environment (@verifiable-memory/app-config's parseConfig: blank values count as unset).
 * @throws ConfigError naming each missing or malformed variable.
 */
export function loadConfig(env: Record<string, string | undefined>): Config {
  const v = parseConfig(schema, env);
  const logKey = loadLogKey(env);
  let anchorAuthority: string | null = null;
  if (v.AUTHORITY_KEYPAIR_PATH) {
    try {
      anchorAuthority = loadKeypairFile(v.AUTHORITY_KEYPAIR_PATH).publicKey.toBase58();
    } catch (error) {
      throw new ConfigError([
        { variable: "AUTHORITY_KEYPAIR_PATH", message: (error as Error).message },
      ]);
    }
  }
  return {
    databaseUrl: v.DATABASE_URL,
    dataDir: v.DATA_DIR,
    jwtSecret: v.JWT_SECRET,
    masterKeys: new MasterKeyring(v.MASTER_ENCRYPTION_KEY, v.MASTER_ENCRYPTION_KEYS_PREVIOUS),
    siws: {
      domain: v.SIWS_DOMAIN,
      uri: v.SIWS_URI,
      chainId: v.SIWS_CHAIN_ID,
      serviceName: v.SERVICE_NAME,
    },
    publicBaseUrl: v.PUBLIC_BASE_URL.replace(/\/+$/, ""),
    port: v.PORT,
    corsOrigins: v.CORS_ORIGINS ? v.CORS_ORIGINS.split(",").map((o) => o.trim()) : null,
    chainRpcUrl: v.CHAIN_RPC_URL ?? `http://127.0.0.1:${v.LOCAL_CHAIN_PORT}`,
    programId: v.SERVICE_PROGRAM_ID,
    anchorAuthority,
    recallCacheMaxBytes: v.RECALL_CACHE_MAX_BYTES,
    recallSegmentLeaves: v.RECALL_SEGMENT_LEAVES,
    recallLanguage: v.RECALL_LANGUAGE,
    embeddings: embeddingSettings(v),
    embeddingsPassIntervalMs: v.EMBEDDINGS_PASS_INTERVAL_MS,
    rateLimits: {
      anonymousPerMinute: v.RATE_LIMIT_ANONYMOUS_PER_MINUTE,
      authenticatedPerMinute: v.RATE_LIMIT_AUTHENTICATED_PER_MINUTE,
      tlogPerMinute: v.RATE_LIMIT_TLOG_PER_MINUTE,
    },
    trustProxy: v.TRUST_PROXY,
    authChallengeMaxOutstanding: v.AUTH_CHALLENGE_MAX_OUTSTANDING,
    chainRpcTimeoutMs: v.CHAIN_RPC_TIMEOUT_MS,
    logLevel: v.LOG_LEVEL,
    sseMaxStreamsPerCredential: v.SSE_MAX_STREAMS_PER_CREDENTIAL,
    consoleChainRpcUrl:
      v.CONSOLE_CHAIN_RPC_URL ??
      PUBLIC_CLUSTER_RPC[v.SIWS_CHAIN_ID] ??
      v.CHAIN_RPC_URL ??
      `http://127.0.0.1:${v.LOCAL_CHAIN_PORT}`,
    consoleDir: v.CONSOLE_DIR ?? CHECKOUT_CONSOLE_DIR,
    logKey,
  };
}
