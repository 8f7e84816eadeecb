/**
 * The credential of this browser tab: a session JWT from a wallet sign-in (with its expiry) or
 * an API key typed in. It lives in sessionStorage (this tab only, gone when the tab closes) and
 * is dropped at sign-out and when the session expires.
 * @module
 */

/** The signed-in credential. */
export interface StoredSession {
  /** `session`: a wallet sign-in's JWT; `api_key`: a key typed in (no wallet). */
  readonly kind: "session" | "api_key";
  /** The bearer token. */
  readonly token: string;
  /** The wallet, base58 (null for an API key until the API names it). */
  readonly publicKey: string | null;
  /** When the token stops working, ISO 8601 (null: unknown, an API key). */
  readonly expiresAt: string | null;
  /** The API this credential belongs to. */
  readonly apiUrl: string;
}

const KEY = "vm-console.session";

/** The stored session for `apiUrl`, or null (none, expired, or for another API). */
export function loadSession(apiUrl: string, now = Date.now()): StoredSession | null {
  let value: StoredSession;
  try {
    const text = sessionStorage.getItem(KEY);
    if (text === null) {
      return null;
    }
    value = JSON.parse(text) as StoredSession;
  } catch {
    return null;
  }
  if (value.apiUrl !== apiUrl || typeof value.token !== "string") {
    return null;
  }
  if (value.expiresAt !== null && Date.parse(value.expiresAt) <= now) {
    clearSession();
    return null;
  }
  return value;
}

/** Keeps `session` for this tab. */
export function saveSession(session: StoredSession): void {
  try {
    sessionStorage.setItem(KEY, JSON.stringify(session));
  } catch {
    // Without storage the session lasts until the page is reloaded.
  }
}

/** Forgets the session. */
export function clearSession(): void {
  try {
    sessionStorage.removeItem(KEY);
  } catch {
    // Nothing stored.
  }
}

/** Milliseconds until `session` expires (null: no known expiry). */
export function msUntilExpiry(session: StoredSession, now = Date.now()): number | null {
  return session.expiresAt === null ? null : Math.max(0, Date.parse(session.expiresAt) - now);
}
