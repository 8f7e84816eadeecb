/**
 * Draining on shutdown: counts the requests the app is handling, so that `main` can wait for them
 * to finish before it closes the database. (`server.close()` only stops accepting connections: its
 * callback can fire while a request whose body is still arriving is being handled.)
 * @module
 */

/** A fetch handler wrapped with a count of the requests in flight. */
export interface InFlightTracker<F> {
  /** The wrapped handler: pass it to `serve({ fetch })`. */
  readonly fetch: F;
  /** Requests being handled right now. */
  count(): number;
  /**
   * Resolves true once no request is in flight, or false when `timeoutMs` passes first.
   * @param timeoutMs milliseconds to wait at most.
   */
  idle(timeoutMs: number): Promise<boolean>;
}

/** Wraps `fetch(request, ...rest)` so that its calls in progress are counted. */
export function trackInFlight<A extends unknown[], R>(
  fetch: (request: Request, ...rest: A) => R | Promise<R>,
): InFlightTracker<(request: Request, ...rest: A) => Promise<R>> {
  let inFlight = 0;
  const waiters = new Set<() => void>();
  return {
    fetch: async (request, ...rest) => {
      inFlight++;
      try {
        return await fetch(request, ...rest);
      } finally {
        inFlight--;
        if (inFlight === 0) {
          for (const wake of waiters) {
            wake();
          }
        }
      }
    },
    count: () => inFlight,
    idle: (timeoutMs) =>
      new Promise<boolean>((resolve) => {
        if (inFlight === 0) {
          resolve(true);
          return;
        }
        const done = (drained: boolean) => {
          clearTimeout(timer);
          waiters.delete(wake);
          resolve(drained);
        };
        const wake = () => done(true);
        const timer = setTimeout(() => done(false), timeoutMs);
        waiters.add(wake);
      }),
  };
}
