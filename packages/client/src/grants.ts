/**
 * The capability-grant calls of the SDK client (`/agent-cases`, docs/protocol.md §8 "Capability
 * grants"): share one operation over memories through a URL.
 * @module
 */
import { paginate, type RawClient, requireString, unwrap } from "./calls.js";
import type {
  CreatedGrant,
  CreateGrantInput,
  Grant,
  GrantAttempt,
  GrantUse,
  Page,
  PageOptions,
} from "./types.js";

/** Capability grants (`/agent-cases`): share one operation over memories through a URL. */
export interface GrantCalls {
  /**
   * Creates a grant: `POST /agent-cases`.
   * @param input `{ operation: { type: "read_memories", memoryIds } | { type: "search", query,
   *   limit? }, expiresInSeconds?, maxUses?, label? }`.
   * @returns `{ id, url, token, operation, label, expiresAt, maxUses, usesRemaining, createdAt }`;
   *   `url` and `token` appear in this answer only.
   * @throws SvcError `not_found` (a memory that is not the caller's), `invalid_request`,
   *   `insufficient_scope`.
   */
  create(input: CreateGrantInput): Promise<CreatedGrant>;
  /** One page of the caller's grants, newest first: `GET /agent-cases`. @throws SvcError. */
  list(options?: PageOptions): Promise<Page<Grant>>;
  /** Every page of `GET /agent-cases`, fetched as you iterate. @throws SvcError. */
  listPages(options?: PageOptions): AsyncGenerator<Page<Grant>, void, undefined>;
  /**
   * Revokes a grant: `DELETE /agent-cases/:id`; its next use is 410 `grant_revoked`.
   * @throws SvcError `not_found`.
   */
  revoke(id: string): Promise<void>;
  /**
   * One page of the attempts to use a grant, newest first: `GET /agent-cases/:id/audit`.
   * @throws SvcError `not_found`.
   */
  audit(id: string, options?: PageOptions): Promise<Page<GrantAttempt>>;
  /**
   * Uses a grant, as its recipient: `GET /agent-cases/:token`, sent without this client's
   * credential. Counts one use.
   * @param tokenOrUrl the token, or the whole capability URL.
   * @returns `{ operation, expiresAt, usesRemaining, memories (each with its proof), omitted }`.
   * @throws SvcError `not_found` (unknown token), `grant_revoked`, `grant_expired`,
   *   `grant_exhausted` (410).
   */
  use(tokenOrUrl: string): Promise<GrantUse>;
}

/** The grant calls over `raw`. */
export function grantCalls(raw: RawClient): GrantCalls {
  const list = (opts: PageOptions = {}) =>
    unwrap(raw.GET("/agent-cases", { params: { query: opts } }));
  return {
    async create(input) {
      return unwrap(raw.POST("/agent-cases", { body: input }));
    },
    list,
    listPages(opts = {}) {
      return paginate((cursor) => list({ ...opts, cursor }), opts.cursor);
    },
    async revoke(id) {
      requireString(id, "id");
      await unwrap(raw.DELETE("/agent-cases/{grant}", { params: { path: { grant: id } } }));
    },
    async audit(id, opts = {}) {
      requireString(id, "id");
      return unwrap(raw.GET("/agent-cases/{id}/audit", { params: { path: { id }, query: opts } }));
    },
    async use(tokenOrUrl) {
      requireString(tokenOrUrl, "tokenOrUrl");
      return unwrap(
        raw.GET("/agent-cases/{grant}", { params: { path: { grant: grantToken(tokenOrUrl) } } }),
      );
    },
  };
}

/** The last path segment of a capability URL, or the token itself. */
function grantToken(tokenOrUrl: string): string {
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(tokenOrUrl)) {
    return tokenOrUrl;
  }
  const segments = new URL(tokenOrUrl).pathname.split("/").filter((s) => s !== "");
  return decodeURIComponent(segments.at(-1) ?? "");
}
