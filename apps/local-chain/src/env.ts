/**
 * Configuration of the local chain process, parsed once at startup with zod (CONTRACT §9: a
 * missing or malformed value stops the process). Only main.ts reads `process.env`, through
 * {@link parseEnv}.
 * Source: CONTRACT.md §6 (LOCAL_CHAIN_PORT default 8899, DATA_DIR, SERVICE_PROGRAM_ID), §9;
 * LOG_LEVEL as in the anchor service.
 * @module
 */

import { PublicKey } from "@solana/web3.js";
import { LOCAL_PROGRAM_ID } from "@svc/commitment-program";
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
  /** pino level of the JSON log lines on stdout (`debug` adds one line per JSON-RPC call). */
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
});

/** The validated configuration. */
export type Env = z.infer<typeof EnvSchema>;

/** A configuration that failed validation; `issues` name each offending variable. */
export class InvalidEnvError extends Error {
  override readonly name = "InvalidEnvError";

  constructor(readonly issues: readonly { readonly variable: string; readonly message: string }[]) {
    super(`invalid configuration: ${issues.map((i) => `${i.variable}: ${i.message}`).join("; ")}`);
  }
}

/**
 * Validates `source` (usually `process.env`) against {@link EnvSchema}; empty strings count as
 * unset.
 * @returns the typed configuration with defaults applied.
 * @throws InvalidEnvError naming every malformed variable.
 * @example parseEnv({ LOCAL_CHAIN_PORT: "8899", DATA_DIR: "./.data" })
 */
export function parseEnv(source: Readonly<Record<string, string | undefined>>): Env {
  const cleaned = Object.fromEntries(
    Object.keys(EnvSchema.shape).map((key) => [key, source[key] === "" ? undefined : source[key]]),
  );
  const result = EnvSchema.safeParse(cleaned);
  if (!result.success) {
    throw new InvalidEnvError(
      result.error.issues.map((issue) => ({
        variable: String(issue.path[0] ?? "(root)"),
        message: issue.message,
      })),
    );
  }
  return result.data;
}
