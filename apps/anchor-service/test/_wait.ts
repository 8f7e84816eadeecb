/**
 * Waiting on a condition instead of a fixed time, for the anchor service's tests.
 * @module
 */

/**
 * Polls `probe` every 50 ms until it gives something other than null or false, and returns it.
 * @throws Error naming `what` when `timeoutMs` (default 30 000) passes first.
 */
export async function waitFor<T>(
  what: string,
  probe: () => Promise<T | null | false>,
  timeoutMs = 30_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== null && value !== false) {
      return value;
    }
    if (Date.now() > deadline) {
      throw new Error(`timed out waiting for ${what}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
