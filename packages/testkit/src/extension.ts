/**
 * The extension API's connect flow for tests (docs/protocol.md §9): the extension page that may
 * receive a token, the test environment, and the flow's two JSON steps.
 * @module
 */
import { TEST_ENV } from "./env.js";
import { callAt, type HttpTarget, request } from "./http.js";
import type { Wallet } from "./wallet.js";

/** A Chrome extension page that may receive a token (id: 32 letters a–p). */
export const REDIRECT_URI = "chrome-extension://abcdefghijklmnopabcdefghijklmnop/connected.html";
/** The origin of that extension. */
export const EXTENSION_ORIGIN = "chrome-extension://abcdefghijklmnopabcdefghijklmnop";

/**
 * The extension API's environment in tests (testkit's TEST_ENV secrets, so both apps share a master key;
 * rate limits off, as in TEST_ENV).
 */
export const EXTENSION_TEST_ENV: Record<string, string> = {
  MASTER_ENCRYPTION_KEY: TEST_ENV.MASTER_ENCRYPTION_KEY,
  SIWS_CHAIN_ID: TEST_ENV.SIWS_CHAIN_ID,
  SERVICE_NAME: TEST_ENV.SERVICE_NAME,
  EXTENSION_PUBLIC_URL: "http://localhost:8788",
  RATE_LIMIT_ANONYMOUS_PER_MINUTE: TEST_ENV.RATE_LIMIT_ANONYMOUS_PER_MINUTE,
  RATE_LIMIT_AUTHENTICATED_PER_MINUTE: TEST_ENV.RATE_LIMIT_AUTHENTICATED_PER_MINUTE,
};

/**
 * The connect flow's two JSON steps (docs/protocol.md §9.2 "The connect flow") against `target` (a base
 * URL, or the app in process); returns the verify answer.
 * @throws Error with the status and body when a step is refused.
 */
export async function connect(
  target: HttpTarget,
  wallet: Wallet,
  options: { redirectUri?: string; state?: string } = {},
): Promise<{ token: string; expiresAt: string; redirectTo: string }> {
  const redirectUri = options.redirectUri ?? REDIRECT_URI;
  const challenge = await callAt<{ message: string }>(target, "/connect/challenge", {
    body: { publicKey: wallet.publicKey, redirectUri },
  });
  if (challenge.status !== 200) {
    throw new Error(`challenge failed: ${challenge.status} ${JSON.stringify(challenge.body)}`);
  }
  const res = await request(target, "/connect/verify", {
    body: {
      publicKey: wallet.publicKey,
      message: challenge.body.message,
      signature: wallet.sign(challenge.body.message),
      redirectUri,
      ...(options.state === undefined ? {} : { state: options.state }),
    },
  });
  if (res.status !== 200) {
    throw new Error(`connect failed: ${res.status} ${await res.text()}`);
  }
  return (await res.json()) as { token: string; expiresAt: string; redirectTo: string };
}

/** `Authorization: Bearer <token>`. */
export function bearer(token: string): Record<string, string> {
  return { authorization: `Bearer ${token}` };
}
