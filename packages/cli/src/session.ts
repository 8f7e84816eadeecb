/**
 * Which API to call and with which credential: `--url`, `SVC_URL`, the stored credentials'
 * URL, or the default; `SVC_API_KEY`, or the stored credential — renewing an expired session by
 * signing in again with the stored keypair file.
 * @module
 */
import { access } from "node:fs/promises";
import { createClient, type Session, type SvcClient } from "@verifiable-memory/client";
import {
  credentialsPath,
  readCredentials,
  type StoredCredentials,
  writeCredentials,
} from "./credentials.js";
import { CliError, EXIT, usageError } from "./errors.js";
import { readKeypairFile } from "./keypair.js";

/** The API's URL when nothing else names one. */
export const DEFAULT_URL = "http://localhost:8787";
/** The chain RPC `svc verify` reads when nothing else names one: the local chain of `pnpm start`. */
export const DEFAULT_RPC_URL = "http://127.0.0.1:8899";
/** A session this close to its expiry is renewed before use. */
const RENEW_BEFORE_MS = 60_000;

/** Options every command takes. */
export interface GlobalOptions {
  /** `--url`: the core API's base URL. */
  readonly url?: string;
  /** `--json`: machine-readable output. */
  readonly json?: boolean;
}

/** What the commands share: the environment (for `SVC_*` and `XDG_CONFIG_HOME`) and the time. */
export interface Context {
  readonly env: NodeJS.ProcessEnv;
  readonly now: () => Date;
}

/**
 * Checks that `url` is an absolute http(s) URL.
 * @throws CliError usage otherwise.
 */
export function checkUrl(url: string, option: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw usageError(`${option} must be an absolute URL, got ${JSON.stringify(url)}`);
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
    throw usageError(`${option} must be an http: or https: URL`);
  }
  return url.replace(/\/+$/, "");
}

/**
 * The API's base URL: `--url`, else `SVC_URL`, else the URL stored by `svc login`, else
 * {@link DEFAULT_URL}.
 */
export function apiUrl(
  ctx: Context,
  options: GlobalOptions,
  stored: StoredCredentials | null,
): string {
  if (options.url) {
    return checkUrl(options.url, "--url");
  }
  if (ctx.env.SVC_URL) {
    return checkUrl(ctx.env.SVC_URL, "SVC_URL");
  }
  return stored?.url ?? DEFAULT_URL;
}

/**
 * The chain RPC to verify against: `--rpc`, else `SVC_RPC_URL`, else the one stored by
 * `svc login --rpc`, else {@link DEFAULT_RPC_URL}. (The API's `GET /info` names the cluster but
 * not an RPC endpoint — and the point is to read the chain from an endpoint *you* choose.)
 */
export async function rpcUrl(ctx: Context, option: string | undefined): Promise<string> {
  if (option) {
    return checkUrl(option, "--rpc");
  }
  if (ctx.env.SVC_RPC_URL) {
    return checkUrl(ctx.env.SVC_RPC_URL, "SVC_RPC_URL");
  }
  let stored: StoredCredentials | null = null;
  try {
    stored = await readCredentials(ctx.env);
  } catch {
    // A broken credentials file does not stop an offline verification.
  }
  return stored?.rpcUrl ?? DEFAULT_RPC_URL;
}

function notLoggedIn(ctx: Context): CliError {
  return new CliError({
    code: "not_logged_in",
    message: `not logged in: run \`svc login\` (no ${credentialsPath(ctx.env)}, no SVC_API_KEY)`,
    exitCode: EXIT.auth,
  });
}

/**
 * The lifetime of a session JWT in milliseconds (`exp − iat` of its claims), or null when the
 * token does not carry both.
 */
function tokenLifetimeMs(token: string): number | null {
  try {
    const claims = JSON.parse(
      Buffer.from(token.split(".")[1] ?? "", "base64url").toString("utf8"),
    ) as { iat?: unknown; exp?: unknown };
    if (typeof claims.iat === "number" && typeof claims.exp === "number") {
      return (claims.exp - claims.iat) * 1000;
    }
  } catch {
    // Not a JWT we can read: fall back to the server's expiresAt.
  }
  return null;
}

/**
 * The credentials to store for a session signed in at `ctx.now()` with `keypairPath` (the
 * session fields of {@link StoredCredentials}; `localExpiresAt` from the token's lifetime).
 */
export function sessionCredentials(
  ctx: Context,
  session: Session,
  fields: { readonly url: string; readonly keypairPath: string; readonly rpcUrl?: string },
): StoredCredentials {
  const now = ctx.now();
  const lifetime = tokenLifetimeMs(session.token);
  return {
    version: 1,
    url: fields.url,
    kind: "session",
    token: session.token,
    expiresAt: session.expiresAt,
    localExpiresAt:
      lifetime === null ? session.expiresAt : new Date(now.getTime() + lifetime).toISOString(),
    publicKey: session.publicKey,
    userId: session.userId,
    keypairPath: fields.keypairPath,
    ...(fields.rpcUrl ? { rpcUrl: fields.rpcUrl } : {}),
    savedAt: now.toISOString(),
  };
}

