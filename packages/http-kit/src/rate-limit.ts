/**
 * Built-in request rate limits of both APIs (docs/protocol.md §12). Two limits per app, each counted over
 * a fixed one-minute window with rate-limiter-flexible's `RateLimiterMemory`:
 * - unauthenticated routes (sign-in, anonymous grant use, the extension connect flow) per client
 *   IP address, all those routes of the app together ({@link limitPerClientIp});
 * - authenticated routes per credential (an API key, a wallet session's user, an extension
 *   session), charged by the app's authentication middleware once it knows the caller
 *   ({@link RateLimits.chargeCredential}).
 * A request over a limit is refused with 429 `rate_limited` and a `Retry-After` header (whole
 * seconds, at least 1) before the route does any work. A limit of 0 turns that limit off.
 *
 * The counters live in this process's memory: every instance counts on its own, so N instances
 * behind one address allow N times each limit, and a restart forgets them.
 * @module
 */
import { isIP } from "node:net";
import { getConnInfo } from "@hono/node-server/conninfo";
import type { Context, MiddlewareHandler } from "hono";
import { RateLimiterMemory, RateLimiterRes } from "rate-limiter-flexible";
import { ApiError, type BaseErrorCode } from "./errors.js";

/** The window every limit counts over, in seconds. */
export const RATE_LIMIT_WINDOW_SECONDS = 60;

/** The limits of one app, as its configuration gives them. */
export interface RateLimitConfig {
  /**
   * Requests a minute one client IP address may make to the app's unauthenticated routes, all of
   * them together (`RATE_LIMIT_ANONYMOUS_PER_MINUTE`); 0: no limit.
   */
  readonly anonymousPerMinute: number;
  /**
   * Requests a minute one credential may make to the app's authenticated routes, all of them
   * together (`RATE_LIMIT_AUTHENTICATED_PER_MINUTE`); 0: no limit.
   */
  readonly authenticatedPerMinute: number;
  /** Whether the first address of `X-Forwarded-For` is the client's (`TRUST_PROXY`). */
  readonly trustProxy: boolean;
}

/** The hono environment of an app with rate limits: `c.var.rateLimits`, set by createApiApp. */
export interface RateLimitEnv {
  Variables: { rateLimits: RateLimits };
}

/**
 * The client IP address of a request. Without `trustProxy` it is the socket's peer address,
 * whatever the request's headers say. With `trustProxy` it is the first address of
 * `X-Forwarded-For` when that is a plain IPv4 or IPv6 address (anything else falls back to the
 * socket's address): right only behind a proxy that overwrites `X-Forwarded-For`, since a client
 * can write any address into the header it sends.
 * @returns the address, or null when the request came through no socket (in-process
 *   `app.request`).
 */
export function clientIp(c: Context, trustProxy: boolean): string | null {
  if (trustProxy) {
    const first = c.req.header("x-forwarded-for")?.split(",")[0]?.trim();
    if (first !== undefined && isIP(first) !== 0) {
      return first;
    }
  }
  try {
    return getConnInfo(c).remote.address ?? null;
  } catch {
    // No Node request behind this one (`app.request` in tests): there is no peer address.
    return null;
  }
}

/**
 * The key a client address is counted under by the unauthenticated limit (docs/protocol.md §12
 * "Rate limits"): an IPv4 address as it is; an IPv4-mapped IPv6 address (`::ffff:a.b.c.d`, either
 * spelling) as its IPv4 address; any other IPv6 address as its /64 prefix (`2001:db8:0:1::/64`),
 * since one host commonly holds a whole /64. Anything else is returned unchanged. Audit rows keep
 * the full address ({@link clientIp}).
 */
export function rateLimitAddressKey(address: string): string {
  const groups = ipv6Groups(address.split("%")[0] ?? address);
  if (groups === null) {
    return address;
  }
  if (groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff) {
    const [hi, lo] = [groups[6] as number, groups[7] as number];
    return `${hi >> 8}.${hi & 0xff}.${lo >> 8}.${lo & 0xff}`;
  }
  return `${groups
    .slice(0, 4)
    .map((g) => g.toString(16))
    .join(":")}::/64`;
}

