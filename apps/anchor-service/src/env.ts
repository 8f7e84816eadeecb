/**
 * Configuration of the anchor service, parsed once at startup with zod (docs/protocol.md §10
 * "Configuration"; docs/protocol.md §7, §10). Only main.ts reads `process.env`, through
 * {@link parseEnv} (a ConfigError exits 1 through @verifiable-memory/runtime's loadServiceConfig).
 * @module
 */
import { ConfigError, parseConfig } from "@verifiable-memory/app-config";
import { z } from "zod";
import { parseWitnessUrls, type Witness } from "./witnesses.js";

// Base58 alphabet (Bitcoin/Solana): 32-byte public keys encode to 32–44 characters.
const BASE58_PUBKEY = /^[1-9A-HJ-NP-Za-km-z]{32,44}$/;

/** zod error option: "is required" for a missing value, else `message`. */
function required(message: string) {
  return {
    error: (issue: { input?: unknown }) => (issue.input === undefined ? "is required" : message),
  };
}

/** Decimal integer in [min, max], given as a string (environment values are strings). */
function intVar(min: number, max: number, fallback: number) {
  return z
    .string()
    .regex(/^\d+$/, "must be a non-negative decimal integer")
    .default(String(fallback))
    .transform(Number)
    .pipe(z.number().int().min(min).max(max));
}

/** Schema of the environment variables the anchor service reads. */
export const EnvSchema = z.object({
  /** PostgreSQL URL; absent → the embedded PostgreSQL in DATA_DIR (docs/protocol.md §10). */
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, "must be a postgres:// or postgresql:// URL")
    .optional(),
  /** Directory of the embedded PostgreSQL (used only without DATABASE_URL). */
  DATA_DIR: z.string().min(1).default("./.data"),
  /** Solana JSON-RPC endpoint. Required here: `pnpm start` sets it to the local chain. */
  CHAIN_RPC_URL: z.url({ protocol: /^https?$/, ...required("must be an http(s) URL") }),
  /** Program id of the commitment program, base58. */
  SERVICE_PROGRAM_ID: z
    .string(required("must be a string"))
    .regex(BASE58_PUBKEY, "must be a base58 public key"),
  /** Solana CLI JSON keypair file of the commit authority. */
  AUTHORITY_KEYPAIR_PATH: z.string(required("must be a file path")).min(1),
  /** Port of the metrics/health HTTP server (0 = any free port). */
  ANCHOR_PORT: intVar(0, 65_535, 8789),
  /** Milliseconds between sweeps (and between lock attempts of a standby). */
  ANCHOR_INTERVAL_MS: intVar(100, 86_400_000, 30_000),
  /** Seal a user when this many leaves are pending. */
  SEAL_MAX_PENDING: intVar(1, 1_000_000, 256),
  /** Seal a user when the oldest pending leaf is at least this old (ms). */
  SEAL_MAX_AGE_MS: intVar(0, 86_400_000, 300_000),
  /** Users committed concurrently within one sweep. */
  ANCHOR_MAX_IN_FLIGHT: intVar(1, 256, 8),
  /**
   * Milliseconds between batched commits of the per-user accounts (`commit_many`), default one
   * hour (meanwhile the checkpoint log anchors each sealed tree every interval); 0 = each sealed
   * user its own transaction every sweep (docs/protocol.md §7.6).
   */
  USER_ANCHOR_INTERVAL_MS: intVar(0, 604_800_000, 3_600_000),
  /** Minimum milliseconds between two table maintenance passes of the leader. */
  MAINTENANCE_INTERVAL_MS: intVar(1_000, 86_400_000, 60_000),
  /** How long audit rows of grant uses with an unknown token are kept, ms (default 7 days). */
  UNKNOWN_GRANT_AUDIT_RETENTION_MS: intVar(0, 3_650 * 86_400_000, 7 * 86_400_000),
  /**
   * Witnesses of the checkpoint log, comma-separated `<witness vkey>@<URL>` (docs/protocol.md §13.6
   * "Witnesses"); absent → none.
   */
  WITNESS_URLS: z
    .string()
    .optional()
    .transform((value, ctx): Witness[] => {
      try {
        return parseWitnessUrls(value ?? "");
      } catch (error) {
        ctx.addIssue({ code: "custom", message: (error as Error).message });
        return z.NEVER;
      }
    }),
  /** Witness cosignatures each checkpoint-log head should get (a warning below it), 0 ≤ k ≤ witnesses. */
  WITNESS_POLICY: intVar(0, 1_000, 0),
  /** pino log level. */
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
});

/** The validated configuration. */
export type Env = z.infer<typeof EnvSchema>;

/**
 * Validates `source` (usually `process.env`) against {@link EnvSchema}. Empty strings count as
 * unset, so `VAR=` in a .env file falls back to the default (or fails when required).
 * @returns the typed configuration with defaults applied.
 * @throws ConfigError naming every missing or malformed variable.
 * @example parseEnv({ CHAIN_RPC_URL: "http://127.0.0.1:8899", SERVICE_PROGRAM_ID: "J51i…", AUTHORITY_KEYPAIR_PATH: "./a.json" })
 */
export function parseEnv(source: Readonly<Record<string, string | undefined>>): Env {
  const env = parseConfig(EnvSchema, source);
  if (env.WITNESS_POLICY > env.WITNESS_URLS.length) {
    throw new ConfigError([
      {
        variable: "WITNESS_POLICY",
        message: `is ${env.WITNESS_POLICY}, above the ${env.WITNESS_URLS.length} witness(es) of WITNESS_URLS`,
      },
    ]);
  }
  return env;
}