/**
 * Whether a stored session has expired, or expires within `marginMs`, by this machine's clock
 * (`localExpiresAt`, else `expiresAt`).
 */
export function sessionExpired(ctx: Context, stored: StoredCredentials, marginMs = 0): boolean {
  if (stored.kind !== "session") {
    return false;
  }
  const at = Date.parse(stored.localExpiresAt ?? stored.expiresAt ?? "");
  return Number.isFinite(at) && at - ctx.now().getTime() < marginMs;
}

/**
 * Signs in again with the keypair file of a session and stores the new session.
 * @returns the renewed credentials.
 * @throws CliError `session_expired` (exit 4) when there is no keypair file to sign in with.
 */
async function renew(
  ctx: Context,
  stored: StoredCredentials,
  baseUrl: string,
): Promise<StoredCredentials> {
  const path = stored.keypairPath;
  const expired = new CliError({
    code: "session_expired",
    message: `the session expired (${stored.expiresAt}) and its keypair file is gone: run \`svc login\` again`,
    exitCode: EXIT.auth,
  });
  if (!path) {
    throw expired;
  }
  try {
    await access(path);
  } catch {
    throw expired;
  }
  const session = await createClient({ baseUrl }).signInWithKeypair(await readKeypairFile(path));
  const renewed = {
    ...sessionCredentials(ctx, session, {
      url: stored.url,
      keypairPath: path,
      ...(stored.rpcUrl ? { rpcUrl: stored.rpcUrl } : {}),
    }),
  };
  await writeCredentials(ctx.env, renewed);
  return renewed;
}

/**
 * A fetch that, for a stored session, answers a 401 by signing in again with the session's
 * keypair file and repeating the request once with the new token (a 401 means nothing was done,
 * so even a POST is safe to repeat). When that sign-in fails, the 401 is answered as it came.
 */
function renewingFetch(
  ctx: Context,
  baseUrl: string,
  initial: StoredCredentials,
): (input: Request, init?: RequestInit) => Promise<Response> {
  let current = initial;
  return async (input, init) => {
    const request = new Request(input, init);
    const spare = request.clone();
    const response = await fetch(request);
    if (response.status !== 401 || !current.keypairPath) {
      return response;
    }
    try {
      current = await renew(ctx, current, baseUrl);
    } catch {
      // The keypair file is gone or the sign-in failed: report the API's 401 itself.
      return response;
    }
    await response.body?.cancel().catch(() => {});
    const headers = new Headers(spare.headers);
    headers.set("authorization", `Bearer ${current.token}`);
    return fetch(new Request(spare, { headers }));
  };
}

/**
 * A client with the caller's credential: `SVC_API_KEY` when set, else the stored one. A stored
 * session is renewed by signing in again with its keypair file (when that file is still there)
 * when it has expired or expires within a minute, and when the API answers 401.
 * @throws CliError `not_logged_in` / `session_expired` (exit 4).
 */
export async function authedClient(ctx: Context, options: GlobalOptions): Promise<SvcClient> {
  return createClient(await clientCredential(ctx, options));
}

/** The base URL and credential a client of the caller is created with (see {@link authedClient}). */
export interface ClientCredential {
  readonly baseUrl: string;
  readonly apiKey?: string;
  readonly token?: string;
  /** For a stored session: the fetch that renews it on a 401. */
  readonly fetch?: (input: Request, init?: RequestInit) => Promise<Response>;
}

/**
 * The caller's base URL and credential, as {@link authedClient} uses them (also for `svc mcp`,
 * which builds its own client): `SVC_API_KEY`, else the stored API key, else the stored session,
 * renewed when it has expired or expires within a minute, with a fetch that renews it on a 401.
 * @throws CliError `not_logged_in` / `session_expired` (exit 4).
 */
export async function clientCredential(
  ctx: Context,
  options: GlobalOptions,
): Promise<ClientCredential> {
  const stored = await readCredentials(ctx.env);
  const baseUrl = apiUrl(ctx, options, stored);
  const envKey = ctx.env.SVC_API_KEY;
  if (envKey) {
    return { baseUrl, apiKey: envKey };
  }
  if (!stored) {
    throw notLoggedIn(ctx);
  }
  if (stored.kind === "api_key") {
    return { baseUrl, apiKey: stored.token };
  }
  const current = sessionExpired(ctx, stored, RENEW_BEFORE_MS)
    ? await renew(ctx, stored, baseUrl)
    : stored;
  return { baseUrl, token: current.token, fetch: renewingFetch(ctx, baseUrl, current) };
}
