/**
 * The extension connect flow (docs/protocol.md §9): a sign-in challenge bound to the extension page that
 * will receive the token, the same five checks as core sign-in (docs/protocol.md §2, from @verifiable-memory/auth), then an
 * opaque extension token delivered in the redirect's fragment.
 * @module
 */

import {
  type Challenge,
  isExtensionRedirectUri,
  issueChallenge,
  issueExtensionToken,
  type SignInConfig,
  verifySignIn,
} from "@verifiable-memory/auth";
import type { Clock } from "@verifiable-memory/clock";
import type { Database } from "@verifiable-memory/db-schema";

/** A redirect URI that is not a Chrome extension page, or not the one the challenge was for. */
export class InvalidRedirectUriError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "InvalidRedirectUriError";
  }
}

/** The answer of a successful connect: the token and where the connect page sends it. */
export interface Connected {
  /** The raw extension token (base58); shown once. */
  readonly token: string;
  /** ISO 8601 UTC with milliseconds. */
  readonly expiresAt: string;
  /** `redirectUri#token=…&state=…` (fragment: never sent to a server, never in a Referer). */
  readonly redirectTo: string;
  readonly userId: string;
}

/**
 * Refuses anything but `chrome-extension://<32 letters a–p>/…`.
 * @throws InvalidRedirectUriError.
 */
export function assertExtensionRedirectUri(redirectUri: string): void {
  if (!isExtensionRedirectUri(redirectUri)) {
    throw new InvalidRedirectUriError(
      "redirect_uri must be a page of a Chrome extension: chrome-extension://<id>/…",
    );
  }
}

/** `redirectUri#token=…&state=…`, each value percent-encoded (RFC 3986 fragment). */
export function redirectWithToken(redirectUri: string, token: string, state?: string): string {
  const fragment = new URLSearchParams({ token });
  if (state !== undefined) {
    fragment.set("state", state);
  }
  return `${redirectUri}#${fragment.toString()}`;
}

/** Issues connect challenges and turns verified signatures into extension tokens. */
export class ConnectService {
  constructor(
    private readonly deps: {
      readonly db: Database;
      readonly clock: Clock;
      readonly masterKey: Uint8Array;
      readonly siws: SignInConfig;
      /** Extension token lifetime, seconds. */
      readonly tokenTtlSeconds: number;
      /** AUTH_CHALLENGE_MAX_OUTSTANDING. */
      readonly maxOutstandingChallenges: number;
    },
  ) {}

  /**
   * A single-use challenge for `publicKey`, remembered with the redirect URI it was issued for.
   * @throws InvalidRedirectUriError before anything is stored; AuthError("invalid_public_key").
   */
  async challenge(publicKey: string, redirectUri: string): Promise<Challenge> {
    assertExtensionRedirectUri(redirectUri);
    return issueChallenge({
      db: this.deps.db,
      clock: this.deps.clock,
      config: this.deps.siws,
      publicKey,
      purpose: "extension_connect",
      redirectUri,
      maxOutstanding: this.deps.maxOutstandingChallenges,
    });
  }

  /**
   * The five checks of docs/protocol.md §2 on an `extension_connect` challenge, then: the redirect URI must be
   * the one the challenge was issued for; then a fresh extension token.
   * @throws InvalidRedirectUriError (a malformed URI is refused before any state is touched; one
   *   that differs from the challenge's after the nonce is consumed); AuthError with the failing
   *   check's code.
   */
  async verify(input: {
    publicKey: string;
    message: string;
    signature: string;
    redirectUri: string;
    state?: string;
  }): Promise<Connected> {
    assertExtensionRedirectUri(input.redirectUri);
    const verified = await verifySignIn({
      db: this.deps.db,
      clock: this.deps.clock,
      masterKey: this.deps.masterKey,
      publicKey: input.publicKey,
      message: input.message,
      signature: input.signature,
      purpose: "extension_connect",
    });
    if (verified.redirectUri !== input.redirectUri) {
      throw new InvalidRedirectUriError("redirectUri differs from the one the challenge was for");
    }
    const issued = await issueExtensionToken({
      db: this.deps.db,
      clock: this.deps.clock,
      userId: verified.userId,
      ttlSeconds: this.deps.tokenTtlSeconds,
    });
    return {
      token: issued.token,
      expiresAt: issued.expiresAt.toISOString(),
      redirectTo: redirectWithToken(input.redirectUri, issued.token, input.state),
      userId: verified.userId,
    };
  }
}
