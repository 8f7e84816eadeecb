/**
 * `svc watch`: follows the caller's memory events (`GET /events`, through `@verifiable-memory/client`'s
 * `events()`), one line per event, until interrupted (Ctrl-C ends it with exit status 0).
 * @module
 */
import type { MemoryEvent } from "@verifiable-memory/client";
import type { Command } from "commander";
import { writeTo } from "../output.js";
import { optionsOf, type Runtime } from "../runtime.js";
import { authedClient } from "../session.js";

interface WatchOptions {
  readonly namespace?: string;
  readonly prefix?: string;
  readonly since?: string;
}

/** One event as a line for a person. */
function eventLine(event: MemoryEvent): string {
  const d = event.data;
  switch (event.type) {
    case "memory.created":
      return `#${event.id} created ${d.id} leaf ${d.leafIndex}${d.namespace ? ` [${d.namespace}]` : ""}${d.supersedes ? ` supersedes ${d.supersedes}` : ""}`;
    case "memory.deleted":
      return `#${event.id} deleted ${d.id} leaf ${d.leafIndex}`;
    case "memory.anchored":
      return `#${event.id} anchored ${d.treeSize} leaves, root ${d.rootHash}, tx ${d.signature}`;
    default:
      return `#${event.id} ${event.type} ${JSON.stringify(d)}`;
  }
}

/**
 * Registers `svc watch [--namespace N] [--prefix P] [--since ID]`: with `--json`, one JSON object
 * `{ id, type, data }` per line (NDJSON). `--since` resumes after an event id (0: every event
 * still kept).
 */
export function registerWatchCommand(program: Command, rt: Runtime): void {
  program
    .command("watch")
    .description(
      "Follow memory events as they happen (GET /events): created, deleted, anchored; Ctrl-C stops",
    )
    .option("--namespace <namespace>", "only memory events of exactly this namespace")
    .option("--prefix <prefix>", "only memory events whose namespace starts with this")
    .option("--since <id>", "first replay the events after this event id (0: all kept)")
    .action(async (_options: object, command: Command) => {
      const options = optionsOf<WatchOptions>(command);
      const client = await authedClient(rt, options);
      const controller = new AbortController();
      const stop = () => controller.abort();
      process.once("SIGINT", stop);
      process.once("SIGTERM", stop);
      try {
        for await (const event of client.events({
          signal: controller.signal,
          ...(options.namespace ? { namespace: options.namespace } : {}),
          ...(options.prefix ? { namespacePrefix: options.prefix } : {}),
          ...(options.since ? { lastEventId: options.since } : {}),
        })) {
          await writeTo(
            rt.streams.stdout,
            `${options.json ? JSON.stringify(event) : eventLine(event)}\n`,
          );
        }
      } finally {
        process.off("SIGINT", stop);
        process.off("SIGTERM", stop);
      }
    });
}
