/**
 * zod schemas of the environment variables several apps read (docs/protocol.md §10). Each takes the raw
 * string and yields the typed value; `parseConfig` has already dropped empty values.
 * @module
 */
import { parseMasterKey } from "@verifiable-memory/envelope-crypto";
import { z } from "zod";

/** A trimmed optional string (absent stays undefined). */
export const optionalText = z
  .string()
  .optional()
  .transform((v) => v?.trim());

/** `DATABASE_URL`: a postgres:// or postgresql:// URL, optional (absent → embedded PostgreSQL). */
export const databaseUrl = z
  .string()
  .regex(/^postgres(ql)?:\/\//, "must be a postgres:// or postgresql:// URL")
  .optional();

/** `MASTER_ENCRYPTION_KEY`: 32 bytes, base64 or hex → the key bytes. */
export const masterKey = z.string({ error: "is required" }).transform((value, ctx) => {
  try {
    return parseMasterKey(value);
  } catch (error) {
    ctx.addIssue({ code: "custom", message: (error as Error).message });
    return z.NEVER;
  }
});

/**
 * `MASTER_ENCRYPTION_KEYS_PREVIOUS`: earlier master keys that still unwrap data keys during a
 * rotation, comma-separated, each as MASTER_ENCRYPTION_KEY (32 bytes, base64 or hex); spaces
 * around an entry are ignored. Absent → none. → the keys' bytes, in the order given.
 */
export const previousMasterKeys = z
  .string()
  .optional()
  .transform((value, ctx) => {
    if (value === undefined || value.trim() === "") {
      return [];
    }
    const keys: Uint8Array[] = [];
    for (const [index, entry] of value.split(",").entries()) {
      try {
        keys.push(parseMasterKey(entry));
      } catch {
        ctx.addIssue({
          code: "custom",
          message: `entry ${index + 1} must be 32 bytes, base64 or hex (keys separated by commas)`,
        });
        return z.NEVER;
      }
    }
    return keys;
  });

/** A TCP port in 0–65 535 (0 = any free port), given as a decimal string. */
export function port(fallback: number) {
  return z.coerce.number().int().min(0).max(65_535).default(fallback);
}

/** A positive integer, given as a decimal string. */
export function positiveInt(fallback: number, max = Number.MAX_SAFE_INTEGER) {
  return z.coerce.number().int().min(1).max(max).default(fallback);
}

/** An http(s) URL. */
export const url = z.url({ protocol: /^https?$/, error: "must be an http(s) URL" });

/** `SIWS_DOMAIN`: the RFC 3986 authority in line 1 of the sign-in message (no spaces). */
export const siwsDomain = z
  .string()
  .min(1)
  .regex(/^[^\s]+$/, "must not contain spaces");

/** `SIWS_CHAIN_ID` (docs/protocol.md §2). */
export const siwsChainId = z.enum(["mainnet", "devnet", "testnet", "localnet"]);

/** A Solana public key in base58 (32 bytes encode to 32–44 characters). */
export const base58PublicKey = z
  .string()
  .regex(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/, "must be a base58 public key");

/**
 * A rate limit in requests per minute (docs/protocol.md §12), a whole number in 0–1 000 000 given in
 * decimal digits; 0 turns the limit off.
 */
export function perMinuteLimit(fallback: number) {
  return z
    .string()
    .trim()
    .regex(/^\d{1,7}$/, "must be a whole number of requests a minute (0 turns the limit off)")
    .transform(Number)
    .pipe(z.number().max(1_000_000, "must be at most 1000000"))
    .default(fallback);
}

/** A boolean switch: `true` or `false` (any letter case). */
export function flag(fallback: boolean) {
  return z
    .string()
    .trim()
    .toLowerCase()
    .pipe(z.enum(["true", "false"], { error: "must be true or false" }))
    .transform((value) => value === "true")
    .default(fallback);
}

/**
 * `RECALL_LANGUAGE`: the language of relevance ranking's lexical analyser (docs/protocol.md §4.5
 * "Recall"): `en` (English stop words and Porter stems; the default) or `none` (plain words).
 */
export const recallLanguage = z.enum(["en", "none"]).default("en");
