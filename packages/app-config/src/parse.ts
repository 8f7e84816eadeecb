/**
 * Parsing an environment against an app's zod schema.
 * @module
 */
import type { z } from "zod";

/** One bad variable. */
export interface ConfigIssue {
  readonly variable: string;
  readonly message: string;
}

/** Thrown by {@link parseConfig}; `variables` names every missing or malformed variable. */
export class ConfigError extends Error {
  readonly issues: readonly ConfigIssue[];

  constructor(issues: readonly ConfigIssue[]) {
    super(
      `invalid configuration:\n${issues.map((i) => `  ${i.variable}: ${i.message}`).join("\n")}`,
    );
    this.name = "ConfigError";
    this.issues = issues;
  }

  /** The names of the offending variables, in schema order. */
  get variables(): readonly string[] {
    return this.issues.map((i) => i.variable);
  }
}

/**
 * Validates `env` (usually `process.env`) against `schema`. Empty or blank values count as unset,
 * so `NAME=` in a settings file falls back to the default (or fails when required).
 * @returns the schema's output, defaults applied.
 * @throws ConfigError naming every missing or malformed variable.
 */
export function parseConfig<S extends z.ZodType>(
  schema: S,
  env: Readonly<Record<string, string | undefined>>,
): z.output<S> {
  const present: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (value !== undefined && value.trim() !== "") {
      present[name] = value;
    }
  }
  const parsed = schema.safeParse(present);
  if (!parsed.success) {
    throw new ConfigError(
      parsed.error.issues.map((issue) => ({
        variable: String(issue.path[0] ?? "?"),
        message: issue.message,
      })),
    );
  }
  return parsed.data;
}
