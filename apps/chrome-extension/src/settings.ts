/**
 * What the extension keeps in `chrome.storage` (never in page-visible storage): the service URL
 * (a setting) and the extension token in `chrome.storage.local`, the pending connect state in
 * `chrome.storage.session` (memory only: gone when the browser closes).
 * @module
 */

/** The extension API this build talks to unless the user sets another. */
export const DEFAULT_SERVICE_URL = "http://localhost:8788";

/** The extension token and when it expires (ISO 8601). */
export interface StoredToken {
  readonly token: string;
  readonly expiresAt: string | null;
}

/** The configured service URL without a trailing slash. */
export async function serviceUrl(): Promise<string> {
  const { serviceUrl } = await chrome.storage.local.get("serviceUrl");
  return typeof serviceUrl === "string" && serviceUrl !== ""
    ? serviceUrl.replace(/\/+$/, "")
    : DEFAULT_SERVICE_URL;
}

/**
 * Sets the service URL.
 * @throws TypeError when `url` is not an http(s) URL.
 */
export async function setServiceUrl(url: string): Promise<void> {
  const parsed = new URL(url);
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
    throw new TypeError("the service URL must be http(s)");
  }
  await chrome.storage.local.set({ serviceUrl: parsed.origin });
}

/** The stored extension token, or null when not connected. */
export async function storedToken(): Promise<StoredToken | null> {
  const { token } = await chrome.storage.local.get("token");
  return token && typeof (token as StoredToken).token === "string" ? (token as StoredToken) : null;
}

/** Keeps the token (chrome.storage.local: readable by this extension only). */
export async function storeToken(token: StoredToken): Promise<void> {
  await chrome.storage.local.set({ token });
}

/** Forgets the token. */
export async function forgetToken(): Promise<void> {
  await chrome.storage.local.remove("token");
}

/**
 * A fresh random connect state (128 bits, hex), remembered in `chrome.storage.session` until the
 * connect page answers. A newer connect replaces an older pending one.
 */
export async function newConnectState(): Promise<string> {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  const state = Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
  await chrome.storage.session.set({ connectState: state });
  return state;
}

/**
 * Claims the pending connect state: true (and the state is cleared, so it admits one token at
 * most) when `received` is the pending state; false otherwise, leaving a pending connect intact
 * (any page may open connected.html, so a wrong guess must not cancel the user's connect).
 */
export async function claimConnectState(received: string | null): Promise<boolean> {
  const { connectState } = await chrome.storage.session.get("connectState");
  if (typeof connectState !== "string" || !received || received !== connectState) {
    return false;
  }
  await chrome.storage.session.remove("connectState");
  return true;
}
