/**
 * Bridging an old proof bundle to the current on-chain root (docs/protocol.md §6.3, §6.7): a
 * bundle is cut at the checkpoint that was anchored when it was fetched (size M, root rootM); once
 * the service anchors again, the chain holds (N, rootN) with N > M. The RFC 9162 §2.1.4
 * consistency proof PROOF(M, D[N]) shows that the tree of N leaves extends the tree of M leaves,
 * so the bundle's leaf, included under rootM, is included under rootN too. The proof comes from
 * the service's public route `GET /owners/{owner}/consistency?from=M&to=N` (no credential), or
 * from any {@link FetchConsistency} the caller supplies. Nothing it answers is trusted: the
 * verifier checks the proof against rootM (from the bundle, after its inclusion proof verified)
 * and rootN (read from the chain), never against the `fromRoot`/`toRoot` of the answer.
 * @module
 */

/** What a {@link FetchConsistency} is asked for: PROOF(from, D[to]) of `owner`'s log. */
export interface ConsistencyRequest {
  /** The owner's wallet public key, base58 (the bundle's `leafData.owner`). */
  readonly owner: string;
  /** The bundle's checkpoint size M (≥ 1). */
  readonly from: number;
  /** The on-chain `memoryCount` N (> M). */
  readonly to: number;
}

/**
 * Obtains a consistency proof, e.g. from `GET /owners/{owner}/consistency` of the memory API
 * ({@link consistencyFetcher}) or from an archive. It resolves to the answer object; only its
 * `proof` (an array of 64-lowercase-hex strings, RFC 9162 §2.1.4.1 order) is used.
 * A rejection means "no proof could be obtained" (reason `consistency_unavailable`, the result is
 * unknown); an answer without a well-formed `proof`, or a proof that does not verify, is
 * `consistency_invalid`.
 */
export type FetchConsistency = (request: ConsistencyRequest) => Promise<unknown>;

/** The consistency proof could not be obtained (network, HTTP or JSON error): result unknown. */
export class ConsistencyFetchError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "ConsistencyFetchError";
  }
}

/** Options of {@link consistencyFetcher}. */
export interface ConsistencyFetcherOptions {
  /** fetch implementation (default the global fetch). */
  readonly fetch?: typeof fetch;
  /** Request timeout in ms; default 15 000. */
  readonly timeoutMs?: number;
}

/**
 * `apiUrl` as a base for relative paths (a trailing slash added, query and fragment dropped), for
 * `GET /info` and the public proof routes under it.
 * @throws TypeError when `apiUrl` is not an absolute http: or https: URL.
 */
export function apiBase(apiUrl: string): URL {
  let base: URL;
  try {
    base = new URL(apiUrl.endsWith("/") ? apiUrl : `${apiUrl}/`);
  } catch {
    throw new TypeError(`apiUrl must be an absolute URL, got ${JSON.stringify(apiUrl)}`);
  }
  if (base.protocol !== "http:" && base.protocol !== "https:") {
    throw new TypeError("apiUrl must be an http: or https: URL");
  }
  base.search = "";
  base.hash = "";
  return base;
}

/**
 * The absolute URL of `GET /owners/{owner}/consistency?from=&to=` under `apiUrl` (a base URL that
 * may carry a path prefix, e.g. `https://memory.example.com/api`).
 * @throws TypeError when `apiUrl` is not an absolute http: or https: URL.
 */
export function consistencyUrl(apiUrl: string, request: ConsistencyRequest): string {
  return urlUnder(apiBase(apiUrl), request);
}

function urlUnder(base: URL, request: ConsistencyRequest): string {
  const url = new URL(`owners/${encodeURIComponent(request.owner)}/consistency`, base);
  url.searchParams.set("from", String(request.from));
  url.searchParams.set("to", String(request.to));
  return url.toString();
}

/**
 * One GET of `url` expecting JSON, no credential (`fetch` and `timeoutMs` of `options` apply).
 * @returns the parsed body of a 2xx answer.
 * @throws ConsistencyFetchError when the request fails, times out, answers a non-2xx status or a
 *   body that is not JSON.
 */
