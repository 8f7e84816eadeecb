/**
 * `createClient`: the typed SDK over core-api. The HTTP layer is openapi-fetch over the types
 * generated from core-api's OpenAPI document; this module adds sign-in, the credential, retries,
 * one error class and the high-level calls. Browser-safe: no node:* import on this path (chain
 * verification lives in `@verifiable-memory/client/verify`).
 * @module
 */

import bs58 from "bs58";
import createFetchClient, { type Client } from "openapi-fetch";
import { SvcError } from "./errors.js";
import { type EventStreamOptions, type MemoryEvent, parseEventStream } from "./events.js";
import type { paths } from "./generated/core-api.js";
import { bearerMiddleware, type RequestFetch, type RetryOptions, retryingFetch } from "./http.js";
import {
  assertSignInMessage,
  type KeypairLike,
  keypairSigner,
  type MessageSigner,
  type SecretKeyInput,
  type SignInWallet,
  type StandardWalletAccount,
  walletSigner,
} from "./signing.js";
import type {
  ApiKey,
  BatchItem,
  ConsistencyProof,
  CreatedApiKey,
  CreatedGrant,
  CreatedMemory,
  CreateGrantInput,
  CreateKeyInput,
  Grant,
  GrantAttempt,
  GrantUse,
  ListOptions,
  LogHead,
  Memory,
  MemoryPage,
  MemoryWithProof,
  Metadata,
  Page,
  PageOptions,
  ProofBundle,
  QueryParams,
  RecallOptions,
  RememberOptions,
  SearchResult,
  ServerVerifyResult,
  ServiceInfo,
  Session,
  UpdateOptions,
} from "./types.js";

/** The typed openapi-fetch client over core-api's `paths`. */
export type RawClient = Client<paths>;

/** The most items `POST /memories/batch` takes (docs/protocol.md §4.1). */
export const BATCH_MAX_ITEMS = 256;
/** The body limit of `POST /memories/batch`, bytes (docs/protocol.md §1.6). */
export const BATCH_MAX_BODY_BYTES = 1_048_576;

/** Options of {@link createClient}. */
export interface ClientOptions {
  /** The core API's base URL, e.g. `https://memory.example.com` or `http://localhost:8787`. */
  readonly baseUrl: string;
  /** An API key (`svc_…`) to authenticate with. Not together with `token`. */
  readonly apiKey?: string;
  /** A session JWT (from an earlier sign-in) to authenticate with. Not together with `apiKey`. */
  readonly token?: string;
  /** The fetch to use; default the global `fetch`. */
  readonly fetch?: (input: Request, init?: RequestInit) => Promise<Response>;
  /**
   * Retry policy for idempotent calls (GET, PUT, DELETE) on 429, 503 and network errors; `false`
   * never retries. Default: 3 retries, backoff 250 ms doubling up to 8 s, with jitter, honouring
   * `Retry-After` up to 60 s. POST is never retried.
   */
  readonly retry?: RetryOptions | false;
  /**
   * Headers sent with every request, e.g. `{ "x-request-id": "job-42" }` to find a call in the
   * service's logs (the API keeps a plain id of 1–128 `[A-Za-z0-9._:-]` and echoes it).
   */
  readonly headers?: Readonly<Record<string, string>>;
}

/** Options of {@link SvcClient.signInWithWallet}. */
export interface WalletSignInOptions {
  /** The Wallet Standard account to sign in with (or its address); default the first one. */
  readonly account?: StandardWalletAccount | string;
}

/** Options of {@link SvcClient.rememberMany}. */
export interface RememberManyOptions {
  /** Items per request, 1 to {@link BATCH_MAX_ITEMS} (the default). */
  readonly chunkSize?: number;
}

/**
 * The SDK client. Every method that calls the API throws {@link SvcError} for a non-2xx answer
 * (`code`, `status`, `requestId`, `details`) and for a request that got no answer
 * (`network_error`), and `TypeError` for arguments it refuses before calling.
 */
