/**
 * The log key (docs/protocol.md §13.1 "The log key"): LOG_ORIGIN, LOG_SIGNING_KEY_PATH and
 * LOG_SIGNING_KEYS_PREVIOUS, read by core-api (signs user checkpoints, shows the verifier keys)
 * and the anchor service.
 * @module
 */
import { readFileSync } from "node:fs";
import {
  isValidKeyName,
  type NoteSigner,
  type NoteVerifier,
  parseSignerKey,
  parseVerifierKey,
} from "@verifiable-memory/signed-note";
import { ConfigError, type ConfigIssue } from "./parse.js";

/** The deployment's log key. */
export interface LogKey {
  /** LOG_ORIGIN: the checkpoint log's origin and the key name of every note we sign. */
  readonly origin: string;
  /** The current key (its secret half), read from LOG_SIGNING_KEY_PATH. */
  readonly signer: NoteSigner;
  /**
   * The keys notes are verified with: the current one first, then LOG_SIGNING_KEYS_PREVIOUS in
   * the order given (notes signed before a rotation keep verifying).
   */
  readonly verifiers: readonly NoteVerifier[];
}

/** The variables {@link loadLogKey} reads. */
export interface LogKeyEnv {
  readonly LOG_ORIGIN?: string | undefined;
  readonly LOG_SIGNING_KEY_PATH?: string | undefined;
  readonly LOG_SIGNING_KEYS_PREVIOUS?: string | undefined;
}

/**
 * Reads the log key. LOG_ORIGIN and LOG_SIGNING_KEY_PATH go together (both unset: no log key,
 * null); the file holds one line `PRIVATE+KEY+<name>+<hex key id>+<base64(0x01 ‖ seed)>` whose
 * name must be LOG_ORIGIN; LOG_SIGNING_KEYS_PREVIOUS is a comma-separated list of verifier keys
 * `<name>+<hex key id>+<base64(0x01 ‖ public key)>`.
 * @returns the key, or null when neither LOG_ORIGIN nor LOG_SIGNING_KEY_PATH is set.
 * @throws ConfigError naming each variable that is missing (one of the pair), unreadable,
 *   malformed, or a key file named otherwise than LOG_ORIGIN.
 */
export function loadLogKey(env: LogKeyEnv): LogKey | null {
  const origin = env.LOG_ORIGIN?.trim() || undefined;
  const path = env.LOG_SIGNING_KEY_PATH?.trim() || undefined;
  const previous = env.LOG_SIGNING_KEYS_PREVIOUS?.trim() || undefined;
  if (origin === undefined && path === undefined) {
    if (previous !== undefined) {
      throw new ConfigError([
        { variable: "LOG_SIGNING_KEYS_PREVIOUS", message: "needs LOG_SIGNING_KEY_PATH" },
      ]);
    }
    return null;
  }
  const issues: ConfigIssue[] = [];
  if (origin === undefined || !isValidKeyName(origin)) {
    issues.push({
      variable: "LOG_ORIGIN",
      message: "must be a key name (no spaces, no `+`), e.g. example.com/tlog",
    });
  }
  let signer: NoteSigner | null = null;
  if (path === undefined) {
    issues.push({ variable: "LOG_SIGNING_KEY_PATH", message: "is required with LOG_ORIGIN" });
  } else {
    try {
      signer = parseSignerKey(readFileSync(path, "utf8").trim());
      if (origin !== undefined && signer.name !== origin) {
        issues.push({
          variable: "LOG_SIGNING_KEY_PATH",
          message: `the key is named ${JSON.stringify(signer.name)}, LOG_ORIGIN is ${JSON.stringify(origin)}`,
        });
      }
    } catch (error) {
      issues.push({ variable: "LOG_SIGNING_KEY_PATH", message: (error as Error).message });
    }
  }
  const verifiers: NoteVerifier[] = [];
  for (const vkey of previous?.split(",") ?? []) {
    try {
      verifiers.push(parseVerifierKey(vkey.trim()));
    } catch (error) {
      issues.push({ variable: "LOG_SIGNING_KEYS_PREVIOUS", message: (error as Error).message });
    }
  }
  if (issues.length > 0 || signer === null || origin === undefined) {
    throw new ConfigError(issues);
  }
  return { origin, signer, verifiers: [signer, ...verifiers] };
}
