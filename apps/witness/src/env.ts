/**
 * Configuration of the witness, parsed once at startup with zod (docs/protocol.md §10
 * "Configuration"; §13.6 "Witnesses"). Only main.ts reads `process.env`, through
 * {@link parseEnv}; a ConfigError exits 1 through @verifiable-memory/runtime's loadServiceConfig.
 * @module
 */
import { readFileSync } from "node:fs";
import { parseConfig, port } from "@verifiable-memory/app-config";
import {
  type Cosigner,
  type NoteVerifier,
  parseCosignerKey,
  parseVerifierKey,
} from "@verifiable-memory/signed-note";
import { z } from "zod";

/** `WITNESS_KEY_PATH`: a file of one line `PRIVATE+KEY+<name>+<hex id>+<base64(0x04 ‖ seed)>`. */
const witnessKey = z.string({ error: "is required" }).transform((path, ctx): Cosigner => {
  try {
    return parseCosignerKey(readFileSync(path, "utf8").trim());
  } catch (error) {
    ctx.addIssue({ code: "custom", message: (error as Error).message });
    return z.NEVER;
  }
});

/**
 * `WITNESS_LOGS`: the logs' verifier keys (type 0x01), comma-separated → the keys by origin (the
 * key name; several keys of one origin are a rotation: any of them may sign).
 */
const witnessLogs = z.string({ error: "is required" }).transform((value, ctx) => {
  const logs = new Map<string, NoteVerifier[]>();
  for (const [index, entry] of value.split(",").entries()) {
    try {
      const key = parseVerifierKey(entry.trim());
      logs.set(key.name, [...(logs.get(key.name) ?? []), key]);
    } catch (error) {
      ctx.addIssue({ code: "custom", message: `entry ${index + 1}: ${(error as Error).message}` });
      return z.NEVER;
    }
  }
  return logs as ReadonlyMap<string, readonly NoteVerifier[]>;
});

/** Schema of the environment variables the witness reads. */
export const EnvSchema = z.object({
  /** The witness's key file; the key's name is the witness's name. */
  WITNESS_KEY_PATH: witnessKey,
  /** The logs it witnesses, as their verifier keys. */
  WITNESS_LOGS: witnessLogs,
  /** The JSON file of the latest cosigned checkpoint per origin. */
  WITNESS_STATE_PATH: z.string().min(1).default("./.data/witness-state.json"),
  /** Port of the HTTP server (0 = any free port). */
  WITNESS_PORT: port(8790),
  /** Address the HTTP server listens on. */
  WITNESS_HOST: z.string().min(1).default("127.0.0.1"),
  /** pino log level. */
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
});

/** The validated configuration. */
export type Env = z.infer<typeof EnvSchema>;

/**
 * Validates `source` (usually `process.env`) against {@link EnvSchema}, reading the key file.
 * @returns the typed configuration with defaults applied.
 * @throws ConfigError naming every missing or malformed variable (an unreadable or malformed key
 *   file names WITNESS_KEY_PATH).
 */
export function parseEnv(source: Readonly<Record<string, string | undefined>>): Env {
  return parseConfig(EnvSchema, source);
}