export interface SvcClient {
  /** The base URL the client calls, without a trailing slash. */
  readonly baseUrl: string;
  /**
   * The typed openapi-fetch client, for any route the high-level methods do not cover (e.g.
   * staking). It shares this client's credential, retries and fetch; it returns openapi-fetch's
   * `{ data, error, response }` instead of throwing — pass its promise to {@link unwrap} to get
   * `data` or an `SvcError`.
   * @example const position = await unwrap(client.raw.GET("/staking"));
   */
  readonly raw: RawClient;
  /** The session of the last successful sign-in through this client, else null. */
  readonly session: Session | null;

  /** Authenticates the following calls with a session JWT (null: none). Clears {@link session}. */
  setToken(token: string | null): void;
  /** Authenticates the following calls with an API key `svc_…` (null: none). Clears {@link session}. */
  setApiKey(apiKey: string | null): void;
  /** Drops the credential: the following calls are anonymous. */
  signOut(): void;

  /**
   * Signs in with an ed25519 secret key, for agents and scripts: `POST /auth/challenge`, checks
   * the answer is a Sign-In-With-Solana message for this key (it never signs other bytes), signs
   * it, `POST /auth/verify`, and keeps the session JWT (valid 1 hour; sign in again after).
   * @param keypair 64 bytes `seed ‖ public key` (Solana CLI keypair file contents, web3.js
   *   `Keypair.secretKey`), the 32-byte seed, or a `{ publicKey, secretKey }` object such as a
   *   web3.js `Keypair`.
   * @returns the session `{ token, tokenType, expiresAt, userId, publicKey }`.
   * @throws TypeError for a malformed or inconsistent key, or a challenge that is not a sign-in
   *   message for it.
   * @throws SvcError from either call (`invalid_public_key`, `challenge_expired`,
   *   `invalid_signature`, `rate_limited`…).
   */
  signInWithKeypair(keypair: SecretKeyInput | KeypairLike): Promise<Session>;
  /**
   * Signs in with a browser wallet: a Wallet Standard wallet with `solana:signMessage`
   * (connecting first when it has no account), or a wallet-adapter-style
   * `{ publicKey, signMessage(bytes) }`. Same flow and result as {@link signInWithKeypair}; the
   * wallet shows the user the sign-in text.
   * @throws TypeError when the wallet cannot sign messages or has no account.
   * @throws whatever the wallet throws when the user refuses.
   * @throws SvcError from the API calls.
   */
  signInWithWallet(wallet: SignInWallet, options?: WalletSignInOptions): Promise<Session>;

  /** `GET /info` (no credential): the cluster, program id and anchoring authority to pin. */
  info(): Promise<ServiceInfo>;

