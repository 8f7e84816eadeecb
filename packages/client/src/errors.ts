/**
 * `SvcError`: the one error class the SDK throws for a failed call. Browser-safe.
 * @module
 */
import type { CreatedMemory } from "./types.js";

/** The response header every core-api answer carries (docs/protocol.md §1.5). */
export const REQUEST_ID_HEADER = "x-request-id";

/**
 * Codes the SDK itself uses when there is no error answer from the API to read:
 * - `network_error`: the request never got an HTTP answer (connection refused or reset, DNS,
 *   TLS…), after the retries the call allows; `status` is 0.
 * - `unexpected_response`: an answer that is not the API's error shape (e.g. a proxy's HTML
 *   page), or a success whose body is not the JSON the API promises.
 */
export type ClientErrorCode = "network_error" | "unexpected_response";

/** What {@link SvcError}'s constructor takes. */
export interface SvcErrorInit {
  readonly code: string;
  readonly message: string;
  readonly status: number;
  readonly requestId: string | null;
  readonly details?: unknown;
  readonly cause?: unknown;
  readonly batch?: BatchProgress;
}

/**
 * Where `rememberMany` stopped: it sends its items in chunks, each stored all or nothing, so when
 * one chunk fails the chunks before it are stored.
 */
export interface BatchProgress {
  /**
   * Index (in the items given to `rememberMany`) of the failed chunk's first item: an
   * `invalid_request` detail path `["items", i, …]` names item `offset + i`.
   */
  readonly offset: number;
  /** The memories stored by the chunks before it, in order. */
  readonly stored: readonly CreatedMemory[];
}

/**
 * A call failed. Every non-2xx answer of the API becomes one of these, carrying the API's error
 * object (docs/protocol.md §1.3: `{ error: { code, message, details? } }`):
 *
 * - `code`: the stable snake_case code to branch on (`invalid_request`, `unauthorized`,
 *   `not_found`, `rate_limited`, `chain_unavailable`…, docs/protocol.md §1.4), or one of the SDK's
 *   own {@link ClientErrorCode}s;
 * - `status`: the HTTP status (0 when there was no answer);
 * - `requestId`: the answer's `x-request-id`, to quote when reporting a problem (null when there
 *   was no answer);
 * - `details`: the API's `details` when present (for `invalid_request`, the list of
 *   `{ path, message }`), else undefined;
 * - `message`: the API's human sentence (it may change; branch on `code`).
 */
export class SvcError extends Error {
  readonly code: string;
  readonly status: number;
  readonly requestId: string | null;
  readonly details: unknown;
  /** Set only on errors thrown by `rememberMany`: what was stored before the failure. */
  readonly batch: BatchProgress | undefined;

  constructor(init: SvcErrorInit) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = "SvcError";
    this.code = init.code;
    this.status = init.status;
    this.requestId = init.requestId;
    this.details = init.details;
    this.batch = init.batch;
  }

  /** This error with `rememberMany`'s progress attached. */
  withBatch(batch: BatchProgress): SvcError {
    return new SvcError({
      code: this.code,
      message: this.message,
      status: this.status,
      requestId: this.requestId,
      details: this.details,
      cause: this.cause,
      batch,
    });
  }

  /**
   * The error for a non-2xx answer whose body was already read (`body`: parsed JSON, the raw text
   * when it was not JSON, or undefined for an empty body).
   */
  static fromResponse(response: Response, body: unknown): SvcError {
    const requestId = response.headers.get(REQUEST_ID_HEADER);
    const error = (body as { error?: unknown } | null | undefined)?.error as
      | { code?: unknown; message?: unknown; details?: unknown }
      | undefined;
    if (error && typeof error.code === "string" && typeof error.message === "string") {
      return new SvcError({
        code: error.code,
        message: error.message,
        status: response.status,
        requestId,
        details: error.details,
      });
    }
    const text = typeof body === "string" ? body.slice(0, 200) : undefined;
    return new SvcError({
      code: "unexpected_response",
      message: `HTTP ${response.status} without the API's error body`,
      status: response.status,
      requestId,
      details: text === undefined || text === "" ? undefined : { body: text },
    });
  }

  /** The error for a request that got no answer (after its retries). */
  static network(cause: unknown): SvcError {
    const reason = cause instanceof Error ? cause.message : String(cause);
    return new SvcError({
      code: "network_error",
      message: `the request got no answer: ${reason}`,
      status: 0,
      requestId: null,
      cause,
    });
  }
}
