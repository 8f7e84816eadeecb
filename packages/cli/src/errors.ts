/**
 * Exit codes and the errors the CLI raises itself, and how every error (the SDK's `SvcError`
 * included) becomes one line, or one JSON object, on standard error.
 * @module
 */
import { SvcError } from "@verifiable-memory/client";

/**
 * The exit codes of `svc` (README.md "Exit codes"):
 * - `ok` 0: success;
 * - `negative` 1: a negative answer — a verification that failed (`NOT VERIFIED`), or a memory,
 *   key or grant that does not exist (404 `not_found`);
 * - `usage` 2: bad or missing arguments or options, or an input file that cannot be read or is
 *   malformed (keypair, `--file`, import, bundle);
 * - `api` 3: the API answered with another error, gave no answer (network), or the chain could
 *   not be read (a verification whose result is unknown);
 * - `auth` 4: not signed in, or the credential was refused (401 `unauthorized`, an expired
 *   session, a revoked or expired key, 403 `insufficient_scope` / `session_required` /
 *   `forbidden`): run `svc login`, or use a key with the right scopes.
 */
export const EXIT = { ok: 0, negative: 1, usage: 2, api: 3, auth: 4 } as const;

/** One of the {@link EXIT} codes. */
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** What {@link CliError}'s constructor takes. */
export interface CliErrorInit {
  readonly code: string;
  readonly message: string;
  readonly exitCode: ExitCode;
  readonly details?: unknown;
  readonly cause?: unknown;
}

/** An error of the CLI itself (not an API answer), with its machine code and exit code. */
export class CliError extends Error {
  readonly code: string;
  readonly exitCode: ExitCode;
  readonly details: unknown;

  constructor(init: CliErrorInit) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = "CliError";
    this.code = init.code;
    this.exitCode = init.exitCode;
    this.details = init.details;
  }
}

/**
 * A usage error (exit 2): a bad argument, or an input file that cannot be read or parsed.
 * @param message one sentence naming the argument or file.
 */
export function usageError(message: string, details?: unknown): CliError {
  return new CliError({ code: "usage", message, exitCode: EXIT.usage, details });
}

/** The machine-readable form of an error, as printed with `--json` (inside `{ "error": … }`). */
export interface ErrorReport {
  readonly code: string;
  readonly message: string;
  /** The HTTP status of an API answer (0: no answer); absent for the CLI's own errors. */
  readonly status?: number;
  /** The API answer's `x-request-id`, to quote when reporting a problem. */
  readonly requestId?: string | null;
  readonly details?: unknown;
}

/** The HTTP statuses that are credential problems (exit 4). */
const AUTH_STATUSES = new Set([401, 403]);

/**
 * The exit code of an error: {@link CliError}'s own; for an `SvcError`, 1 for 404, 4 for
 * 401/403, 3 otherwise; 2 for a `TypeError` (an argument the SDK refused before calling); 3 for
 * anything else.
 */
export function exitCodeOf(error: unknown): ExitCode {
  if (error instanceof CliError) {
    return error.exitCode;
  }
  if (error instanceof SvcError) {
    if (error.status === 404) {
      return EXIT.negative;
    }
    return AUTH_STATUSES.has(error.status) ? EXIT.auth : EXIT.api;
  }
  if (error instanceof TypeError) {
    return EXIT.usage;
  }
  return EXIT.api;
}

/**
 * The innermost cause of an error (e.g. `connect ECONNREFUSED 127.0.0.1:8787` under fetch's
 * "fetch failed"), or null when it has none with a message of its own.
 */
function rootCause(error: Error): string | null {
  let current: unknown = error.cause;
  let found: string | null = null;
  for (let depth = 0; current instanceof Error && depth < 8; depth++) {
    if (current.message && !error.message.includes(current.message)) {
      found = current.message;
    }
    current = current.cause;
  }
  return found;
}

/** The {@link ErrorReport} of any thrown value. */
export function reportOf(error: unknown): ErrorReport {
  if (error instanceof SvcError) {
    const cause = error.code === "network_error" ? rootCause(error) : null;
    return {
      code: error.code,
      message: cause ? `${error.message} (${cause})` : error.message,
      status: error.status,
      requestId: error.requestId,
      ...(error.details === undefined ? {} : { details: error.details }),
    };
  }
  if (error instanceof CliError) {
    return {
      code: error.code,
      message: error.message,
      ...(error.details === undefined ? {} : { details: error.details }),
    };
  }
  if (error instanceof TypeError) {
    return { code: "usage", message: error.message };
  }
  return {
    code: "internal",
    message: error instanceof Error ? error.message : String(error),
  };
}

/** `["items", 3, "content"]` → `items[3].content`. */
function pathText(path: unknown): string {
  if (!Array.isArray(path)) {
    return "";
  }
  return path
    .map((part, i) =>
      typeof part === "number" ? `[${part}]` : `${i === 0 ? "" : "."}${String(part)}`,
    )
    .join("");
}

/** The `{ path, message }` validation details of an API error, as `path: message; …`. */
function detailsText(details: unknown): string {
  if (!Array.isArray(details)) {
    return "";
  }
  const parts = details
    .filter((d): d is { path?: unknown; message?: unknown } => typeof d === "object" && d !== null)
    .map((d) => {
      const where = pathText(d.path);
      const what = typeof d.message === "string" ? d.message : "";
      return where && what ? `${where}: ${what}` : where || what;
    })
    .filter((text) => text !== "");
  return parts.length > 0 ? ` (${parts.slice(0, 5).join("; ")})` : "";
}

/**
 * The one line printed for an error without `--json`, e.g.
 * `svc: memory not found [not_found, HTTP 404, request id 5f0c…]`.
 */
export function errorLine(error: unknown): string {
  const report = reportOf(error);
  const context: string[] = report.code === "usage" ? [] : [report.code];
  if (report.status !== undefined) {
    context.push(report.status === 0 ? "no answer" : `HTTP ${report.status}`);
  }
  if (report.requestId) {
    context.push(`request id ${report.requestId}`);
  }
  const suffix = context.length > 0 ? ` [${context.join(", ")}]` : "";
  const hint = report.status === 401 ? "; run `svc login` again" : "";
  return `svc: ${report.message}${detailsText(report.details)}${hint}${suffix}`.replace(
    /\s*\n\s*/g,
    " ",
  );
}