  /**
   * Stores a memory: `POST /memories`. Content is 1 to 32 768 UTF-8 bytes; metadata a JSON object
   * of at most 4 096 canonical bytes.
   * @param options further fields of the body, e.g. `{ namespace }`.
   * @returns the created memory `{ id, leafIndex, leafHash, metadata, namespace, writtenBy,
   *   createdAt, anchored: false, … }` (no content).
   * @throws SvcError `invalid_request` (details list the fields), `unauthorized`,
   *   `insufficient_scope`, `forbidden` (outside a key's namespace), `payload_too_large`.
   */
  remember(content: string, metadata?: Metadata, options?: RememberOptions): Promise<CreatedMemory>;
  /**
   * Stores many memories: `POST /memories/batch` in chunks of at most 256 items and 1 MiB, each
   * chunk all-or-nothing at contiguous leaf indices. An empty list stores nothing and makes no
   * call.
   * @returns the created memories, in the order given.
   * @throws SvcError of the first failing chunk, with `batch: { offset, stored }`: the chunks
   *   before it are stored (`stored`), and an `invalid_request` detail path `["items", i, …]` names
   *   item `offset + i`.
   */
  rememberMany(
    items: readonly BatchItem[],
    options?: RememberManyOptions,
  ): Promise<CreatedMemory[]>;
  /**
   * Recalls memories: `POST /memories/search`. Substring match (case-insensitive by default),
   * newest first, or BM25 with `rank: "relevance"`; filters on metadata, namespace and time.
   * @param query the text to find; may be undefined when a filter is given.
   * @param options `limit` (1–200, default 20), `caseSensitive`, `metadata`, `namespace`,
   *   `namespacePrefix`, `createdAfter`, `createdBefore`, `rank`, `includeSuperseded`, `cursor`.
   * @returns `{ items, scanned, nextCursor }`.
   * @throws SvcError `invalid_request`, `unauthorized`, `insufficient_scope`.
   */
  recall(query: string | undefined, options?: RecallOptions): Promise<SearchResult>;
  /**
   * One page of the caller's memories, newest first: `GET /memories`.
   * @param options `limit` (1–200, default 50), `cursor` (a previous `nextCursor`), `namespace`,
   *   `namespacePrefix`, `includeSuperseded` (boolean or "true"/"false").
   * @returns `{ items, nextCursor }` (`nextCursor` null on the last page).
   * @throws SvcError `invalid_request` (e.g. a cursor from another list), `unauthorized`.
   */
  list(options?: ListOptions): Promise<MemoryPage>;
  /**
   * Every page of `GET /memories` from `options.cursor` on, fetched as you iterate.
   * @example for await (const page of client.listPages({ limit: 100 })) console.log(page.items.length);
   * @throws SvcError as {@link list}, from the iteration step that failed.
   */
  listPages(options?: ListOptions): AsyncGenerator<MemoryPage, void, undefined>;
  /**
   * Every memory of `GET /memories`, page after page, newest first.
   * @example for await (const memory of client.listAll()) console.log(memory.content);
   * @throws SvcError as {@link list}.
   */
  listAll(options?: ListOptions): AsyncGenerator<Memory, void, undefined>;
  /**
   * Reads one memory: `GET /memories/:id`.
   * @returns `{ id, leafIndex, leafHash, content, metadata, namespace, writtenBy, supersedes,
   *   supersededBy, createdAt, anchored }`.
   * @throws SvcError `not_found` (unknown, deleted, another user's, outside a key's namespace),
   *   `invalid_request` (a malformed id), `unauthorized`.
   */
  get(id: string): Promise<Memory>;
  /**
   * Writes a new version of a memory: `PUT /memories/:id`. The old version stays readable and
   * provable; the new one's leaf commits `supersedes: id`.
   * @returns the new version (`supersedes` = `id`).
   * @throws SvcError `not_found`, `conflict` (`id` deleted or already superseded; also what a
   *   retry sees when the first attempt's answer was lost), `invalid_request`.
   */
  update(
    id: string,
    content: string,
    metadata?: Metadata,
    options?: UpdateOptions,
  ): Promise<CreatedMemory>;
  /**
   * Every live version of a memory, oldest first, each with its proof: `GET /memories/:id/history`.
   * @throws SvcError `not_found`, `unauthorized`.
   */
  history(id: string): Promise<MemoryWithProof[]>;
  /**
   * Deletes a memory's content: `DELETE /memories/:id`. The leaf stays in the log (deletion is
   * detectable, not hidden); the memory is 404 afterwards.
   * @throws SvcError `not_found` (also on a second delete), `insufficient_scope`.
   */
  forget(id: string): Promise<void>;
  /**
   * The memory's proof bundle at the latest anchored checkpoint: `GET /memories/:id/proof`.
   * Not yet anchored: `anchored: false` with `checkpoint`, `inclusionProof`, `anchor` null.
   * Check it against the chain with `verify` / `verifyProof` from `@verifiable-memory/client/verify`.
   * @throws SvcError `not_found`, `unauthorized`.
   */
  prove(id: string): Promise<ProofBundle>;
  /**
   * The server's own check of a memory against the chain: `GET /memories/:id/verify`. This
   * trusts the API for what it read; for a check that does not, use `verify` from
   * `@verifiable-memory/client/verify`.
   * @returns `{ verified, reason, checkedAgainst }`.
   * @throws SvcError `not_found`, `chain_unavailable` (503, retried).
   */
  verifyOnServer(id: string): Promise<ServerVerifyResult>;

  /**
   * Follows the caller's memory events: `GET /events` (Server-Sent Events), so an agent learns of
   * new, deleted and anchored memories without polling. The iterator ends when the server closes
   * the stream or `options.signal` aborts; resume with the last event's `id` as `lastEventId`.
   * @throws SvcError for an error answer (`unauthorized`, `insufficient_scope`, …) or no answer.
   * @example for await (const event of client.events()) console.log(event.type, event.data);
   */
  events(options?: EventStreamOptions): AsyncGenerator<MemoryEvent>;

