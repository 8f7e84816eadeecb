/**
 * Parsers of option values: `k=v` metadata, durations (`7d`, `1h`) and expiry times, integers.
 * Each throws a usage error (exit 2) naming the option.
 * @module
 */
import { readFile } from "node:fs/promises";
import { usageError } from "./errors.js";

/** Commander's collector for repeatable options: appends `value` to the list so far. */
export function collect(value: string, previous: readonly string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

/**
 * `--meta k=v` pairs as a metadata object. The value is parsed as JSON when it parses (`n=3` is
 * the number 3, `ok=true` a boolean, `tags=["a","b"]` an array, `n={"$gte":3}` an operator), and is
 * the string itself otherwise (`topic=prefs`).
 * @returns undefined when no pair is given.
 * @throws CliError usage for a pair without `=` or with an empty key, or a key given twice.
 */
export function parseMeta(
  pairs: readonly string[] | undefined,
  option = "--meta",
): Record<string, unknown> | undefined {
  if (!pairs || pairs.length === 0) {
    return undefined;
  }
  const metadata: Record<string, unknown> = {};
  for (const pair of pairs) {
    const at = pair.indexOf("=");
    if (at <= 0) {
      throw usageError(`${option} takes key=value, got ${JSON.stringify(pair)}`);
    }
    const key = pair.slice(0, at);
    const raw = pair.slice(at + 1);
    if (Object.hasOwn(metadata, key)) {
      throw usageError(`${option} ${key} is given twice`);
    }
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch {
      value = raw;
    }
    Object.defineProperty(metadata, key, {
      value,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return metadata;
}

const UNIT_MS: Readonly<Record<string, number>> = {
  s: 1_000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
  w: 604_800_000,
};

/** An ISO 8601 date or date-time: `2026-12-01`, `2026-12-01T10:00:00Z`, `…+02:00`. */
const ISO_TIME =
  /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/i;

/**
 * An expiry given as a duration from now (`90s`, `30m`, `1h`, `7d`, `2w`) or an ISO 8601 time.
 * @returns the instant it names.
 * @throws CliError usage when it is neither, or not in the future.
 */
export function parseExpiry(value: string, option: string, now = new Date()): Date {
  const duration = /^(\d+)\s*([smhdw])$/i.exec(value.trim());
  let at: Date;
  if (duration) {
    const unit = UNIT_MS[(duration[2] ?? "").toLowerCase()] ?? 0;
    at = new Date(now.getTime() + Number(duration[1]) * unit);
  } else if (ISO_TIME.test(value.trim())) {
    at = new Date(value.trim());
  } else {
    throw usageError(
      `${option} takes a duration (90s, 30m, 1h, 7d, 2w) or an ISO 8601 time, got ${JSON.stringify(value)}`,
    );
  }
  if (Number.isNaN(at.getTime())) {
    throw usageError(`${option}: ${JSON.stringify(value)} is not a valid time`);
  }
  if (at.getTime() <= now.getTime()) {
    throw usageError(`${option} must lie in the future`);
  }
  return at;
}

/**
 * A whole number option within `[min, max]`.
 * @throws CliError usage otherwise.
 */
export function parseInteger(value: string, option: string, min: number, max: number): number {
  const n = /^\d+$/.test(value.trim()) ? Number(value.trim()) : Number.NaN;
  if (!Number.isSafeInteger(n) || n < min || n > max) {
    throw usageError(`${option} takes a whole number from ${min} to ${max}, got ${value}`);
  }
  return n;
}

/**
 * Reads a UTF-8 text file, or all of standard input for `-`.
 * @throws CliError usage when it cannot be read.
 */
export async function readText(path: string, what: string): Promise<string> {
  try {
    if (path === "-") {
      const chunks: Buffer[] = [];
      for await (const chunk of process.stdin) {
        chunks.push(typeof chunk === "string" ? Buffer.from(chunk) : (chunk as Buffer));
      }
      return Buffer.concat(chunks).toString("utf8");
    }
    return await readFile(path, "utf8");
  } catch (error) {
    throw usageError(`cannot read ${what} ${path}: ${(error as Error).message}`);
  }
}
