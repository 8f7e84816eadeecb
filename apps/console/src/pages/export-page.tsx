/**
 * Export: every memory (current and superseded versions) with its proof bundle, as one JSON file
 * to keep or to check later with `svc-verify`. One `GET /memories` per 200 memories and one
 * `GET /memories/:id/proof` per memory, four at a time; a 429 waits the time the service names
 * and goes on. Each bundle carries the memory's content, so `svc-verify` checks it too.
 * @module
 */
import { type Memory, SvcError, unwrap } from "@verifiable-memory/client";
import { type ReactNode, useRef, useState } from "react";
import { useSession } from "../api/context.js";
import { ErrorNotice } from "../ui/error-notice.js";

/** Parallel proof requests. */
const CONCURRENCY = 4;

/** Runs `call`, waiting out 429 answers (their `retryAfterSeconds`), until `signal` aborts. */
async function patiently<T>(
  call: () => Promise<T>,
  signal: AbortSignal,
  onWait: (seconds: number) => void,
): Promise<T> {
  for (;;) {
    try {
      return await call();
    } catch (error) {
      if (!(error instanceof SvcError) || error.code !== "rate_limited" || signal.aborted) {
        throw error;
      }
      const seconds =
        (error.details as { retryAfterSeconds?: number } | undefined)?.retryAfterSeconds ?? 5;
      onWait(seconds);
      await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
    }
  }
}

/** The page. */
export function ExportPage(): ReactNode {
  const { client, session, info, endpoints } = useSession();
  const [progress, setProgress] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [running, setRunning] = useState(false);
  const stop = useRef<AbortController | null>(null);

  const start = async () => {
    const controller = new AbortController();
    stop.current = controller;
    setRunning(true);
    setError(null);
    const onWait = (seconds: number) =>
      setProgress(`The service asks to slow down: waiting ${seconds} s…`);
    try {
      const memories: Memory[] = [];
      let cursor: string | null = null;
      do {
        const page = await patiently(
          () =>
            unwrap(
              client.raw.GET("/memories", {
                params: {
                  query: {
                    limit: 200,
                    includeSuperseded: "true",
                    ...(cursor === null ? {} : { cursor }),
                  },
                },
              }),
            ),
          controller.signal,
          onWait,
        );
        memories.push(...page.items);
        cursor = page.nextCursor;
        setProgress(`Listed ${memories.length} memories…`);
      } while (cursor !== null && !controller.signal.aborted);
      const exported: unknown[] = new Array(memories.length);
      let next = 0;
      let done = 0;
      const worker = async () => {
        while (next < memories.length && !controller.signal.aborted) {
          const index = next++;
          const memory = memories[index] as Memory;
          const proof = await patiently(() => client.prove(memory.id), controller.signal, onWait);
          exported[index] = { ...memory, proof: { ...proof, content: memory.content } };
          done += 1;
          if (done % 20 === 0 || done === memories.length) {
            setProgress(`Fetched ${done} of ${memories.length} proofs…`);
          }
        }
      };
      await Promise.all(Array.from({ length: CONCURRENCY }, worker));
      if (controller.signal.aborted) {
        setProgress("Stopped.");
        return;
      }
      const file = {
        exportedAt: new Date().toISOString(),
        api: endpoints.apiUrl,
        owner: session.publicKey,
        service: info,
        log: await client.log.get(),
        memories: exported,
      };
      const url = URL.createObjectURL(
        new Blob([JSON.stringify(file, null, 2)], { type: "application/json" }),
      );
      const anchor = document.createElement("a");
      anchor.href = url;
      anchor.download = `memories-${new Date().toISOString().slice(0, 10)}.json`;
      anchor.click();
      setTimeout(() => URL.revokeObjectURL(url), 60_000);
      setProgress(`Exported ${memories.length} memories with their proofs.`);
    } catch (caught) {
      setError(caught);
      setProgress(null);
    } finally {
      setRunning(false);
    }
  };

  return (
    <section aria-labelledby="export-title">
      <h1 id="export-title">Export</h1>
      <p>
        One JSON file with every memory, current and superseded, each with its proof bundle and
        content. Any bundle in it can be checked with <code>svc-verify</code>, against the chain,
        without this service (give <code>--api</code> for bundles older than the latest anchor). It
        takes one request per memory, so a large log takes a while under the rate limit.
      </p>
      <div className="row">
        <button type="button" onClick={() => void start()} disabled={running} aria-busy={running}>
          Export all memories with proofs
        </button>
        {running && (
          <button type="button" className="secondary" onClick={() => stop.current?.abort()}>
            Stop
          </button>
        )}
      </div>
      {progress !== null && <p role="status">{progress}</p>}
      {error !== null && <ErrorNotice error={error} />}
    </section>
  );
}