  /** API keys (`/keys`): all three calls need a wallet session, not an API key. */
  readonly keys: {
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
  };

  /** Capability grants (`/agent-cases`): share one operation over memories through a URL. */
  readonly grants: {
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
  };

  /** The caller's Merkle log. */
  readonly log: {
    /**
     * The tree head and the latest anchored checkpoint: `GET /log` →
     * `{ treeSize, rootHash, anchored: { treeSize, rootHash, nonce, signature } | null }`.
     * @throws SvcError `unauthorized`, `insufficient_scope`.
     */
    get(): Promise<LogHead>;
    /**
     * An RFC 9162 consistency proof between two tree sizes: `GET /log/consistency`
     * (`1 ≤ from ≤ to ≤ treeSize`) → `{ from, to, fromRoot, toRoot, proof }`. Check it with
     * `verifyConsistency` of `@verifiable-memory/merkle-log` against the root *you* kept.
     * @throws SvcError `invalid_request` (a range outside the tree).
     */
    consistency(from: number, to: number): Promise<ConsistencyProof>;
  };
}

/**
 * Awaits an openapi-fetch call and returns its `data`, or throws.
 * @throws SvcError for a non-2xx answer (from its body and `x-request-id`), `network_error`
 *   when there was no answer, `unexpected_response` when a success's body is not JSON.
 */
export async function unwrap<Data>(
  pending: Promise<{ data?: Data; error?: unknown; response: Response }>,
): Promise<Data> {
  let result: { data?: Data; error?: unknown; response: Response };
  try {
    result = await pending;
  } catch (error) {
    if (error instanceof SyntaxError) {
      throw new SvcError({
        code: "unexpected_response",
        message: `the answer's body is not JSON: ${error.message}`,
        status: 0,
        requestId: null,
        cause: error,
      });
    }
    throw error;
  }
  if (!result.response.ok) {
    throw SvcError.fromResponse(result.response, result.error);
  }
  return result.data as Data;
}

/** Pages from `start` on, following `nextCursor` until it is null. */
async function* paginate<Item>(
  fetchPage: (cursor: string | undefined) => Promise<Page<Item>>,
  start: string | undefined,
): AsyncGenerator<Page<Item>, void, undefined> {
  let cursor = start;
  do {
    const page = await fetchPage(cursor);
    yield page;
    cursor = page.nextCursor ?? undefined;
  } while (cursor !== undefined);
}

/** Items split into request bodies within both batch limits (count and bytes). */
function chunkBatch(items: readonly BatchItem[], maxItems: number): BatchItem[][] {
  const encoder = new TextEncoder();
  const envelope = encoder.encode('{"items":[]}').length;
  const chunks: BatchItem[][] = [];
  let current: BatchItem[] = [];
  let bytes = envelope;
  for (const item of items) {
    const size = encoder.encode(JSON.stringify(item)).length;
    const separator = current.length > 0 ? 1 : 0;
    if (
      current.length > 0 &&
      (current.length >= maxItems || bytes + separator + size > BATCH_MAX_BODY_BYTES)
    ) {
      chunks.push(current);
      current = [];
      bytes = envelope;
    }
    bytes += (current.length > 0 ? 1 : 0) + size;
    current.push(item);
  }
  if (current.length > 0) {
    chunks.push(current);
  }
  return chunks;
}

/** The last path segment of a capability URL, or the token itself. */
function grantToken(tokenOrUrl: string): string {
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(tokenOrUrl)) {
    return tokenOrUrl;
  }
  const segments = new URL(tokenOrUrl).pathname.split("/").filter((s) => s !== "");
  return decodeURIComponent(segments.at(-1) ?? "");
}

/** @throws TypeError when `value` is not a string. */
function requireString(value: unknown, name: string): asserts value is string {
  if (typeof value !== "string") {
    throw new TypeError(`${name} must be a string`);
  }
}

/**
 * Creates an SDK client for core-api.
 * @example
 * const client = createClient({ baseUrl: "http://localhost:8787" });
 * await client.signInWithKeypair(secretKey);
 * const { id } = await client.remember("The user prefers French.", { topic: "prefs" });
 * @throws TypeError when `baseUrl` is not an absolute http(s) URL, when both `apiKey` and
 *   `token` are given, or when `retry` is malformed.
 */
