/**
 * The harness of the `GET /events` tests: core-api instances with their own event hub, an SSE
 * reader as a client reads the stream (fetch, the body as text/event-stream), and the calls the
 * tests make.
 * @module
 */
import type { Server } from "node:http";
import { type AddressInfo, createServer } from "node:net";
import { serve } from "@hono/node-server";
import type { Database } from "@verifiable-memory/db-schema";
import type { SERVER_OPTIONS } from "@verifiable-memory/http-kit";
import { EventHub } from "@verifiable-memory/memory";
import pino from "pino";
import { expect } from "vitest";
import { createApp } from "../src/app.js";
import { loadConfig } from "../src/env.js";
import { postJson, TEST_ENV, TestClock, type TestUser } from "./helpers.js";

/** One core-api instance with its own event hub (and, for a second instance, its own pool). */
export interface EventsApp {
  readonly url: string;
  readonly db: Database;
  readonly hub: EventHub;
  close(): Promise<void>;
}

/** Starts core-api on `db` with its own event hub, served on a free port. */
export async function startEventsApp(
  db: Database,
  options: { heartbeatMs?: number; serverOptions?: typeof SERVER_OPTIONS } = {},
): Promise<EventsApp> {
  const hub = new EventHub({ db });
  const app = createApp({
    db,
    config: loadConfig(TEST_ENV),
    clock: new TestClock(),
    logger: pino({ level: "silent" }),
    events: hub,
    eventsHeartbeatMs: options.heartbeatMs ?? 60_000,
  });
  const server = serve({
    fetch: app.fetch,
    port: 0,
    hostname: "127.0.0.1",
    ...(options.serverOptions ? { serverOptions: options.serverOptions } : {}),
  }) as Server;
  await new Promise<void>((resolve) => server.once("listening", () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    db,
    hub,
    close: async () => {
      await hub.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** One message of an event stream: fields as sent, or a comment. */
export interface SseMessage {
  readonly id?: string;
  readonly event?: string;
  readonly data?: string;
  readonly retry?: string;
  readonly comment?: string;
}

/** A parsed event. */
export interface StreamEvent {
  readonly id: number;
  readonly event: string;
  readonly data: Record<string, unknown>;
}

/** A client's open event stream, parsed as the SSE spec reads it. */
export class EventStream {
  readonly #messages: SseMessage[] = [];
  #wake: (() => void) | null = null;
  #ended = false;
  readonly ended: Promise<void>;

  constructor(
    readonly response: Response,
    private readonly abort: AbortController,
  ) {
    this.ended = this.#pump();
  }

  async #pump(): Promise<void> {
    const reader = (this.response.body as ReadableStream<Uint8Array>)
      .pipeThrough(new TextDecoderStream())
      .getReader();
    let buffer = "";
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) {
          break;
        }
        buffer += value;
        for (let end = buffer.indexOf("\n\n"); end !== -1; end = buffer.indexOf("\n\n")) {
          this.#push(buffer.slice(0, end));
          buffer = buffer.slice(end + 2);
        }
      }
    } catch {
      // aborted by the test
    } finally {
      this.#ended = true;
      this.#wake?.();
    }
  }

  #push(block: string): void {
    const fields: Record<string, string> = {};
    for (const line of block.split("\n")) {
      if (line.startsWith(":")) {
        fields.comment = line.slice(1).trim();
        continue;
      }
      const colon = line.indexOf(":");
      const name = colon === -1 ? line : line.slice(0, colon);
      const value = colon === -1 ? "" : line.slice(colon + 1).replace(/^ /, "");
      fields[name] =
        name === "data" && fields.data !== undefined ? `${fields.data}\n${value}` : value;
    }
    this.#messages.push(fields);
    this.#wake?.();
  }

  /** The next message (comments included), or null when the stream ended or `ms` passed. */
  async nextMessage(ms = 10_000): Promise<SseMessage | null> {
    const deadline = Date.now() + ms;
    for (;;) {
      const message = this.#messages.shift();
      if (message) {
        return message;
      }
      if (this.#ended || Date.now() >= deadline) {
        return null;
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, deadline - Date.now());
        this.#wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.#wake = null;
    }
  }

  /** The next event (comments and the opening id-only message skipped), or null. */
  async nextEvent(ms = 10_000): Promise<StreamEvent | null> {
    const deadline = Date.now() + ms;
    for (;;) {
      const message = await this.nextMessage(Math.max(0, deadline - Date.now()));
      if (message === null) {
        return null;
      }
      if (message.event !== undefined && message.data !== undefined) {
        return {
          id: Number(message.id),
          event: message.event,
          data: JSON.parse(message.data) as Record<string, unknown>,
        };
      }
    }
  }

  /** The next `n` events; fails when they do not come within `ms`. */
  async events(n: number, ms = 10_000): Promise<StreamEvent[]> {
    const out: StreamEvent[] = [];
    while (out.length < n) {
      const event = await this.nextEvent(ms);
      expect(event, `event ${out.length + 1} of ${n}; got ${JSON.stringify(out)}`).not.toBeNull();
      out.push(event as StreamEvent);
    }
    return out;
  }

  close(): void {
    this.abort.abort();
  }
}

