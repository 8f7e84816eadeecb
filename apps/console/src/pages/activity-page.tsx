/**
 * Live activity: the caller's memory events (`GET /events`, Server-Sent Events) read with fetch
 * and a stream reader by the SDK, the credential in the Authorization header, never in a URL.
 * A dropped stream reconnects after a few seconds and resumes after the last event seen.
 * @module
 */
import type { MemoryEvent } from "@verifiable-memory/client";
import { type ReactNode, useEffect, useState } from "react";
import { Link } from "wouter";
import { useSession } from "../api/context.js";
import { ErrorNotice } from "../ui/error-notice.js";
import { short, when } from "../ui/format.js";

/** Events kept on screen, newest first. */
const KEEP = 200;
/** Wait before reconnecting a dropped stream, ms. */
const RECONNECT_MS = 3000;

/** One event in words. */
function EventLine(props: { readonly event: MemoryEvent }): ReactNode {
  const data = props.event.data as Record<string, string | number | null>;
  switch (props.event.type) {
    case "memory.created":
      return (
        <>
          <strong>Written</strong> <Link href={`/memories/${data.id}`}>memory</Link> at leaf{" "}
          {data.leafIndex}
          {data.namespace !== null && (
            <>
              {" "}
              in <code>{data.namespace}</code>
            </>
          )}
          {data.supersedes !== null && " (a new version)"}, {when(String(data.createdAt))}
        </>
      );
    case "memory.deleted":
      return (
        <>
          <strong>Deleted</strong> the memory at leaf {data.leafIndex}
        </>
      );
    case "memory.anchored":
      return (
        <>
          <strong>Anchored</strong> the log at size {data.treeSize}, transaction{" "}
          <code>{short(String(data.signature), 8)}</code>
        </>
      );
    default:
      return <>{props.event.type}</>;
  }
}

/** The page. */
export function ActivityPage(): ReactNode {
  const { client } = useSession();
  const [events, setEvents] = useState<MemoryEvent[]>([]);
  const [connected, setConnected] = useState(false);
  const [error, setError] = useState<unknown>(null);

  useEffect(() => {
    const stop = new AbortController();
    let lastEventId: string | undefined;
    const follow = async () => {
      while (!stop.signal.aborted) {
        try {
          setConnected(true);
          const stream = client.events({
            signal: stop.signal,
            ...(lastEventId === undefined ? {} : { lastEventId }),
          });
          for await (const event of stream) {
            lastEventId = event.id;
            setError(null);
            setEvents((current) => [event, ...current].slice(0, KEEP));
          }
        } catch (caught) {
          if (stop.signal.aborted) {
            return;
          }
          setError(caught);
        }
        if (stop.signal.aborted) {
          return;
        }
        setConnected(false);
        await new Promise((resolve) => setTimeout(resolve, RECONNECT_MS));
      }
    };
    void follow();
    return () => stop.abort();
  }, [client]);

  return (
    <section aria-labelledby="activity-title">
      <h1 id="activity-title">Live activity</h1>
      <p role="status">
        {connected ? "Connected: new events appear as they happen." : "Reconnecting…"}
      </p>
      {error !== null && <ErrorNotice error={error} />}
      {events.length === 0 ? (
        <p>No event since this page opened. Write or anchor a memory to see one.</p>
      ) : (
        <ol className="events" aria-live="polite" reversed>
          {events.map((event) => (
            <li key={event.id} data-event-type={event.type}>
              <EventLine event={event} />
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}