export function createClient(options: ClientOptions): SvcClient {
  let base: URL;
  try {
    base = new URL(options.baseUrl);
  } catch {
    throw new TypeError(`baseUrl must be an absolute URL, got ${JSON.stringify(options.baseUrl)}`);
  }
  if (base.protocol !== "http:" && base.protocol !== "https:") {
    throw new TypeError("baseUrl must be an http: or https: URL");
  }
  if (options.apiKey !== undefined && options.token !== undefined) {
    throw new TypeError("give apiKey or token, not both");
  }
  const baseUrl = options.baseUrl.replace(/\/+$/, "");
  let bearer: string | null = options.apiKey ?? options.token ?? null;
  let session: Session | null = null;

  const userFetch = options.fetch;
  // Call the global fetch as a method (a detached `fetch` throws "Illegal invocation" in browsers).
  const transport: RequestFetch = userFetch
    ? (request, init) => userFetch(request, init as RequestInit | undefined)
    : (request, init) => globalThis.fetch(request, init as RequestInit | undefined);
  const raw: RawClient = createFetchClient<paths>({
    baseUrl,
    fetch: retryingFetch(transport, options.retry ?? {}),
    ...(options.headers ? { headers: { ...options.headers } } : {}),
  });
  raw.use(bearerMiddleware(() => bearer));

  async function signIn(signer: MessageSigner): Promise<Session> {
    const challenge = await unwrap(
      raw.POST("/auth/challenge", { body: { publicKey: signer.publicKey } }),
    );
    assertSignInMessage(challenge.message, signer.publicKey);
    const signature = await signer.signMessage(new TextEncoder().encode(challenge.message));
    const signed = await unwrap(
      raw.POST("/auth/verify", {
        body: {
          publicKey: signer.publicKey,
          message: challenge.message,
          signature: bs58.encode(signature),
        },
      }),
    );
    bearer = signed.token;
    session = signed;
    return signed;
  }

  const listMemories = (opts: ListOptions = {}): Promise<MemoryPage> => {
    const query: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(opts)) {
      if (value !== undefined) {
        query[key] = typeof value === "boolean" ? String(value) : value;
      }
    }
    return unwrap(
      raw.GET("/memories", { params: { query: query as QueryParams<"listMemories"> } }),
    );
  };
  const listKeys = (opts: PageOptions = {}) =>
    unwrap(raw.GET("/keys", { params: { query: opts } }));
  const listGrants = (opts: PageOptions = {}) =>
    unwrap(raw.GET("/agent-cases", { params: { query: opts } }));

  const client: SvcClient = {
    baseUrl,
    raw,
    get session() {
      return session;
    },
    setToken(token) {
      bearer = token;
      session = null;
    },
    setApiKey(apiKey) {
      bearer = apiKey;
      session = null;
    },
    signOut() {
      bearer = null;
      session = null;
    },

    async signInWithKeypair(keypair) {
      return signIn(await keypairSigner(keypair));
    },
    async signInWithWallet(wallet, signInOptions = {}) {
      return signIn(await walletSigner(wallet, signInOptions.account));
    },

    info: () => unwrap(raw.GET("/info")),

    async remember(content, metadata, rememberOptions = {}) {
      requireString(content, "content");
      return unwrap(
        raw.POST("/memories", {
          body: { ...rememberOptions, content, ...(metadata === undefined ? {} : { metadata }) },
        }),
      );
    },
    async rememberMany(items, manyOptions = {}) {
      if (!Array.isArray(items)) {
        throw new TypeError("items must be an array");
      }
      const chunkSize = manyOptions.chunkSize ?? BATCH_MAX_ITEMS;
      if (!Number.isInteger(chunkSize) || chunkSize < 1 || chunkSize > BATCH_MAX_ITEMS) {
        throw new TypeError(`chunkSize must be an integer from 1 to ${BATCH_MAX_ITEMS}`);
      }
      const stored: CreatedMemory[] = [];
      for (const chunk of chunkBatch(items, chunkSize)) {
        try {
          const created = await unwrap(raw.POST("/memories/batch", { body: { items: chunk } }));
          stored.push(...created.items);
        } catch (error) {
          if (error instanceof SvcError) {
            throw error.withBatch({ offset: stored.length, stored: [...stored] });
          }
          throw error;
        }
      }
      return stored;
    },
    async recall(query, recallOptions = {}) {
      if (query !== undefined) {
        requireString(query, "query");
      }
      return unwrap(
        raw.POST("/memories/search", {
          body: query === undefined ? recallOptions : { ...recallOptions, query },
        }),
      );
    },
    list: listMemories,
    listPages(opts = {}) {
      return paginate((cursor) => listMemories({ ...opts, cursor }), opts.cursor);
    },
    async *listAll(opts = {}) {
      for await (const page of paginate(
        (cursor) => listMemories({ ...opts, cursor }),
        opts.cursor,
      )) {
        yield* page.items;
      }
    },
    async get(id) {
      requireString(id, "id");
      return unwrap(raw.GET("/memories/{id}", { params: { path: { id } } }));
    },
    async update(id, content, metadata, updateOptions = {}) {
      requireString(id, "id");
      requireString(content, "content");
      return unwrap(
        raw.PUT("/memories/{id}", {
          params: { path: { id } },
          body: { ...updateOptions, content, ...(metadata === undefined ? {} : { metadata }) },
        }),
      );
    },
    async history(id) {
      requireString(id, "id");
      return (await unwrap(raw.GET("/memories/{id}/history", { params: { path: { id } } }))).items;
    },
    async forget(id) {
      requireString(id, "id");
      await unwrap(raw.DELETE("/memories/{id}", { params: { path: { id } } }));
    },
    async prove(id) {
      requireString(id, "id");
      return unwrap(raw.GET("/memories/{id}/proof", { params: { path: { id } } }));
    },
    async *events(eventOptions = {}) {
      const url = new URL(`${baseUrl}/events`);
      for (const key of ["namespace", "namespacePrefix"] as const) {
        const value = eventOptions[key];
        if (value !== undefined) {
          url.searchParams.set(key, value);
        }
      }
      const headers: Record<string, string> = { accept: "text/event-stream" };
      if (bearer !== null) {
        headers.authorization = `Bearer ${bearer}`;
      }
      if (eventOptions.lastEventId !== undefined) {
        headers["last-event-id"] = eventOptions.lastEventId;
      }
      let response: Response;
      try {
        response = await transport(
          new Request(url, {
            headers,
            ...(eventOptions.signal ? { signal: eventOptions.signal } : {}),
          }),
        );
      } catch (error) {
        if (eventOptions.signal?.aborted) {
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
        if (!eventOptions.signal?.aborted) {
          throw error;
        }
      }
    },
    async verifyOnServer(id) {
      requireString(id, "id");
      return unwrap(raw.GET("/memories/{id}/verify", { params: { path: { id } } }));
    },

    keys: {
      async create(input) {
        const body = typeof input === "string" ? { label: input } : input;
        return unwrap(raw.POST("/keys", { body }));
      },
      list: listKeys,
      listPages(opts = {}) {
        return paginate((cursor) => listKeys({ ...opts, cursor }), opts.cursor);
      },
      async revoke(id) {
        requireString(id, "id");
        await unwrap(raw.DELETE("/keys/{id}", { params: { path: { id } } }));
      },
    },

    grants: {
      async create(input) {
        return unwrap(raw.POST("/agent-cases", { body: input }));
      },
      list: listGrants,
      listPages(opts = {}) {
        return paginate((cursor) => listGrants({ ...opts, cursor }), opts.cursor);
      },
      async revoke(id) {
        requireString(id, "id");
        await unwrap(raw.DELETE("/agent-cases/{grant}", { params: { path: { grant: id } } }));
      },
      async audit(id, opts = {}) {
        requireString(id, "id");
        return unwrap(
          raw.GET("/agent-cases/{id}/audit", { params: { path: { id }, query: opts } }),
        );
      },
      async use(tokenOrUrl) {
        requireString(tokenOrUrl, "tokenOrUrl");
        return unwrap(
          raw.GET("/agent-cases/{grant}", { params: { path: { grant: grantToken(tokenOrUrl) } } }),
        );
      },
    },

    log: {
      get: () => unwrap(raw.GET("/log")),
      async consistency(from, to) {
        return unwrap(raw.GET("/log/consistency", { params: { query: { from, to } } }));
      },
    },
  };
  return client;
}
