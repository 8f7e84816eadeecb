/**
 * `GET /events` (docs/protocol.md §4.8 "Events"; docs/api.md "Events"): the caller's memory events
 * as Server-Sent Events — `memory.created`, `memory.deleted`, `memory.anchored` — so agents need
 * not poll. Resumable with `Last-Event-ID`; confined like every read of an API key with a
 * namespace.
 *
 * The stream is long-lived by design. The Node server's request timeout does not cut it: that
 * timeout bounds how long the request (headers and body) takes to *arrive*, and a GET has no body,
 * so it stops applying once the headers are in; the server has no response or idle-socket
 * timeout. Proxies are kept from buffering (`Cache-Control: no-cache`, `X-Accel-Buffering: no`)
 * and from timing the connection out (a comment every `eventsHeartbeatMs`). On shutdown the
 * process closes its event hub, which ends every stream (clients reconnect with `Last-Event-ID`).
 * @module
 */

import { createRoute, z } from "@hono/zod-openapi";
import {
  errorResponse,
  rateLimitedResponse,
  unauthorizedResponse,
} from "@verifiable-memory/http-kit";
import { EventHub, NamespaceSchema } from "@verifiable-memory/memory";
import { queryInteger } from "@verifiable-memory/memory-schemas";
import { streamSSE } from "hono/streaming";
import type { App, AppDeps, Services } from "../../context.js";
import { ApiError } from "../../errors.js";
import { requireAuth, requireScopes } from "../../middleware/bearer.js";
import { bearerSecurity } from "../../schemas.js";

/** Default milliseconds between two heartbeat comments. */
export const EVENTS_HEARTBEAT_MS = 15_000;

/** Milliseconds an EventSource waits before reconnecting (the stream's `retry:` field). */
const RECONNECT_MS = 3000;

/** An event id as a client sends it back: a strict query integer (docs/protocol.md §1.2). */
const EventIdSchema = queryInteger(0, Number.MAX_SAFE_INTEGER).openapi({
  type: "string",
  pattern: "^(0|[1-9][0-9]*)$",
  example: "1042",
});

const EVENT_STREAM_DESCRIPTION = [
  "A `text/event-stream` (Server-Sent Events) that stays open. It starts with `retry: 3000` and",
  "`id: <position>` (no data: it only sets the client's last event id), then one message per event",
  "in ascending id order: `event: <type>`, `data: <JSON>`, `id: <event id>`, where `memory.created`",
  "carries `{ id, leafIndex, namespace, createdAt, supersedes }`, `memory.deleted`",
  "`{ id, leafIndex, namespace }` and `memory.anchored` `{ treeSize, rootHash, signature }`.",
  "A comment line (`: heartbeat`) comes every 15 s.",
].join(" ");

/** Registers `GET /events`. */
export function registerGetEvents(app: App, deps: AppDeps, _services: Services): void {
  const hub = deps.events ?? new EventHub({ db: deps.db, logger: deps.logger });
  const heartbeatMs = deps.eventsHeartbeatMs ?? EVENTS_HEARTBEAT_MS;
  const maxStreams = deps.config.sseMaxStreamsPerCredential;
  /** Open streams of this process by credential (as the rate limits key credentials). */
  const openStreams = new Map<string, number>();
  const release = (credential: string) => {
    const left = (openStreams.get(credential) ?? 1) - 1;
    if (left <= 0) {
      openStreams.delete(credential);
    } else {
      openStreams.set(credential, left);
    }
  };
  const route = createRoute({
    method: "get",
    path: "/events",
    operationId: "streamEvents",
    tags: ["events"],
    summary: "Stream the caller's memory events (Server-Sent Events), resumable",
    description:
      "Without `Last-Event-ID` the stream carries only events after the latest one; with it, the " +
      "events after that id are replayed first. An API key confined to a namespace gets only the " +
      "memory events under its prefix, plus every `memory.anchored` event (the log is one tree " +
      "per wallet). `namespace` / `namespacePrefix` narrow the memory events further; a filter " +
      "outside the confinement matches none of them. Events are kept 7 days.",
    security: bearerSecurity,
    middleware: [requireAuth(deps), requireScopes("memories:read")] as const,
    request: {
      query: z.strictObject({
        namespace: NamespaceSchema.optional().openapi({
          description: "only memory events of exactly this namespace",
        }),
        namespacePrefix: NamespaceSchema.optional().openapi({
          description: "only memory events whose namespace starts with this",
        }),
        lastEventId: EventIdSchema.optional().openapi({
          description: "resume after this event id (the `Last-Event-ID` header wins over it)",
        }),
      }),
      headers: z.object({
        "last-event-id": EventIdSchema.optional().openapi({
          description: "resume after this event id (sent by EventSource when it reconnects)",
        }),
      }),
    },
    responses: {
      200: {
        description: EVENT_STREAM_DESCRIPTION,
        content: {
          "text/event-stream": {
            schema: z.string().openapi({
              example:
                'event: memory.created\ndata: {"id":"32d7c180-…","leafIndex":7,' +
                '"namespace":"agent:a/run:1","createdAt":"2026-11-24T00:33:58.747Z",' +
                '"supersedes":null}\nid: 1042\n\n',
            }),
          },
        },
      },
      400: errorResponse("invalid_request: a bad filter or event id"),
      401: unauthorizedResponse(),
      403: errorResponse("insufficient_scope: the API key lacks memories:read"),
      429: rateLimitedResponse(
        "rate_limited: too many requests with this credential; too_many_streams: the credential already holds SSE_MAX_STREAMS_PER_CREDENTIAL streams",
      ),
    },
  });
  app.openapi(route, async (c) => {
    const query = c.req.valid("query");
    const resumeFrom = c.req.valid("header")["last-event-id"] ?? query.lastEventId;
    const auth = c.var.auth;
    const credential = auth.apiKeyId === null ? `user:${auth.userId}` : `api_key:${auth.apiKeyId}`;
    const holding = openStreams.get(credential) ?? 0;
    if (holding >= maxStreams) {
      throw new ApiError(
        "too_many_streams",
        `this credential already holds ${holding} event streams, the most allowed`,
        { limit: maxStreams },
      );
    }
    openStreams.set(credential, holding + 1);
    let feed: Awaited<ReturnType<typeof hub.open>>;
    try {
      feed = await hub.open({
        userId: auth.userId,
        afterId: resumeFrom ?? null,
        filter: {
          namespace: query.namespace,
          namespacePrefix: query.namespacePrefix,
          confinedTo: auth.namespace,
        },
      });
    } catch (error) {
      release(credential);
      throw error;
    }
    c.header("X-Accel-Buffering", "no");
    const response = streamSSE(c, async (stream) => {
      stream.onAbort(() => feed.close());
      const heartbeat = setInterval(() => {
        void stream.write(": heartbeat\n\n");
      }, heartbeatMs);
      try {
        await stream.write(`retry: ${RECONNECT_MS}\nid: ${feed.position}\n\n`);
        for await (const event of feed) {
          await stream.writeSSE({
            id: String(event.id),
            event: event.type,
            data: JSON.stringify(event.data),
          });
        }
      } catch (error) {
        // A failed read ends the stream; the client resumes from the last id it got.
        deps.logger.warn({ err: error, userId: auth.userId }, "event stream ended by an error");
      } finally {
        clearInterval(heartbeat);
        feed.close();
        release(credential);
      }
    });
    // No keep-alive after a stream: when it ends (shutdown, error) the connection goes too, so a
    // closing server is not held open by an idle socket.
    response.headers.set("Connection", "close");
    return response;
  });
}