/** The eight 16-bit groups of an IPv6 address (embedded IPv4 tail included), or null. */
function ipv6Groups(address: string): number[] | null {
  if (isIP(address) !== 6) {
    return null;
  }
  let text = address.toLowerCase();
  const tail = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (tail) {
    const [a, b, c, d] = tail.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, tail.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = "", rest] = text.split("::");
  const left = head === "" ? [] : head.split(":");
  const right = rest === undefined || rest === "" ? [] : rest.split(":");
  const missing = 8 - left.length - right.length;
  const all = rest === undefined ? left : [...left, ...Array(missing).fill("0"), ...right];
  return all.length === 8 ? all.map((g) => Number.parseInt(g, 16)) : null;
}

/** A limiter of `perMinute` requests a minute per key, or null when `perMinute` is 0. */
function minuteLimiter(perMinute: number): RateLimiterMemory | null {
  if (!Number.isInteger(perMinute) || perMinute < 0) {
    throw new RangeError(`a rate limit must be a whole number ≥ 0, got ${perMinute}`);
  }
  return perMinute === 0
    ? null
    : new RateLimiterMemory({ points: perMinute, duration: RATE_LIMIT_WINDOW_SECONDS });
}

/**
 * The rate limits of one app instance (docs/protocol.md §12), counted in this process's memory. Build one
 * per app (createApiApp makes it `c.var.rateLimits`), never one per route: a limit covers all the
 * routes of its kind together.
 */
export class RateLimits {
  readonly #anonymous: RateLimiterMemory | null;
  readonly #authenticated: RateLimiterMemory | null;
  readonly #trustProxy: boolean;

  /** @throws RangeError when a limit is not a whole number ≥ 0. */
  constructor(config: RateLimitConfig) {
    this.#anonymous = minuteLimiter(config.anonymousPerMinute);
    this.#authenticated = minuteLimiter(config.authenticatedPerMinute);
    this.#trustProxy = config.trustProxy;
  }

  /**
   * Counts one request of the client IP address ({@link clientIp}, keyed by
   * {@link rateLimitAddressKey}: an IPv6 client per /64, an IPv4-mapped one as IPv4; requests
   * without an address share a single count) against the unauthenticated limit.
   * @throws ApiError `rate_limited` (429) past the limit, with `Retry-After` already set on `c`.
   */
  chargeClientIp(c: Context): Promise<void> {
    const ip = clientIp(c, this.#trustProxy);
    return charge(
      c,
      this.#anonymous,
      ip === null ? "unknown" : rateLimitAddressKey(ip),
      "client address",
    );
  }

  /**
   * Counts one request of a credential against the authenticated limit.
   * @param credentialId a stable, non-secret id of the credential (an API key's id, a user id, a
   *   session id), never the token itself.
   * @throws ApiError `rate_limited` (429) past the limit, with `Retry-After` already set on `c`.
   */
  chargeCredential(c: Context, credentialId: string): Promise<void> {
    return charge(c, this.#authenticated, credentialId, "credential");
  }
}

/** Counts one request of `key`; past the limit sets `Retry-After` and throws `rate_limited`. */
async function charge(
  c: Context,
  limiter: RateLimiterMemory | null,
  key: string,
  per: string,
): Promise<void> {
  if (limiter === null) {
    return;
  }
  try {
    await limiter.consume(key);
  } catch (rejection) {
    if (!(rejection instanceof RateLimiterRes)) {
      throw rejection;
    }
    const retryAfterSeconds = Math.max(1, Math.ceil(rejection.msBeforeNext / 1000));
    c.header("retry-after", String(retryAfterSeconds));
    throw new ApiError<BaseErrorCode>(
      "rate_limited",
      `too many requests: at most ${limiter.points} a minute per ${per}; retry in ${retryAfterSeconds} s`,
      { limit: limiter.points, windowSeconds: RATE_LIMIT_WINDOW_SECONDS, retryAfterSeconds },
    );
  }
}

/**
 * Route middleware of an unauthenticated route (list it first in the route's `middleware`):
 * counts the request against its client IP's limit ({@link RateLimits.chargeClientIp}) before
 * anything else of the route runs.
 * @throws ApiError `rate_limited` (429) past the limit.
 */
export function limitPerClientIp<E extends RateLimitEnv>(): MiddlewareHandler<E> {
  return async (c, next) => {
    await c.var.rateLimits.chargeClientIp(c);
    await next();
  };
}
