/**
 * `createClient`: the typed SDK over core-api. The HTTP layer is openapi-fetch over the types
 * generated from core-api's OpenAPI document; this module adds sign-in, the credential and
 * retries, and assembles the calls of each resource (memories.ts, keys.ts, grants.ts, log.ts,
 * events.ts). Browser-safe: no node:* import on this path (chain verification lives in
 * `@verifiable-memory/client/verify`).
 * @module
 */

import createFetchClient from "openapi-fetch";
import { type RawClient, unwrap } from "./calls.js";
import { type EventStreamOptions, type MemoryEvent, streamEvents } from "./events.js";
import type { paths } from "./generated/core-api.js";
import { type GrantCalls, grantCalls } from "./grants.js";
import { bearerMiddleware, type RequestFetch, type RetryOptions, retryingFetch } from "./http.js";
import { type KeyCalls, keyCalls } from "./keys.js";
import { type LogCalls, logCalls } from "./log.js";
import { type MemoryCalls, memoryCalls } from "./memories.js";
import type {
  KeypairLike,
  MessageSigner,
  SecretKeyInput,
  SignInWallet,
  StandardWalletAccount,
} from "./signing.js";
import type { ServiceInfo, Session } from "./types.js";

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

/**
 * The SDK client. Every method that calls the API throws {@link SvcError} for a non-2xx answer
 * (`code`, `status`, `requestId`, `details`) and for a request that got no answer
 * (`network_error`), and `TypeError` for arguments it refuses before calling.
 */
export interface SvcClient extends MemoryCalls {
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
   * Follows the caller's memory events: `GET /events` (Server-Sent Events), so an agent learns of
   * new, deleted and anchored memories without polling. The iterator ends when the server closes
   * the stream or `options.signal` aborts; resume with the last event's `id` as `lastEventId`.
   * @throws SvcError for an error answer (`unauthorized`, `insufficient_scope`, …) or no answer.
   * @example for await (const event of client.events()) console.log(event.type, event.data);
   */
  events(options?: EventStreamOptions): AsyncGenerator<MemoryEvent>;

  /** API keys (`/keys`): all three calls need a wallet session, not an API key. */
  readonly keys: KeyCalls;
  /** Capability grants (`/agent-cases`): share one operation over memories through a URL. */
  readonly grants: GrantCalls;
  /** The caller's Merkle log. */
  readonly log: LogCalls;
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
    const { assertSignInMessage, encodeSignature } = await import("./signing.js");
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
          signature: encodeSignature(signature),
        },
      }),
    );
    bearer = signed.token;
    session = signed;
    return signed;
  }

  const client: SvcClient = {
    ...memoryCalls(raw),
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

    // The signing code (ed25519, the SIWS parser, base58) loads on the first sign-in: a client
    // used with an API key or a stored token never loads it.
    async signInWithKeypair(keypair) {
      const { keypairSigner } = await import("./signing.js");
      return signIn(await keypairSigner(keypair));
    },
    async signInWithWallet(wallet, signInOptions = {}) {
      const { walletSigner } = await import("./signing.js");
      return signIn(await walletSigner(wallet, signInOptions.account));
    },

    info: () => unwrap(raw.GET("/info")),
    events: (eventOptions) =>
      streamEvents({ baseUrl, transport, bearer: () => bearer }, eventOptions),
    keys: keyCalls(raw),
    grants: grantCalls(raw),
    log: logCalls(raw),
  };
  return client;
}
