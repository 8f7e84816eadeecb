/**
 * Configuration of the local chain process, parsed once at startup with zod (docs/protocol.md §10: a
 * missing or malformed value stops the process). Only main.ts reads `process.env`, through
 * {@link parseEnv}.
 * Source: docs/protocol.md §7 (LOCAL_CHAIN_PORT default 8899, DATA_DIR, SERVICE_PROGRAM_ID), §10;
 * LOG_LEVEL as in the anchor service.
 * @module
 */

import { PublicKey } from "@solana/web3.js";
import { parseConfig } from "@verifiable-memory/app-config";
import { LOCAL_PROGRAM_ID } from "@verifiable-memory/commitment-program";
import { z } from "zod";

/** Schema of the environment variables the local chain reads. */
export const EnvSchema = z.object({
  /** JSON-RPC port; PubSub is served on the next port. 0 = any free pair. */
  LOCAL_CHAIN_PORT: z
    .string()
    .regex(/^\d+$/, "must be a decimal port number")
    .default("8899")
    .transform(Number)
    .pipe(z.number().int().min(0).max(65_534)),
  /** Interface to bind (the faucet is unauthenticated: keep it local unless isolated). */
  LOCAL_CHAIN_HOST: z.string().min(1).default("127.0.0.1"),
  /** Service data directory; the chain keeps its state in DATA_DIR/chain. */
  DATA_DIR: z.string().min(1).default("./.data"),
  /** Program id (base58) to deploy the commitment program at. */
  SERVICE_PROGRAM_ID: z
    .string()
    .default(LOCAL_PROGRAM_ID)
    .refine((value) => {
      try {
        return new PublicKey(value).toBase58() === value;
      } catch {
        return false;
      }
    }, "must be a base58 public key"),
  /**
   * Stake lock period written into the program's stake configuration when the chain is created,
   * seconds (1..315 360 000; default 7 days). An existing chain keeps the period it was created
   * with: the program sets it once.
   */
  STAKE_LOCK_SECONDS: z
    .string()
    .regex(/^\d+$/, "must be a positive decimal number of seconds")
    .default("604800")
    .transform(Number)
    .pipe(z.number().int().min(1).max(315_360_000)),
  /**
   * Solana CLI keypair file of the anchoring authority (the anchor service's key). When the file
   * exists, its public key becomes the program's anchor authority at every start (docs/protocol.md
   * §7.1 "The commitment account"), so nobody else can create a wallet's commitment account.
   */
  AUTHORITY_KEYPAIR_PATH: z.string().min(1).optional(),
  /** pino level of the JSON log lines on stdout (`debug` adds one line per JSON-RPC call). */
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
});

/** The validated configuration. */
export type Env = z.infer<typeof EnvSchema>;

/**
 * Validates `source` (usually `process.env`) against {@link EnvSchema}; empty strings count as
 * unset.
 * @returns the typed configuration with defaults applied.
 * @throws ConfigError naming every malformed variable.
 * @example parseEnv({ LOCAL_CHAIN_PORT: "8899", DATA_DIR: "./.data" })
 */
export function parseEnv(source: Readonly<Record<string, string | undefined>>): Env {
  return parseConfig(EnvSchema, source);
}
