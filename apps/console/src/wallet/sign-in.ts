/**
 * Signing in with a wallet (docs/protocol.md §2): the service issues a Sign-In-With-Solana
 * message for the wallet's address (`POST /auth/challenge`); the console checks that it is a
 * sign-in message for that address and for THIS page's host (the SIWS domain is what a wallet
 * shows and compares with the page it is asked from); the wallet signs it with `solana:signIn`
 * (it rebuilds the same text from the fields) or, lacking that, `solana:signMessage`; the
 * service checks the signature (`POST /auth/verify`) and returns a one-hour session token.
 * @module
 */
import type { SolanaSignInInput } from "@solana/wallet-standard-features";
import { type SvcClient, unwrap } from "@verifiable-memory/client";
import { parseSignInMessage } from "@verifiable-memory/siws-message";
import type { Wallet } from "@wallet-standard/base";
import bs58 from "bs58";
import type { StoredSession } from "../api/session.js";
import { accountOf, signInFeature, signMessageFeature } from "./standard.js";

/** The service's message is for another host than this page: signing it here is refused. */
export class DomainMismatchError extends Error {
  constructor(
    readonly messageDomain: string,
    readonly pageHost: string,
  ) {
    super(
      `The service signs people in for ${messageDomain}, but this console runs at ${pageHost}. ` +
        "A wallet must only sign in to the site it is on, so this console does not ask it to. " +
        `Open the console at ${messageDomain}, or sign in here with an API key.`,
    );
    this.name = "DomainMismatchError";
  }
}

/** Equal bytes. */
function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((byte, i) => byte === b[i]);
}

/**
 * Signs in with `wallet` (its first account, connecting when needed) to the API of `client`.
 * @param pageHost this page's `location.host`: the message's domain must equal it.
 * @returns the session to keep.
 * @throws DomainMismatchError when the service's SIWS domain is another host; Error when the
 *   wallet refuses, cannot sign, or signs other bytes; SvcError from either API call.
 */
export async function signInWithWallet(
  wallet: Wallet,
  client: SvcClient,
  pageHost: string,
): Promise<StoredSession> {
  const account = await accountOf(wallet);
  const challenge = await unwrap(
    client.raw.POST("/auth/challenge", { body: { publicKey: account.address } }),
  );
  const fields = parseSignInMessage(challenge.message);
  if (fields.address !== account.address) {
    throw new Error(`The service issued a sign-in message for ${fields.address}, not for you.`);
  }
  if (fields.domain !== pageHost) {
    throw new DomainMismatchError(fields.domain, pageHost);
  }
  const text = new TextEncoder().encode(challenge.message);
  let signature: Uint8Array;
  const signIn = signInFeature(wallet);
  if (signIn !== undefined) {
    const input: SolanaSignInInput = { ...fields };
    const [output] = await signIn.signIn(input);
    if (output === undefined) {
      throw new Error(`${wallet.name} returned no signature.`);
    }
    if (!sameBytes(output.signedMessage, text) || output.account.address !== account.address) {
      throw new Error(
        `${wallet.name} signed another message than the one the service issued, so the service would refuse it. Try a wallet without Sign In With Solana, or update this one.`,
      );
    }
    signature = output.signature;
  } else {
    const signMessage = signMessageFeature(wallet);
    if (signMessage === undefined) {
      throw new Error(`${wallet.name} can neither sign in nor sign messages.`);
    }
    const [output] = await signMessage.signMessage({ account, message: text });
    if (output === undefined) {
      throw new Error(`${wallet.name} returned no signature.`);
    }
    signature = output.signature;
  }
  const session = await unwrap(
    client.raw.POST("/auth/verify", {
      body: {
        publicKey: account.address,
        message: challenge.message,
        signature: bs58.encode(signature),
      },
    }),
  );
  return {
    kind: "session",
    token: session.token,
    publicKey: session.publicKey,
    expiresAt: session.expiresAt,
    apiUrl: client.baseUrl,
  };
}
