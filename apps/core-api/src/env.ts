/**
 * Configuration of the core API (CONTRACT §9), validated once at start with zod. A missing or
 * malformed value stops the process with the variable's name (spec §5).
 * @module
 */
import { parseMasterKey } from "@svc/envelope-crypto";
import { z } from "zod";

const LOCAL_PROGRAM_ID = "J51ibhpr3HHMXSvELsAC5jeB6R9ik3KR4fCYTEZdGYvz";

const optionalText = z
  .string()
  .optional()
  .transform((v) => (v === undefined || v.trim() === "" ? undefined : v.trim()));

const schema = z.object({
  DATABASE_URL: optionalText,
  DATA_DIR: z.string().min(1).default("./.data"),
  JWT_SECRET: z.string().min(32, "must be at least 32 characters"),
  MASTER_ENCRYPTION_KEY: z.string().transform((value, ctx) => {
    try {
      return parseMasterKey(value);
    } catch (error) {
      ctx.addIssue({ code: "custom", message: (error as Error).message });
      return z.NEVER;
    }
  }),
  SIWS_DOMAIN: z
    .string()
    .min(1)
    .regex(/^[^\s]+$/, "must not contain spaces"),
  SIWS_URI: z.url(),
  SIWS_CHAIN_ID: z.enum(["mainnet", "devnet", "testnet", "localnet"]),
  SERVICE_NAME: z
    .string()
    .min(1)
    .regex(/^[^\n\r]+$/, "must be one line"),
  PUBLIC_BASE_URL: z.url(),
  PORT: z.coerce.number().int().min(0).max(65535).default(8787),
  CORS_ORIGINS: optionalText,
  CHAIN_RPC_URL: optionalText.pipe(z.url().optional()),
  LOCAL_CHAIN_PORT: z.coerce.number().int().min(1).max(65535).default(8899),
  SERVICE_PROGRAM_ID: z
    .string()
    .regex(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/)
    .default(LOCAL_PROGRAM_ID),
  AUTHORITY_KEYPAIR_PATH: optionalText,
  RECALL_CACHE_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(0)
    .default(256 * 1024 * 1024),
});

/** The validated configuration. */
export interface Config {
  readonly databaseUrl: string | undefined;
  readonly dataDir: string;
  readonly jwtSecret: string;
  readonly masterKey: Uint8Array;
  readonly siws: { domain: string; uri: string; chainId: string; serviceName: string };
  readonly publicBaseUrl: string;
  readonly port: number;
  /** null: reflect any origin (spec §8 default). */
  readonly corsOrigins: readonly string[] | null;
  /** CHAIN_RPC_URL, or the local chain on LOCAL_CHAIN_PORT when unset (CONTRACT §6). */
  readonly chainRpcUrl: string;
  readonly programId: string;
  readonly recallCacheMaxBytes: number;
}

/** Thrown by {@link loadConfig}; `variables` names every bad variable. */
export class ConfigError extends Error {
  readonly variables: readonly string[];

  constructor(issues: readonly { variable: string; message: string }[]) {
    super(
      `invalid configuration:\n${issues.map((i) => `  ${i.variable}: ${i.message}`).join("\n")}`,
    );
    this.name = "ConfigError";
    this.variables = issues.map((i) => i.variable);
  }
}

/**
 * Validates the environment.
 * @throws ConfigError naming each missing or malformed variable.
 */
export function loadConfig(env: Record<string, string | undefined>): Config {
  const parsed = schema.safeParse(env);
  if (!parsed.success) {
    throw new ConfigError(
      parsed.error.issues.map((issue) => ({
        variable: String(issue.path[0] ?? "?"),
        message: issue.message,
      })),
    );
  }
  const v = parsed.data;
  return {
    databaseUrl: v.DATABASE_URL,
    dataDir: v.DATA_DIR,
    jwtSecret: v.JWT_SECRET,
    masterKey: v.MASTER_ENCRYPTION_KEY,
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
    recallCacheMaxBytes: v.RECALL_CACHE_MAX_BYTES,
  };
}
