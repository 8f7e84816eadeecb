/**
 * The API edge of pagination cursors (docs/protocol.md §1.6 "Content limits and pagination"): a
 * route opens the `cursor` it receives before a query sees it and seals the `nextCursor` it
 * answers, under the key derived from `JWT_SECRET` (`@verifiable-memory/http-kit`'s cursor seal).
 * The queries' inner cursors never leave the process unsealed.
 * @module
 */
import { InvalidCursorError } from "@verifiable-memory/db-schema";
import { type CursorKey, cursorKey, openCursor, sealCursor } from "@verifiable-memory/http-kit";
import type { Config } from "./env.js";

const keys = new WeakMap<Config, CursorKey>();

function keyOf(config: Config): CursorKey {
  let key = keys.get(config);
  if (key === undefined) {
    key = cursorKey(config.jwtSecret);
    keys.set(config, key);
  }
  return key;
}

/**
 * The inner cursor of a `cursor` a client sent (undefined stays undefined: the first page).
 * @throws InvalidCursorError (`@verifiable-memory/db-schema`, answered 400 `invalid_request`) when
 *   the service did not issue it under this `JWT_SECRET`.
 */
export function openRequestCursor(config: Config, cursor: string | undefined): string | undefined {
  if (cursor === undefined) {
    return undefined;
  }
  const inner = openCursor(keyOf(config), cursor);
  if (inner === null) {
    throw new InvalidCursorError();
  }
  return inner;
}

/** `page` with its `nextCursor` sealed for the wire (null stays null: the last page). */
export function sealPageCursor<T extends { readonly nextCursor: string | null }>(
  config: Config,
  page: T,
): T {
  return {
    ...page,
    nextCursor: page.nextCursor === null ? null : sealCursor(keyOf(config), page.nextCursor),
  };
}
