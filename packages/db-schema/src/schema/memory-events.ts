/**
 * `memory_events`: the feed behind `GET /events` (docs/protocol.md §4.8 "Events"). Rows are written
 * by database triggers (migration 0003) in the transaction of the change itself: `memory.created`
 * per inserted memory, `memory.deleted` per destroyed body, `memory.anchored` per confirmed
 * checkpoint; each statement also sends `NOTIFY memory_events` with the user id, so every core-api
 * instance wakes. The id is the SSE event id (`Last-Event-ID` resumes after it). Nothing secret is
 * kept: ids, leaf indices, namespaces, tree sizes, roots and signatures.
 * @module
 */
import { bigint, index, jsonb, pgTable, text } from "drizzle-orm/pg-core";
import { timestampMs } from "./_columns.js";
import { users } from "./users.js";

/** Event types of the feed. */
export const MEMORY_EVENT_TYPES = ["memory.created", "memory.deleted", "memory.anchored"] as const;
/** One event type. */
export type MemoryEventType = (typeof MEMORY_EVENT_TYPES)[number];

/** One event of a user's feed. */
export const memoryEvents = pgTable(
  "memory_events",
  {
    id: bigint({ mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    userId: text()
      .notNull()
      .references(() => users.id),
    type: text().$type<MemoryEventType>().notNull(),
    /** The memory's namespace (memory events only), for confined readers. */
    namespace: text(),
    /** The event's fields, as `GET /events` sends them. */
    data: jsonb().$type<Record<string, unknown>>().notNull(),
    at: timestampMs().notNull().defaultNow(),
  },
  (t) => [index("memory_events_user_id_idx").on(t.userId, t.id)],
);

/** A row of `memory_events`. */
export type MemoryEventRow = typeof memoryEvents.$inferSelect;