/** Every stream opened, so a file can close them all. */
const streams: EventStream[] = [];

/** Closes every stream {@link openEvents} opened. */
export function closeStreams(): void {
  for (const stream of streams) {
    stream.close();
  }
}

/** Opens `GET /events` as a client does and reads its opening message. */
export async function openEvents(
  url: string,
  headers: Record<string, string>,
  query = "",
): Promise<{ stream: EventStream; position: number }> {
  const abort = new AbortController();
  const response = await fetch(`${url}/events${query}`, {
    headers: { accept: "text/event-stream", ...headers },
    signal: abort.signal,
  });
  expect(response.status, await peekError(response)).toBe(200);
  const stream = new EventStream(response, abort);
  streams.push(stream);
  const opening = await stream.nextMessage();
  expect(opening?.retry).toBe("3000");
  expect(opening?.id).toMatch(/^\d+$/);
  return { stream, position: Number(opening?.id) };
}

/** The body of a failed response (empty for a 200), for assertion messages. */
export async function peekError(response: Response): Promise<string> {
  return response.status === 200 ? "" : await response.clone().text();
}

/** `POST /memories` for `user`; expects 201. */
export async function createMemory(
  url: string,
  user: Pick<TestUser, "headers">,
  body: Record<string, unknown> = {},
): Promise<{ id: string; leafIndex: number; createdAt: string; namespace: string | null }> {
  const res = await postJson(`${url}/memories`, { content: "a memory", ...body }, user.headers);
  expect(res.status, await res.clone().text()).toBe(201);
  return (await res.json()) as {
    id: string;
    leafIndex: number;
    createdAt: string;
    namespace: string | null;
  };
}

/** `DELETE /memories/:id` for `user`; expects 204. */
export async function deleteOne(url: string, user: Pick<TestUser, "headers">, id: string) {
  const res = await fetch(`${url}/memories/${id}`, { method: "DELETE", headers: user.headers });
  expect(res.status).toBe(204);
}

/** Mints an API key for `user`; its bearer header. */
export async function createKey(url: string, user: TestUser, body: Record<string, unknown>) {
  const res = await postJson(`${url}/keys`, { label: "agent", ...body }, user.headers);
  expect(res.status, await res.clone().text()).toBe(201);
  const { key } = (await res.json()) as { key: string };
  return { headers: { authorization: `Bearer ${key}` } };
}

/** A TCP port free right now on 127.0.0.1. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Resolves once `check` holds, polling every 25 ms; throws after `ms`. */
export async function until(check: () => boolean | Promise<boolean>, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) {
      throw new Error("condition not met in time");
    }
    await new Promise((r) => setTimeout(r, 25));
  }
}
