/**
 * `GET /events` for the SDK (docs/protocol.md §4.8): a Server-Sent Events reader over fetch's
 * streaming body, as an async iterator of typed events. Browser-safe (fetch, TextDecoder,
 * ReadableStream only). Parsing follows the HTML Standard's event stream interpretation
 * (§9.2.6): `field: value` lines, a blank line dispatches, `:` starts a comment.
 * @module
 */
import { SvcError } from "./errors.js";
import type { RequestFetch } from "./http.js";

/** The events the API sends. */
export type MemoryEventType = "memory.created" | "memory.deleted" | "memory.anchored";

/** One event of the stream. */
export interface MemoryEvent {
  /** The event id: pass it as `lastEventId` to resume after it. */
  readonly id: string;
  readonly type: MemoryEventType;
  /**
   * `memory.created`: `{ id, leafIndex, namespace, createdAt, supersedes }`;
   * `memory.deleted`: `{ id, leafIndex, namespace }`;
   * `memory.anchored`: `{ treeSize, rootHash, signature }`.
   */
  readonly data: Record<string, unknown>;
}

/** What `client.events()` takes. */
export interface EventStreamOptions {
  /** Replay the events after this id first (what the last event you processed carried). */
  readonly lastEventId?: string;
  /** Only memory events of exactly this namespace (`memory.anchored` always comes). */
  readonly namespace?: string;
  /** Only memory events whose namespace starts with this. */
  readonly namespacePrefix?: string;
  /** Ends the stream (the iterator returns). */
  readonly signal?: AbortSignal;
}

/**
 * The events of an event stream body, in order. Messages without an `event` field (the opening
 * `id:` line) and comments (heartbeats) are skipped; `data` is parsed as JSON.
 * @throws SyntaxError when a message's data is not JSON.
 */
export async function* parseEventStream(
  body: ReadableStream<Uint8Array>,
): AsyncGenerator<MemoryEvent> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  let id = "";
  let type = "";
  let data: string[] = [];
  try {
    for (;;) {
      const { value, done } = await reader.read();
      buffer += done ? decoder.decode() : decoder.decode(value, { stream: true });
      let newline = buffer.search(/\r\n|\r|\n/);
      while (newline !== -1) {
        const line = buffer.slice(0, newline);
        buffer = buffer.slice(newline + (buffer.startsWith("\r\n", newline) ? 2 : 1));
        if (line === "") {
          if (type !== "" && data.length > 0) {
            yield {
              id,
              type: type as MemoryEventType,
              data: JSON.parse(data.join("\n")) as Record<string, unknown>,
            };
          }
          type = "";
          data = [];
        } else if (!line.startsWith(":")) {
          const colon = line.indexOf(":");
          const field = colon === -1 ? line : line.slice(0, colon);
          const raw = colon === -1 ? "" : line.slice(colon + 1);
          const text = raw.startsWith(" ") ? raw.slice(1) : raw;
          if (field === "id") {
            id = text;
          } else if (field === "event") {
            type = text;
          } else if (field === "data") {
            data.push(text);
          }
        }
        newline = buffer.search(/\r\n|\r|\n/);
      }
      if (done) {
        return;
      }
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
}

/** Where {@link streamEvents} connects: the API's base URL, the fetch and the current credential. */
export interface EventConnection {
  readonly baseUrl: string;
  readonly transport: RequestFetch;
  /** The bearer credential at the time of the call, or null (anonymous). */
  readonly bearer: () => string | null;
}

/**
 * Follows the caller's memory events: `GET /events` (docs/protocol.md §4.8 "Events"), its body
 * read with {@link parseEventStream}. Ends when the server closes the stream or `options.signal`
 * aborts.
 * @throws SvcError for an error answer or no answer; SyntaxError from parseEventStream.
 */
export async function* streamEvents(
  connection: EventConnection,
  options: EventStreamOptions = {},
): AsyncGenerator<MemoryEvent> {
  const bearer = connection.bearer();
  const url = new URL(`${connection.baseUrl}/events`);
  for (const key of ["namespace", "namespacePrefix"] as const) {
    const value = options[key];
    if (value !== undefined) {
      url.searchParams.set(key, value);
    }
  }
  const headers: Record<string, string> = { accept: "text/event-stream" };
  if (bearer !== null) {
    headers.authorization = `Bearer ${bearer}`;
  }
  if (options.lastEventId !== undefined) {
    headers["last-event-id"] = options.lastEventId;
  }
  let response: Response;
  try {
    response = await connection.transport(
      new Request(url, {
        headers,
        ...(options.signal ? { signal: options.signal } : {}),
      }),
    );
  } catch (error) {
    if (options.signal?.aborted) {
      return;
    }
    throw SvcError.network(error);
  }
  if (!response.ok || response.body === null) {
    const text = await response.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {}
    throw SvcError.fromResponse(response, body);
  }
  try {
    yield* parseEventStream(response.body);
  } catch (error) {
    if (!options.signal?.aborted) {
      throw error;
    }
  }
}
