/**
 * Retries with exponential backoff and full jitter ("Exponential Backoff And Jitter", AWS
 * Architecture Blog, 2015): try n waits a random time in [0, min(cap, base · 2ⁿ)], or what the
 * server's `Retry-After` asks (RFC 9110 §10.2.3), capped the same way.
 * @module
 */

/** How often and how long to wait. */
export interface RetryPolicy {
  /** Retries after the first try. */
  readonly retries: number;
  /** The first wait's bound, ms. */
  readonly baseMs: number;
  /** No wait is longer, ms. */
  readonly capMs: number;
}

/** What one try says: done, or retry (after `retryAfterMs` when the server named a wait). */
export type Attempt<T> =
  | { readonly done: true; readonly value: T }
  | { readonly done: false; readonly error: Error; readonly retryAfterMs?: number | undefined };

/**
 * Runs `attempt` until it is done or the retries are spent.
 * @returns the value of the first try that is done.
 * @throws the last try's error once the retries are spent, or what `attempt` throws (not retried).
 */
export async function withRetries<T>(
  policy: RetryPolicy,
  attempt: (n: number) => Promise<Attempt<T>>,
): Promise<T> {
  for (let n = 0; ; n++) {
    const result = await attempt(n);
    if (result.done) {
      return result.value;
    }
    if (n >= policy.retries) {
      throw result.error;
    }
    const bound = Math.min(policy.capMs, policy.baseMs * 2 ** n);
    const wait =
      result.retryAfterMs === undefined
        ? Math.random() * bound
        : Math.min(policy.capMs, result.retryAfterMs);
    await new Promise((resolve) => setTimeout(resolve, wait));
  }
}

/**
 * A `Retry-After` header in ms: delay-seconds, or an HTTP date (RFC 9110 §10.2.3); undefined when
 * absent or unreadable.
 */
export function retryAfterMs(header: string | null, now: number): number | undefined {
  if (header === null) {
    return undefined;
  }
  if (/^\d+$/.test(header.trim())) {
    return Number(header.trim()) * 1000;
  }
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}