export async function getJson(
  url: string,
  options: ConsistencyFetcherOptions = {},
): Promise<unknown> {
  const fetchImpl = options.fetch ?? fetch;
  let res: Response;
  try {
    res = await fetchImpl(url, {
      method: "GET",
      headers: { accept: "application/json" },
      signal: AbortSignal.timeout(options.timeoutMs ?? 15_000),
    });
  } catch (error) {
    throw new ConsistencyFetchError(`API request failed: ${(error as Error).message}`, {
      cause: error,
    });
  }
  let body: unknown;
  try {
    body = await res.json();
  } catch (error) {
    throw new ConsistencyFetchError(`API answered HTTP ${res.status} without JSON`, {
      cause: error,
    });
  }
  if (!res.ok) {
    const code = (body as { error?: { code?: unknown } } | null)?.error?.code;
    throw new ConsistencyFetchError(
      `API answered HTTP ${res.status}${typeof code === "string" ? ` ${code}` : ""}`,
    );
  }
  return body;
}

/**
 * A {@link FetchConsistency} over the memory API's public route
 * `GET {apiUrl}/owners/{owner}/consistency?from=M&to=N` (docs/protocol.md §6.3): one GET, no
 * credential, JSON answer `{ owner, from, to, fromRoot, toRoot, proof }`.
 * @param apiUrl the core API's base URL.
 * @returns a function resolving to the parsed JSON answer of a 2xx response.
 * @throws TypeError (immediately) when `apiUrl` is not an absolute http(s) URL.
 * The returned function rejects with ConsistencyFetchError when the request fails, times out,
 * answers a non-2xx status (e.g. 404 unknown owner, 400 a size past the latest anchored one,
 * 429) or a body that is not JSON.
 * @example
 * const fetchConsistency = consistencyFetcher("https://memory.example.com");
 * const answer = await fetchConsistency({ owner, from: 42, to: 97 });
 */
export function consistencyFetcher(
  apiUrl: string,
  options: ConsistencyFetcherOptions = {},
): FetchConsistency {
  const base = apiBase(apiUrl);
  return (request) => getJson(urlUnder(base, request), options);
}

/** What a {@link FetchLogConsistency} is asked for: PROOF(from, D[to]) of the checkpoint log. */
export interface LogConsistencyRequest {
  /** The bundle's checkpoint log size (≥ 1). */
  readonly from: number;
  /** The checkpoint log account's size (> from). */
  readonly to: number;
}

/**
 * Obtains a consistency proof of the checkpoint log (docs/protocol.md §13.5 "The checkpoint
 * log"), e.g. from `GET /tlog/consistency` ({@link logConsistencyFetcher}); only the answer's
 * `proof` is used. A rejection is `consistency_unavailable`, as for {@link FetchConsistency}.
 */
export type FetchLogConsistency = (request: LogConsistencyRequest) => Promise<unknown>;

/**
 * A {@link FetchLogConsistency} over the memory API's public route
 * `GET {apiUrl}/tlog/consistency?from=M&to=N` (the JSON shape of `/owners/{owner}/consistency`,
 * docs/protocol.md §6.3 "Consistency proof (RFC 9162 §2.1.4)").
 * @throws TypeError (immediately) when `apiUrl` is not an absolute http(s) URL. The returned
 *   function rejects with ConsistencyFetchError as {@link consistencyFetcher}'s does.
 */
export function logConsistencyFetcher(
  apiUrl: string,
  options: ConsistencyFetcherOptions = {},
): FetchLogConsistency {
  const base = apiBase(apiUrl);
  return (request) => {
    const url = new URL("tlog/consistency", base);
    url.searchParams.set("from", String(request.from));
    url.searchParams.set("to", String(request.to));
    return getJson(url.toString(), options);
  };
}

const HEX32 = /^[0-9a-f]{64}$/;

/**
 * The `proof` of a consistency answer: an array of 64-lowercase-hex strings.
 * @returns the proof, or null when the answer has no such array.
 */
export function proofOfAnswer(answer: unknown): string[] | null {
  if (typeof answer !== "object" || answer === null) {
    return null;
  }
  const proof = (answer as { proof?: unknown }).proof;
  if (
    !Array.isArray(proof) ||
    !proof.every((node) => typeof node === "string" && HEX32.test(node))
  ) {
    return null;
  }
  return [...proof];
}
