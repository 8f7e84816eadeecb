/**
 * The error shape of both APIs (docs/protocol.md §1): `{ error: { code, message, details? } }`, one
 * error class routes and middleware throw, what of an error may be logged, and the one error
 * handler. Each app keeps its own closed code union and its `codeToStatus` (one place, over
 * status.ts `BASE_STATUS`).
 * @module
 */
import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { Logger } from "pino";

/** The codes this package itself emits; every app's code union includes them. */
export type BaseErrorCode =
  | "invalid_request"
  | "payload_too_large"
  | "unsupported_media_type"
  | "rate_limited"
  | "database_unavailable"
  | "migrations_pending"
  | "internal";

/** An error with its protocol error code (docs/protocol.md §1), thrown by routes and middleware and rendered by the handler. */
export class ApiError<C extends string = string> extends Error {
  readonly code: C;
  readonly details: unknown;

  constructor(code: C, message: string, details?: unknown) {
    super(message);
    this.name = "ApiError";
    this.code = code;
    this.details = details;
  }
}

/** The JSON body of an error response. */
export function errorBody<C extends string>(code: C, message: string, details?: unknown) {
  return { error: { code, message, ...(details === undefined ? {} : { details }) } };
}

/** The fields of an error that may be logged. */
export interface LoggedError {
  readonly name: string;
  readonly message: string;
  readonly stack?: string;
  readonly code?: string | number;
}

/**
 * What the logs keep of an error: its name, message, stack frames and code, nothing else. Errors
 * can carry request bodies, query parameters, tokens or decrypted content in other properties
 * (postgres.js `parameters`, drizzle's `params`, a `cause` chain), so the raw object is never
 * handed to the logger. Drizzle's DrizzleQueryError writes the bound parameters into its message
 * ("Failed query: …\nparams: …"): for it only the SQL text is kept, with the driver error's name,
 * message and code. The stack keeps only its `at …` frames (its first line repeats the message).
 */
export function loggableError(err: unknown): LoggedError {
  if (!(err instanceof Error)) {
    // A thrown non-Error value is not echoed: it could be anything, a token included.
    return { name: "NonError", message: `a ${typeof err} was thrown` };
  }
  const frames = stackFrames(err);
  const query = (err as { query?: unknown }).query;
  if (typeof query === "string" && "params" in err && err.message.startsWith("Failed query:")) {
    const cause = err.cause instanceof Error ? err.cause : undefined;
    const causeCode = errorCode(cause);
    return {
      name: "DrizzleQueryError",
      message: `Failed query: ${query}${cause ? ` (${cause.name}: ${cause.message})` : ""}`,
      ...(frames === undefined ? {} : { stack: frames }),
      ...(causeCode === undefined ? {} : { code: causeCode }),
    };
  }
  const code = errorCode(err);
  return {
    name: err.name,
    message: err.message,
    ...(frames === undefined ? {} : { stack: frames }),
    ...(code === undefined ? {} : { code }),
  };
}

function errorCode(err: Error | undefined): string | number | undefined {
  const code = (err as { code?: unknown } | undefined)?.code;
  return typeof code === "string" || typeof code === "number" ? code : undefined;
}

function stackFrames(err: Error): string | undefined {
  if (typeof err.stack !== "string") {
    return undefined;
  }
  const frames = err.stack.split("\n").filter((line) => /^\s+at /.test(line));
  return frames.length > 0 ? frames.join("\n") : undefined;
}

/** postgres.js and server codes of a database that cannot serve the request right now. */
const UNAVAILABLE_CODES: ReadonlySet<string | number> = new Set([
  "ECONNREFUSED",
  "CONNECTION_CLOSED",
  "CONNECTION_ENDED",
  "CONNECTION_DESTROYED",
  "CONNECT_TIMEOUT",
  "57P01", // admin_shutdown
  "57P03", // cannot_connect_now
]);

/** A lost or refused database connection, bare or wrapped by drizzle (its `cause`). */
export function isDatabaseUnavailable(err: Error): boolean {
  const cause = err.cause instanceof Error ? err.cause : undefined;
  return [errorCode(err), errorCode(cause)].some(
    (code) => code !== undefined && UNAVAILABLE_CODES.has(code),
  );
}

/** Options of {@link createErrorHandler}. */
export interface ErrorHandlerOptions<C extends string> {
  readonly logger: Logger;
  /** The app's one mapping of its codes to HTTP statuses. */
  readonly codeToStatus: (code: C | BaseErrorCode) => ContentfulStatusCode;
  /**
   * Turns the app's typed domain errors (auth, memory, chain…) into ApiErrors; undefined for an
   * error it does not know. A translated error answered with a 5xx is logged at warn level.
   */
  readonly translate?: (err: Error) => ApiError<C | BaseErrorCode> | undefined;
}

/**
 * The one error handler of an app: ApiErrors (thrown or translated from domain errors) keep their
 * code; HTTP exceptions from middleware (bad JSON, body limit) map to their codes; a lost database
 * is 503 `database_unavailable`; anything else is logged (name, message, stack and code only:
 * {@link loggableError}) and answered with a generic 500 that names only the request id.
 */
export function createErrorHandler<C extends string>(options: ErrorHandlerOptions<C>) {
  const { logger, codeToStatus } = options;
  return (err: Error, c: Context): Response => {
    const requestId = c.get("requestId") as string | undefined;
    const api =
      err instanceof ApiError
        ? (err as ApiError<C | BaseErrorCode>)
        : (options.translate?.(err) ?? undefined);
    if (api) {
      const status = codeToStatus(api.code);
      if (api.code === "payload_too_large") {
        // The rest of the body is not read: the connection cannot carry another request.
        c.header("connection", "close");
      }
      if (status >= 500 && api !== err) {
        logger.warn({ requestId, code: api.code, err: { message: err.message } }, api.message);
      }
      return c.json(errorBody(api.code, api.message, api.details), status);
    }
    if (err instanceof HTTPException) {
      const code: BaseErrorCode =
        err.status === 413
          ? "payload_too_large"
          : err.status === 415
            ? "unsupported_media_type"
            : "invalid_request";
      const message = code === "invalid_request" ? "malformed request body" : err.message;
      return c.json(errorBody(code, message), codeToStatus(code));
    }
    if (isDatabaseUnavailable(err)) {
      logger.error({ requestId, err: loggableError(err) }, "database unavailable");
      return c.json(errorBody("database_unavailable", "the database is unavailable"), 503);
    }
    logger.error({ requestId, err: loggableError(err) }, "unhandled error");
    return c.json(
      errorBody("internal", `internal error (request id ${requestId ?? "unknown"})`),
      500,
    );
  };
}
