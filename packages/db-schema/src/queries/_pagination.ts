/**
 * Opaque keyset cursors for the cursor-paginated lists (docs/protocol.md §1.6 "Content limits and
 * pagination"; newest first).
 * @module
 */
import { InvalidCursorError } from "../errors.js";

/** A page of a list: the items and the cursor of the next page (null on the last page). */
export interface Page<T> {
  readonly items: T[];
  readonly nextCursor: string | null;
}

/** Options of a paginated list query. */
export interface PageOptions {
  /** Page size, an integer in [1, 1000]; default 50. */
  readonly limit?: number;
  /** The `nextCursor` of the previous page; omitted for the first page. */
  readonly cursor?: string | null;
}

/** Largest page a query function accepts (the API caps lower, at 200). */
export const MAX_PAGE_LIMIT = 1000;

/** Validates `limit` (default 50) and returns it. */
export function pageLimit(limit: number | undefined): number {
  const value = limit ?? 50;
  if (!Number.isInteger(value) || value < 1 || value > MAX_PAGE_LIMIT) {
    throw new RangeError(`limit must be an integer in [1, ${MAX_PAGE_LIMIT}], got ${value}`);
  }
  return value;
}

/** Encodes a (createdAt, id) position as an opaque cursor tagged with the list's `kind`. */
export function encodeTimeCursor(kind: string, createdAt: Date, id: string): string {
  return Buffer.from(JSON.stringify([kind, createdAt.toISOString(), id])).toString("base64url");
}

/**
 * Decodes a cursor of {@link encodeTimeCursor} for list `kind`.
 * @throws InvalidCursorError when it was not issued for this list.
 */
export function decodeTimeCursor(kind: string, cursor: string): { createdAt: Date; id: string } {
  const parsed = parseCursor(cursor);
  const [k, iso, id] = parsed;
  if (parsed.length !== 3 || k !== kind || typeof iso !== "string" || typeof id !== "string") {
    throw new InvalidCursorError();
  }
  const createdAt = new Date(iso);
  if (Number.isNaN(createdAt.getTime())) {
    throw new InvalidCursorError();
  }
  return { createdAt, id };
}

/** Encodes an integer position (a leaf index or an audit id) as a cursor of list `kind`. */
export function encodeNumberCursor(kind: string, position: number): string {
  return Buffer.from(JSON.stringify([kind, position])).toString("base64url");
}

/**
 * Decodes a cursor of {@link encodeNumberCursor} for list `kind`.
 * @throws InvalidCursorError when it was not issued for this list.
 */
export function decodeNumberCursor(kind: string, cursor: string): number {
  const parsed = parseCursor(cursor);
  const [k, position] = parsed;
  if (parsed.length !== 2 || k !== kind || !Number.isSafeInteger(position)) {
    throw new InvalidCursorError();
  }
  return position as number;
}

/** Encodes a text position (a name, or null for the unnamed group) as a cursor of list `kind`. */
export function encodeTextCursor(kind: string, position: string | null): string {
  return Buffer.from(JSON.stringify([kind, position])).toString("base64url");
}

/**
 * Decodes a cursor of {@link encodeTextCursor} for list `kind`.
 * @throws InvalidCursorError when it was not issued for this list.
 */
export function decodeTextCursor(kind: string, cursor: string): string | null {
  const parsed = parseCursor(cursor);
  const [k, position] = parsed;
  if (parsed.length !== 2 || k !== kind || (position !== null && typeof position !== "string")) {
    throw new InvalidCursorError();
  }
  return position;
}

/** Splits `limit + 1` fetched rows into a page, building the next cursor from the last item. */
export function toPage<T>(rows: T[], limit: number, cursorOf: (last: T) => string): Page<T> {
  if (rows.length <= limit) {
    return { items: rows, nextCursor: null };
  }
  const items = rows.slice(0, limit);
  return { items, nextCursor: cursorOf(items[items.length - 1] as T) };
}

function parseCursor(cursor: string): unknown[] {
  if (typeof cursor !== "string" || !/^[A-Za-z0-9_-]{1,512}$/.test(cursor)) {
    throw new InvalidCursorError();
  }
  try {
    const parsed: unknown = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
    if (Array.isArray(parsed)) {
      return parsed;
    }
  } catch {
    // Falls through to the typed error below.
  }
  throw new InvalidCursorError();
}
