/**
 * A bounded-concurrency map that keeps the input order.
 * @module
 */

/**
 * Maps `items` through `fn` with at most `concurrency` calls in flight, handing each result to
 * `onResult` in input order as soon as it and every earlier one are done (so results can be
 * streamed in order). Rejects with the first error; calls already started are awaited first.
 */
export async function orderedPool<In, Out>(
  items: readonly In[],
  concurrency: number,
  fn: (item: In, index: number) => Promise<Out>,
  onResult: (result: Out, index: number) => Promise<void> | void,
): Promise<void> {
  const results = new Map<number, Out>();
  let next = 0;
  let emitted = 0;
  let failure: { error: unknown } | null = null;
  let emitting = Promise.resolve();

  const emitReady = async (): Promise<void> => {
    while (results.has(emitted)) {
      const result = results.get(emitted) as Out;
      results.delete(emitted);
      await onResult(result, emitted);
      emitted += 1;
    }
  };

  const worker = async (): Promise<void> => {
    while (failure === null && next < items.length) {
      const index = next;
      next += 1;
      try {
        results.set(index, await fn(items[index] as In, index));
        emitting = emitting.then(emitReady);
        await emitting;
      } catch (error) {
        failure ??= { error };
      }
    }
  };

  await Promise.all(
    Array.from({ length: Math.max(1, Math.min(concurrency, items.length)) }, worker),
  );
  if (failure !== null) {
    throw (failure as { error: unknown }).error;
  }
}
