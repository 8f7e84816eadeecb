/**
 * The transport under openapi-fetch: retries with exponential backoff and jitter, and the bearer
 * credential. Browser-safe (fetch, Request, AbortSignal, timers only).
 * @module
 */
import type { Middleware } from "openapi-fetch";
import { SvcError } from "./errors.js";

/** How a client retries (see {@link retryingFetch}). */
export interface RetryOptions {
  /** Retries after the first attempt; default 3 (so at most 4 attempts). 0 disables retrying. */
  readonly retries?: number;
  /** Backoff before the first retry, ms; doubled each retry; default 250. */
  readonly baseDelayMs?: number;
  /** Cap of one backoff, ms; default 8 000. */
  readonly maxDelayMs?: number;
  /**
   * Longest `Retry-After` the client waits, ms; default 60 000. An answer asking for more is not
   * retried: it is thrown as its `SvcError` (`rate_limited`, …) at once.
   */
  readonly maxRetryAfterMs?: number;
  /** Called before each wait (logging, metrics). Must not throw. */
  readonly onRetry?: (event: RetryEvent) => void;
}

/** What {@link RetryOptions.onRetry} receives. */
export interface RetryEvent {
  /** 1 for the first retry. */
  readonly attempt: number;
  /** How long the client waits before it, ms. */
  readonly delayMs: number;
  readonly method: string;
  readonly url: string;
  /** The answer's status (429 or 503), or null after a network error. */
  readonly status: number | null;
  /** The network error, when there was no answer. */
  readonly error?: unknown;
}

/** Methods whose calls are retried: the idempotent ones. POST never is. */
export const RETRIED_METHODS: ReadonlySet<string> = new Set([
  "GET",
  "HEAD",
  "OPTIONS",
  "PUT",
  "DELETE",
]);

/** Statuses that are retried: 429 `rate_limited` and 503 (`chain_unavailable`, `database_unavailable`…). */
export const RETRIED_STATUSES: ReadonlySet<number> = new Set([429, 503]);

/** A fetch as openapi-fetch calls it: a Request, plus undici's optional extension object. */
export type RequestFetch = (request: Request, init?: Record<string, unknown>) => Promise<Response>;

/**
 * The delay `Retry-After` asks for, ms: delta-seconds or an HTTP date (RFC 9110 §10.2.3); null
 * when absent or unreadable.
 */
export function retryAfterMs(header: string | null, now = Date.now()): number | null {
  if (header === null) {
    return null;
  }
  const text = header.trim();
  if (/^\d+$/.test(text)) {
    return Number(text) * 1000;
  }
  const at = Date.parse(text);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

/**
 * The backoff before retry number `attempt + 1`: exponential (`base · 2^attempt`, capped at
 * `max`) with "equal jitter" (a uniformly random point in its upper half), so clients that failed
 * together do not come back together.
 */
export function backoffMs(
  attempt: number,
  base: number,
  max: number,
  random = Math.random,
): number {
  const cap = Math.min(max, base * 2 ** attempt);
  return cap / 2 + random() * (cap / 2);
}

/** Resolves after `ms`; rejects with the signal's reason when it aborts first. */
function sleep(ms: number, signal: AbortSignal | null): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/**
 * Wraps `base` so that calls of an idempotent method ({@link RETRIED_METHODS}) are retried on a
 * 429 or 503 answer and on a network error, waiting an exponential backoff with jitter, and at
 * least what `Retry-After` asks (up to `maxRetryAfterMs`). POST is never retried: a lost answer
 * could hide a stored write. After the last attempt the last answer is returned as is; a request
 * that never got an answer throws `SvcError` `network_error` (the caller's own abort is rethrown
 * unchanged).
 *
 * Note on DELETE and PUT: the API treats a repeated `DELETE /memories/:id` as 404 and a repeated
 * `PUT /memories/:id` as 409 `conflict`, so a retry after a *lost answer* (not after 429/503,
 * which store nothing) can surface those codes although the first attempt succeeded.
 */
export function retryingFetch(base: RequestFetch, options: RetryOptions | false): RequestFetch {
  const retries = options === false ? 0 : (options.retries ?? 3);
  if (!Number.isInteger(retries) || retries < 0) {
    throw new TypeError(`retry.retries must be a non-negative integer, got ${retries}`);
  }
  const baseDelay = options === false ? 0 : (options.baseDelayMs ?? 250);
  const maxDelay = options === false ? 0 : (options.maxDelayMs ?? 8_000);
  const maxRetryAfter = options === false ? 0 : (options.maxRetryAfterMs ?? 60_000);
  const onRetry = options === false ? undefined : options.onRetry;

  return async (request, init) => {
    const allowed = RETRIED_METHODS.has(request.method.toUpperCase()) ? retries : 0;
    for (let attempt = 0; ; attempt++) {
      const last = attempt >= allowed;
      // Keep the original unread while another attempt may follow (a body can be read once).
      const current = last ? request : request.clone();
      let response: Response;
      try {
        response = await base(current, init);
      } catch (error) {
        if (request.signal?.aborted) {
          throw error;
        }
        if (last) {
          throw SvcError.network(error);
        }
        const delayMs = backoffMs(attempt, baseDelay, maxDelay);
        onRetry?.({
          attempt: attempt + 1,
          delayMs,
          method: request.method,
          url: request.url,
          status: null,
          error,
        });
        await sleep(delayMs, request.signal);
        continue;
      }
      if (last || !RETRIED_STATUSES.has(response.status)) {
        return response;
      }
      const asked = retryAfterMs(response.headers.get("retry-after"));
      if (asked !== null && asked > maxRetryAfter) {
        return response;
      }
      const delayMs = Math.max(asked ?? 0, backoffMs(attempt, baseDelay, maxDelay));
      await response.body?.cancel().catch(() => {});
      onRetry?.({
        attempt: attempt + 1,
        delayMs,
        method: request.method,
        url: request.url,
        status: response.status,
      });
      await sleep(delayMs, request.signal);
    }
  };
}

/**
 * Operations that take no credential: the client never sends its bearer to them (a grant's
 * token, sign-in, service facts, health).
 */
const PUBLIC_OPERATIONS: ReadonlySet<string> = new Set([
  "POST /auth/challenge",
  "POST /auth/verify",
  "GET /agent-cases/{grant}",
  "GET /info",
  "GET /healthz",
  "GET /readyz",
]);

/**
 * openapi-fetch middleware that adds `Authorization: Bearer <credential>` to every request of an
 * authenticated operation, reading the credential at each request (so a sign-in applies to the
 * next call), unless the caller set an Authorization header itself.
 */
export function bearerMiddleware(credential: () => string | null): Middleware {
  return {
    onRequest({ request, schemaPath }) {
      const bearer = credential();
      if (
        bearer === null ||
        request.headers.has("authorization") ||
        PUBLIC_OPERATIONS.has(`${request.method.toUpperCase()} ${schemaPath}`)
      ) {
        return undefined;
      }
      request.headers.set("authorization", `Bearer ${bearer}`);
      return undefined;
    },
  };
}
