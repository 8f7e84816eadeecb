/**
 * The closed set of error codes of the core API and their HTTP statuses (CONTRACT §1, §2, §3),
 * mapped in exactly one place; one error handler renders `{ error: { code, message, details? } }`.
 * @module
 */
import { AuthError, type AuthErrorCode } from "@svc/auth";
import { ChainUnavailableError } from "@svc/chain-commit";
import { InvalidCursorError } from "@svc/db-schema";
import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { Logger } from "pino";

/** Every error code the core API emits. */
export type ErrorCode =
  | AuthErrorCode
  | "forbidden"
  | "session_required"
  | "not_found"
  | "conflict"
  | "gone"
  | "grant_expired"
  | "grant_exhausted"
  | "grant_revoked"
  | "nothing_matured"
  | "payload_too_large"
  | "unsupported_media_type"
  | "chain_unavailable"
  | "database_unavailable"
  | "migrations_pending"
  | "internal";

/** The HTTP status of each code. Exhaustive: a new code does not compile without one. */
export function codeToStatus(code: ErrorCode): ContentfulStatusCode {
  switch (code) {
    case "invalid_request":
    case "invalid_public_key":
    case "malformed_message":
      return 400;
    case "unauthorized":
    case "nonce_not_found":
    case "challenge_expired":
    case "message_mismatch":
    case "invalid_signature":
      return 401;
    case "forbidden":
    case "session_required":
      return 403;
    case "not_found":
      return 404;
    case "conflict":
    case "nothing_matured":
      return 409;
    case "gone":
    case "grant_expired":
    case "grant_exhausted":
    case "grant_revoked":
      return 410;
    case "payload_too_large":
      return 413;
    case "unsupported_media_type":
      return 415;
    case "chain_unavailable":
    case "database_unavailable":
    case "migrations_pending":
      return 503;
    case "internal":
      return 500;
  }
}

/** An error with its CONTRACT code, thrown by routes and services and rendered by onError. */
export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly details: unknown;

  constructor(code: ErrorCode, message: string, details?: unknown) {
    super(message);
    this.name = "ApiError";
    this.code = code;
    this.details = details;
  }
}

/** The JSON body of an error response. */
export function errorBody(code: ErrorCode, message: string, details?: unknown) {
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

/**
 * The one error handler: typed errors keep their code; HTTP exceptions from middleware (bad
 * JSON, body limit) map to their codes; anything else is logged (name, message, stack and code
 * only: {@link loggableError}) and answered with a generic 500 that names only the request id.
 */
export function handleError(logger: Logger) {
  return (err: Error, c: Context): Response => {
    const requestId = c.get("requestId") as string | undefined;
    if (err instanceof ApiError) {
      if (err.code === "payload_too_large") {
        // The rest of the body is not read: the connection cannot carry another request.
        c.header("connection", "close");
      }
      return c.json(errorBody(err.code, err.message, err.details), codeToStatus(err.code));
    }
    if (err instanceof AuthError) {
      return c.json(errorBody(err.code, err.message), codeToStatus(err.code));
    }
    if (err instanceof InvalidCursorError) {
      return c.json(
        errorBody("invalid_request", "invalid cursor", [
          { path: ["cursor"], message: "the cursor is not valid for this list" },
        ]),
        400,
      );
    }
    if (err instanceof ChainUnavailableError) {
      logger.warn({ requestId, err: { message: err.message } }, "chain unavailable");
      return c.json(errorBody("chain_unavailable", "the chain RPC is unavailable"), 503);
    }
    if (err instanceof HTTPException) {
      const code: ErrorCode =
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
function isDatabaseUnavailable(err: Error): boolean {
  const cause = err.cause instanceof Error ? err.cause : undefined;
  return [errorCode(err), errorCode(cause)].some(
    (code) => code !== undefined && UNAVAILABLE_CODES.has(code),
  );
}
