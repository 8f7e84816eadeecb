/**
 * The API-key calls of the SDK client (`/keys`, docs/protocol.md §3.2 "API keys"): all of them
 * need a wallet session, not an API key.
 * @module
 */
import { paginate, type RawClient, requireString, unwrap } from "./calls.js";
import type { ApiKey, CreatedApiKey, CreateKeyInput, Page, PageOptions } from "./types.js";

/** API keys (`/keys`): all three calls need a wallet session, not an API key. */
export interface KeyCalls {
  /**
   * Mints an API key: `POST /keys`. The raw `key` is in this answer only.
   * @param input a label (1–100 characters), or `{ label, scopes?, expiresAt?, namespace? }`.
   * @returns `{ id, key, prefix, label, createdAt, scopes, expiresAt, namespace }`.
   * @throws SvcError `session_required` (called with an API key), `invalid_request`.
   */
  create(input: string | CreateKeyInput): Promise<CreatedApiKey>;
  /**
   * One page of the caller's keys, newest first, revoked ones included: `GET /keys`.
   * @throws SvcError `session_required`, `invalid_request`.
   */
  list(options?: PageOptions): Promise<Page<ApiKey>>;
  /** Every page of `GET /keys`, fetched as you iterate. @throws SvcError as {@link list}. */
  listPages(options?: PageOptions): AsyncGenerator<Page<ApiKey>, void, undefined>;
  /**
   * Revokes a key: `DELETE /keys/:id`, effective on the next request made with it. Revoking a
   * revoked key succeeds again.
   * @throws SvcError `not_found` (unknown or another user's), `session_required`.
   */
  revoke(id: string): Promise<void>;
}

/** The API-key calls over `raw`. */
export function keyCalls(raw: RawClient): KeyCalls {
  const list = (opts: PageOptions = {}) => unwrap(raw.GET("/keys", { params: { query: opts } }));
  return {
    async create(input) {
      const body = typeof input === "string" ? { label: input } : input;
      return unwrap(raw.POST("/keys", { body }));
    },
    list,
    listPages(opts = {}) {
      return paginate((cursor) => list({ ...opts, cursor }), opts.cursor);
    },
    async revoke(id) {
      requireString(id, "id");
      await unwrap(raw.DELETE("/keys/{id}", { params: { path: { id } } }));
    },
  };
}
